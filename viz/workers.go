package viz

import (
	"fmt"
	"math"
	"strings"
)

// AmdahlSeconds predicts the solver seconds that k workers take to reach a
// target duality gap, from a measured sequential run and the passes of the
// delay simulator (Amdahl's law with staleness):
//
//	T(k) = T1 * passes(k)/passes(1) * ((1 - p) + p/k)
//
// t1 is T1, the sequential run's solver seconds to the target; passes1
// and passesK are the effective passes one and k workers need to get there
// (passes(k) from a run of the delay simulator, execution.Simulated with
// Workers = k: the staleness of k asynchronous workers, run on one core); p is the
// share of the sequential run's solver time that k workers split, the read
// part of its block steps (the max oracle calls and the scoring of the
// stored corners; ssvmnb.WorkerShare): the rest, 1 - p, the write part
// (line search and update) applied one step at a time on one goroutine
// (Wang et al. 2016, Alg. 1: the server), does not shrink with k. The
// model prices a pass at k workers as the sequential pass with its read
// share divided by k: no cost of handing blocks to the workers, no memory
// bandwidth shared between cores, k free cores. Measured runs at k workers
// check it.
//
// The result is NaN when an input is NaN or infinite, p is outside
// [0, 1], k < 1, or a number of passes is not positive.
func AmdahlSeconds(t1, passes1, passesK, p float64, k int) float64 {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	if !finite(t1) || !finite(passes1) || !finite(passesK) || !(p >= 0 && p <= 1) || k < 1 || !(passes1 > 0) || !(passesK > 0) {
		return math.NaN()
	}
	return t1 * passesK / passes1 * ((1 - p) + p/float64(k))
}

// WorkerRun is a run of a study of worker counts (WorkerFigures): a real
// run at Workers workers and what it took to reach the target gap.
type WorkerRun struct {
	// Name is the legend label of the run.
	Name string
	// Workers is the number of workers it ran with, its x coordinate.
	Workers int
	// Passes and Seconds are the effective passes and the solver seconds
	// at which its duality gap first reached the target; NaN when it did
	// not.
	Passes, Seconds float64
	// Style is how the run is drawn (markers only).
	Style Style
}

// WorkerScaling is what the figure "passes and time against workers"
// shows (WorkerFigures): the passes a run of one problem and
// method needs to reach a target duality gap as the delay
// simulator (execution.Simulated, Workers = K) puts them at K workers, the solver
// time that AmdahlSeconds predicts from them, and real runs at their
// worker counts.
type WorkerScaling struct {
	// Target is the duality gap every value is measured to.
	Target float64
	// Share is p of AmdahlSeconds, the share of the sequential run's solver
	// time the workers can take (NaN: unknown, no prediction).
	Share float64
	// Name and Style are the legend label and style of the simulated runs'
	// curve (the prediction is drawn in the same style).
	Name  string
	Style Style
	// Workers are the K of the simulated runs, increasing, and Passes
	// their effective passes to Target (NaN: not reached).
	Workers []int
	Passes  []float64
	// Measured are real runs. The first with one worker is the sequential
	// run: its Seconds are T1 of the prediction, and its Passes are
	// passes(1) when Workers has no K = 1.
	Measured []WorkerRun
}

