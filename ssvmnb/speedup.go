package ssvmnb

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/viz"
)

// Runs of one problem and method at several worker counts
// (Trainer.Workers) and executions of BCFW's block steps (Wang et al.
// 2016: sequential, a mini-batch, asynchronous, the delay simulator; see
// package solver/execution): what they take to a
// target duality gap (SpeedupTable), the share of the solver time the
// workers can take (WorkerShare), and the figure "passes and time against
// workers" with the time Amdahl's law predicts (WorkersFigures).

// reachedAt returns the first trace point of t whose duality gap is at
// most eps (run.PassesToGap's point).
func reachedAt(t *Trainer, eps float64) (run.Point, bool) {
	for _, p := range t.Trace() {
		if p.Gap <= eps {
			return p, true
		}
	}
	return run.Point{}, false
}

// SpeedupTable tabulates runs of one problem and method that differ
// in their workers or execution, at the first trace point where each one's
// duality gap reached target: its workers (Trainer.Workers), execution,
// effective passes, solver seconds (the block steps: what the workers of
// a mini-batch or an asynchronous run split), the seconds of the whole
// run (the trainer's wall clock of its Run calls: solver time plus the
// exact gap passes and evaluations, which run on the workers for every
// execution; live charts left out), and the speedups of both over the
// first run, its seconds divided by the run's (above 1: faster than the
// first; give the run with one worker first).
//
// A run that never reached target reads "not reached" with its last gap
// and pass, and no speedup ("-"); a whole-run time the trainer did not
// measure (a point it did not make in Run, a file of an older version)
// reads "not measured". The caption names the baseline and says when the
// runs differ in more than their workers and executions (their methods):
// their times then compare more than workers.
func SpeedupTable(target float64, ts ...*Trainer) *Table {
	t := &Table{Columns: []string{"run", "workers", "execution", fmt.Sprintf("passes to gap %g", target),
		"solver s", "whole run s", "speedup (solver)", "speedup (whole run)"}}
	if len(ts) == 0 {
		t.Caption = fmt.Sprintf("to duality gap %g: no runs", target)
		return t
	}
	base, baseOK := reachedAt(ts[0], target)
	baseSolver, baseWhole := math.NaN(), math.NaN()
	if baseOK {
		baseSolver, baseWhole = base.Seconds, ts[0].clock.at(base)
	}
	var differ []string
	for _, tr := range ts {
		if d := methodDiff(ts[0].current(), ts[0].Method(), tr.Method()); d != "" && tr != ts[0] {
			differ = append(differ, fmt.Sprintf("%s (%s)", tr.Name, d))
		}
		p, ok := reachedAt(tr, target)
		if !ok {
			last := tr.Current()
			t.AddRow(tr.Name, tr.Workers, executionLabel(tr.s.Execution()), fmt.Sprintf("not reached (gap %s at pass %s)", Cell(last.Gap), Cell(last.Pass)),
				"not reached", "not reached", math.NaN(), math.NaN())
			continue
		}
		whole := tr.clock.at(p)
		wholeCell := any(whole)
		if math.IsNaN(whole) {
			wholeCell = "not measured"
		}
		t.AddRow(tr.Name, tr.Workers, executionLabel(tr.s.Execution()), p.Pass, p.Seconds, wholeCell, baseSolver/p.Seconds, baseWhole/whole)
	}
	t.Caption = fmt.Sprintf("to duality gap %g; speedups over %s (workers %d, %s); solver time leaves out the exact evaluations, the whole run includes them",
		target, ts[0].Name, ts[0].Workers, executionLabel(ts[0].s.Execution()))
	if len(differ) > 0 {
		t.Caption += "; the configurations differ in more than their execution: " + strings.Join(differ, "; ")
	}
	return t
}

// oracleShareSamples bounds the examples WorkerShare times.
const oracleShareSamples = 256

// Share splits the solver time of a run of package solver by what the
// workers of a mini-batch or of the asynchronous execution can take: the
// read part of its block steps (package solver, "Every core": the scores
// of the block's stored corners, the cache rule, the max oracle and the
// corner of its answer), which they compute in parallel, against the write
// part (the line search and the update of the block and of w), which one
// goroutine applies in order. P = Oracle + Scoring is the p of Amdahl's law
// (viz.AmdahlSeconds).
type Share struct {
	// Oracle is the share of the max-oracle calls of the block steps and
	// the corners of their answers (psi_i(y) and L_i(y)): their number
	// (every oracle call but the n of each exact gap pass) times the time
	// of a call and its corner, timed at the run's current weights. For a
	// multi-plane run it is the run's own measurement of its oracle calls
	// (run.Point.OracleTimeShare, without the corners).
	Oracle float64
	// Scoring is the share of the scores H_i(c; w) of the stored corners
	// (the cache's or the active set's) that every step of a run with a
	// cache or pairwise or away steps computes: an estimate, the number of
	// corners scored (the steps between two trace points times the mean
	// number of stored corners per block there, run.Point.CacheMean, else
	// ActiveMean) times the time of one score, a product <psi_i(y), w>
	// with the features of an oracle answer, timed on the answers' features
	// of the timed examples, which a cache of the processor may hold while
	// the corner sets of a run are read from memory (so it may be low). Zero
	// for a run that stores no corners; NaN for multi-plane BCFW (not
	// modeled: its approximate steps score working sets).
	Scoring float64
}

// P returns p = Oracle + Scoring, at most 1 (a sum above 1, which only a
// change of load between the run and the timing gives, is returned as 1),
// NaN when a part is unknown.
func (s Share) P() float64 {
	return math.Min(1, s.Oracle+s.Scoring)
}

// WorkerShare measures and estimates Share for a run of package solver up
// to its current iterate. The times of an oracle call and of a score are
// wall-clock times on one goroutine, over up to 256 training examples
// spread over the set (the median of the means of at least 5 windows of
// at least 20 ms each, going over the examples again as needed), taken at
// another moment than the run's solver seconds: measure on the machine
// and under the load of the run, and expect the shares to move with the
// load. With the
// gap-based cache most steps call no oracle, so Oracle can be small even
// for a costly oracle while Scoring is most of what the workers take.
// What the shares leave out: a step whose read part was computed at an
// earlier w rescores its corners at the current iterate in its write part
// (two products for a pairwise step), and the cost of handing blocks to
// the workers.
func WorkerShare(t *Trainer) (Share, error) {
	unknown := Share{Oracle: math.NaN(), Scoring: math.NaN()}
	s, ok := t.s.(*solver.Solver)
	if !ok {
		return unknown, fmt.Errorf("ssvmnb: %s: WorkerShare needs a run of package solver (solver.BCFW, ...), not %s", t.Name, t.Method().Name())
	}
	cur := t.Current()
	if share := cur.OracleTimeShare; !math.IsNaN(share) && !math.IsInf(share, 0) {
		return Share{Oracle: share, Scoring: math.NaN()}, nil
	}
	if !(cur.Seconds > 0) {
		return unknown, fmt.Errorf("ssvmnb: %s: WorkerShare needs a run with solver time: call Run first", t.Name)
	}
	call, score, err := readSeconds(s.Problem(), t.Weights(), oracleShareSamples)
	if err != nil {
		return unknown, fmt.Errorf("ssvmnb: %s: timing the oracle: %w", t.Name, err)
	}
	return Share{
		Oracle:  math.Min(1, float64(blockOracleCalls(t))*call/cur.Seconds),
		Scoring: math.Min(1, scoredCorners(t.Trace())*score/cur.Seconds),
	}, nil
}

// blockOracleCalls returns the oracle calls of t's block steps (or
// iterations) so far: every oracle call but the n of each exact gap pass.
func blockOracleCalls(t *Trainer) int64 {
	calls, n := t.s.OracleCalls(), int64(t.on.Train.Len())
	for _, q := range t.Trace() {
		if q.Refresh {
			calls -= n
		}
	}
	return max(calls, 0)
}

// scoredCorners estimates the corner scores the block steps of a trace
// computed: the steps between consecutive points times the mean of the two
// points' stored corners per block (CacheMean, else ActiveMean; none when
// both are NaN).
func scoredCorners(trace []run.Point) float64 {
	stored := func(p run.Point) float64 {
		for _, v := range []float64{p.CacheMean, p.ActiveMean} {
			if !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0 {
				return v
			}
		}
		return 0
	}
	var sum float64
	for k := 1; k < len(trace); k++ {
		if steps := trace[k].Steps - trace[k-1].Steps; steps > 0 {
			sum += float64(steps) * (stored(trace[k-1]) + stored(trace[k])) / 2
		}
	}
	return sum
}

// readSeconds times in windows of at least timingWindow, at least
// timingWindows of them, and takes the median of the windows' means: a
// mean over each window, so that the time other programs take from a
// loaded machine within it counts as it does in a run's solver seconds, and
// the median over the windows, so that a burst of load that takes one
// window does not make the result.
const (
	timingWindow  = 20 * time.Millisecond
	timingWindows = 5
)

// medianWindowMean calls unit, which does some work and returns its
// wall-clock time and its count (of calls, of scores), until minCount are
// counted and timingWindows windows of at least timingWindow each are
// closed, and returns the median of the windows' means per count.
func medianWindowMean(minCount int, unit func() (time.Duration, int, error)) (float64, error) {
	var means []float64
	var win time.Duration
	winCount, count := 0, 0
	for count < minCount || len(means) < timingWindows {
		d, c, err := unit()
		if err != nil {
			return math.NaN(), err
		}
		win, winCount, count = win+d, winCount+c, count+c
		if win >= timingWindow {
			means = append(means, win.Seconds()/float64(winCount))
			win, winCount = 0, 0
		}
	}
	slices.Sort(means)
	return stat.Quantile(0.5, stat.Empirical, means, nil), nil
}