// WorkerFigures returns the figure "passes and time against workers" as
// two panels over a log axis of workers labeled 1, 2, 4, ... (up to the
// largest K): the effective passes to the target against K, from 0 (the
// simulated runs as a curve with markers, the measured runs as markers),
// and the
// solver time to the target against K: the prediction of AmdahlSeconds
// from the simulated passes and the sequential run's time, the same model
// without staleness (passes(k) = passes(1): Amdahl's law alone, the gray
// reference), and the measured runs as markers, so that the prediction
// can be checked against them. Notes say which runs did not reach the
// target and why there is no prediction when there is none (no measured
// run with one worker, no reached target, an unknown share).
func WorkerFigures(s WorkerScaling) (passes, seconds *Figure) {
	passes = &Figure{Title: fmt.Sprintf("Passes to gap %g against workers", s.Target),
		XLabel: "workers (log scale)", YLabel: fmt.Sprintf("effective passes to gap %g", s.Target), LogX: true}
	seconds = &Figure{Title: fmt.Sprintf("Solver time to gap %g against workers: predicted and measured", s.Target),
		XLabel: "workers (log scale)", YLabel: fmt.Sprintf("solver seconds to gap %g", s.Target), LogX: true, LogY: true}
	kmax := 2
	for _, k := range s.Workers {
		kmax = max(kmax, k)
	}
	for _, m := range s.Measured {
		kmax = max(kmax, m.Workers)
	}
	var ticks []float64
	for k := 1; k <= kmax; k *= 2 {
		ticks = append(ticks, float64(k))
	}
	for _, f := range []*Figure{passes, seconds} {
		f.XTicks, f.XRange = ticks, [2]float64{1, float64(kmax)}
	}

	// The passes: the simulated curve, then the measured runs.
	sim := Series{Name: s.Name, Color: s.Style.Color, Dash: s.Style.Dash, Markers: true}
	var missed []string
	passes1 := math.NaN()
	for i, k := range s.Workers {
		p := math.NaN()
		if i < len(s.Passes) {
			p = s.Passes[i]
		}
		sim.X, sim.Y = append(sim.X, float64(k)), append(sim.Y, p)
		if !ok(p, false) {
			missed = append(missed, fmt.Sprint(k))
		}
		if k == 1 {
			passes1 = p
		}
	}
	if len(s.Workers) > 0 {
		passes.Series = append(passes.Series, sim)
	}
	if len(missed) > 0 {
		passes.Notes = append(passes.Notes, fmt.Sprintf("%s: gap %g not reached at K = %s", s.Name, s.Target, strings.Join(missed, ", ")))
	}
	var seq *WorkerRun
	var notReached []string
	for i, m := range s.Measured {
		if seq == nil && m.Workers == 1 {
			seq = &s.Measured[i]
		}
		if !ok(m.Passes, false) {
			notReached = append(notReached, m.Name)
		}
		passes.Series = append(passes.Series, measuredPoint(m, m.Passes))
		seconds.Series = append(seconds.Series, measuredPoint(m, m.Seconds))
	}
	// Passes from 0, so that the height of the curve reads as a ratio.
	top := 0.0
	for _, sr := range passes.Series {
		for _, v := range sr.Y {
			if ok(v, false) {
				top = math.Max(top, v)
			}
		}
	}
	if top > 0 {
		passes.YRange = [2]float64{0, 1.1 * top}
	}
	if len(notReached) > 0 {
		note := fmt.Sprintf("gap %g not reached: %s", s.Target, strings.Join(notReached, ", "))
		passes.Notes, seconds.Notes = append(passes.Notes, note), append(seconds.Notes, note)
	}

	// The prediction, from the sequential run.
	why := ""
	switch {
	case seq == nil:
		why = "no measured run with one worker"
	case !ok(seq.Seconds, false) || !ok(seq.Passes, false):
		why = fmt.Sprintf("the sequential run (%s) did not reach gap %g", seq.Name, s.Target)
	case !(s.Share >= 0 && s.Share <= 1):
		why = "the share p of the workers is unknown"
	}
	if why != "" {
		seconds.Notes = append(seconds.Notes, "no prediction: "+why)
		return passes, seconds
	}
	if math.IsNaN(passes1) {
		passes1 = seq.Passes
	}
	pred := Series{Name: fmt.Sprintf("predicted: %s (Amdahl, p = %.3g)", s.Name, s.Share), Color: s.Style.Color, Dash: s.Style.Dash, Markers: true}
	bound := Series{Name: "Amdahl alone (passes as at 1 worker)", Color: refColor, Dash: Dotted}
	for i, k := range s.Workers {
		pred.X, pred.Y = append(pred.X, float64(k)), append(pred.Y, AmdahlSeconds(seq.Seconds, passes1, sim.Y[i], s.Share, k))
	}
	for _, k := range ticks {
		bound.X, bound.Y = append(bound.X, k), append(bound.Y, AmdahlSeconds(seq.Seconds, 1, 1, s.Share, int(k)))
	}
	seconds.Series = append([]Series{bound, pred}, seconds.Series...)
	return passes, seconds
}

// measuredPoint is a measured run's marker at its worker count.
func measuredPoint(m WorkerRun, y float64) Series {
	return Series{Name: m.Name, X: []float64{float64(m.Workers)}, Y: []float64{y},
		Color: m.Style.Color, Dash: m.Style.Dash, MarkersOnly: true}
}