// readSeconds returns the wall-clock seconds of one max-oracle call of p at
// w with the corner of its answer (psi and loss), over up to samples
// examples spread over p (each timed at least once), and of one score
// <psi, w> of those answers' features (an answer equal to the ground truth,
// whose psi is empty, is replaced by the answer at w = 0, a most violating
// labeling, as solver.MeasureCostRatio does), on one goroutine, each the
// median of the means of windows of at least 20 ms (medianWindowMean).
func readSeconds(p oracles.Problem, w []float64, samples int) (call, score float64, err error) {
	n := p.Len()
	if n == 0 {
		return math.NaN(), math.NaN(), errors.New("no examples")
	}
	m := min(n, samples)
	oracle := oracles.OracleFunc(p)
	psis := make([]oracles.SparseVec, m)
	var y []int32
	next := 0
	call, err = medianWindowMean(m, func() (time.Duration, int, error) {
		k := next % m
		i, start := k*n/m, time.Now()
		var err error
		if y, _, err = oracle(i, w, y); err != nil {
			return 0, 0, err
		}
		p.Psi(i, y, &psis[k])
		_ = p.Loss(i, y)
		next++
		return time.Since(start), 1, nil
	})
	if err != nil {
		return math.NaN(), math.NaN(), err
	}
	var zero []float64
	for k := range psis {
		if psis[k].Len() > 0 {
			continue
		}
		if zero == nil {
			zero = make([]float64, len(w))
		}
		i := k * n / m
		if y, _, err = oracle(i, zero, y); err != nil {
			return math.NaN(), math.NaN(), err
		}
		p.Psi(i, y, &psis[k])
	}
	var sink float64
	score, _ = medianWindowMean(m, func() (time.Duration, int, error) {
		start := time.Now()
		for k := range psis {
			sink += psis[k].Dot(w)
		}
		return time.Since(start), m, nil
	})
	if math.IsNaN(sink) || math.IsInf(sink, 0) {
		return math.NaN(), math.NaN(), errors.New("a score <psi, w> is not finite")
	}
	return call, score, nil
}

// simulatedName labels the curve of the delay simulator's runs in
// WorkersFigures (and picks its style).
const simulatedName = "delay simulator"

// WorkersFigures returns the figure "passes and time against workers"
// (viz.WorkerFigures) of runs of one problem and method to the
// duality gap target, in two panels over a log axis of workers 1, 2, 4,
// ...: the effective passes to the target, and the solver time to it as
// viz.AmdahlSeconds predicts it, with the measured runs drawn on both.
//
// simulated are runs of the delay simulator (execution.Simulated with
// Workers = K, a sequential run being K = 1), drawn as one curve against K;
// measured are real runs (sequential, mini-batch or asynchronous), drawn
// as markers at their Trainer.Workers, each in its style. The first
// measured run with one worker is the sequential run whose solver seconds
// to the target are T1 of the prediction; share is p (WorkerShare of that
// run, Share.P). Other runs given as simulated are left out with a note.
func WorkersFigures(target, share float64, simulated []*Trainer, measured ...*Trainer) (passes, seconds *viz.Figure) {
	s := viz.WorkerScaling{Target: target, Share: share, Name: simulatedName, Style: StyleOf(simulatedName)}
	type point struct {
		k      int
		passes float64
	}
	var pts []point
	var left []string
	for _, t := range simulated {
		k, ok := simulatedWorkers(t.s.Execution())
		if !ok {
			left = append(left, fmt.Sprintf("%s (%s)", t.Name, executionLabel(t.s.Execution())))
			continue
		}
		pts = append(pts, point{k, run.PassesToGap(t.Trace(), target)})
	}
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].k < pts[j].k })
	for _, p := range pts {
		s.Workers, s.Passes = append(s.Workers, p.k), append(s.Passes, p.passes)
	}
	for _, t := range measured {
		tr := t.Trace()
		s.Measured = append(s.Measured, viz.WorkerRun{Name: t.Name, Workers: t.Workers,
			Passes: run.PassesToGap(tr, target), Seconds: run.SecondsToGap(tr, target), Style: StyleOf(t.Name)})
	}
	passes, seconds = viz.WorkerFigures(s)
	if len(left) > 0 {
		passes.Notes = append(passes.Notes, "not simulated runs, left out of the curve: "+strings.Join(left, ", "))
	}
	return passes, seconds
}
