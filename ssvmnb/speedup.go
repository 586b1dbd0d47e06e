package ssvmnb

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/viz"
)

// Runs of one problem and configuration at several worker counts
// (Trainer.Workers) and executions of BCFW's block steps (Wang et al.
// 2016: sequential, a mini-batch, asynchronous, the delay simulator; see
// the package documentation of solver, "Every core"): what they take to a
// target duality gap (SpeedupTable), the share of the solver time the
// workers split (OracleShare), and the figure "passes and time against
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

// SpeedupTable tabulates runs of one problem and configuration that differ
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
// runs' configurations differ in more than their execution (Batch, Async,
// SimulateWorkers): their times then compare more than workers.
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
		if d := configDiff(sansExecution(ts[0].Config()), sansExecution(tr.Config())); d != "" && tr != ts[0] {
			differ = append(differ, fmt.Sprintf("%s (%s)", tr.Name, d))
		}
		p, ok := reachedAt(tr, target)
		if !ok {
			last := tr.Current()
			t.AddRow(tr.Name, tr.Workers, execution(tr.Config()), fmt.Sprintf("not reached (gap %s at pass %s)", Cell(last.Gap), Cell(last.Pass)),
				"not reached", "not reached", math.NaN(), math.NaN())
			continue
		}
		whole := tr.clock.at(p)
		wholeCell := any(whole)
		if math.IsNaN(whole) {
			wholeCell = "not measured"
		}
		t.AddRow(tr.Name, tr.Workers, execution(tr.Config()), p.Pass, p.Seconds, wholeCell, baseSolver/p.Seconds, baseWhole/whole)
	}
	t.Caption = fmt.Sprintf("to duality gap %g; speedups over %s (workers %d, %s); solver time leaves out the exact evaluations, the whole run includes them",
		target, ts[0].Name, ts[0].Workers, execution(ts[0].Config()))
	if len(differ) > 0 {
		t.Caption += "; the configurations differ in more than their execution: " + strings.Join(differ, "; ")
	}
	return t
}

// oracleShareSamples bounds the examples OracleShare times.
const oracleShareSamples = 256

// OracleShare estimates p, the share of the solver time of a run of
// package solver, up to its current iterate, spent in the max-oracle calls
// of its block steps: the part of a run that the workers of a mini-batch
// or of the asynchronous execution split, while the block updates stay on
// one goroutine (viz.AmdahlSeconds). It is
//
//	p = (oracle calls of the block steps) * (time of one call) / (solver seconds),
//
// where the calls of the block steps are the run's oracle calls but the n
// of each exact gap pass (whose time solver time leaves out), and the time
// of a call is measured here, on one goroutine, at the run's current
// weights on up to 256 training examples spread over the set. Cache hits
// call no oracle, so with the gap-based cache p can be small even for a
// costly oracle. Both times are wall-clock times, taken at different
// moments: measure on the machine and under the load of the run. A ratio
// above 1, which only a change of load between the run and the timing
// gives, is returned as 1. A multi-plane run times
// its oracle calls itself (run.Point.OracleTimeShare, papers.OracleShareTable),
// and that measurement is returned instead.
func OracleShare(t *Trainer) (float64, error) {
	e, ok := t.eng.(bcfwEngine)
	if !ok {
		return math.NaN(), fmt.Errorf("ssvmnb: %s: OracleShare needs a run of package solver (a solver.Config), not of the %s family", t.Name, t.eng.family())
	}
	cur := t.Current()
	if share := cur.OracleTimeShare; !math.IsNaN(share) && !math.IsInf(share, 0) {
		return share, nil
	}
	if !(cur.Seconds > 0) {
		return math.NaN(), fmt.Errorf("ssvmnb: %s: OracleShare needs a run with solver time: call Run first", t.Name)
	}
	perCall, err := oracleSeconds(e.Problem(), t.Weights(), oracleShareSamples)
	if err != nil {
		return math.NaN(), fmt.Errorf("ssvmnb: %s: timing the oracle: %w", t.Name, err)
	}
	return math.Min(1, float64(blockOracleCalls(t))*perCall/cur.Seconds), nil
}

// blockOracleCalls returns the oracle calls of t's block steps (or
// iterations) so far: every oracle call but the n of each exact gap pass.
func blockOracleCalls(t *Trainer) int64 {
	calls, n := t.eng.OracleCalls(), int64(t.on.Train.Len())
	for _, q := range t.Trace() {
		if q.Refresh {
			calls -= n
		}
	}
	return max(calls, 0)
}

// oracleSeconds returns the mean wall-clock seconds of one max-oracle call
// of p at w, over up to samples examples spread over p, on one goroutine.
func oracleSeconds(p oracles.Problem, w []float64, samples int) (float64, error) {
	n := p.Len()
	if n == 0 {
		return math.NaN(), errors.New("no examples")
	}
	m := min(n, samples)
	oracle := oracles.OracleFunc(p)
	var y []int32
	start := time.Now()
	for k := range m {
		var err error
		if y, _, err = oracle(k*n/m, w, y); err != nil {
			return math.NaN(), err
		}
	}
	return time.Since(start).Seconds() / float64(m), nil
}

// simulatedName labels the curve of the delay simulator's runs in
// WorkersFigures (and picks its style).
const simulatedName = "delay simulator"

// WorkersFigures returns the figure "passes and time against workers"
// (viz.WorkerFigures) of runs of one problem and configuration to the
// duality gap target, in two panels over a log axis of workers 1, 2, 4,
// ...: the effective passes to the target, and the solver time to it as
// viz.AmdahlSeconds predicts it, with the measured runs drawn on both.
//
// simulated are runs of the delay simulator (solver.Config.SimulateWorkers
// = K, a sequential run being K = 1), drawn as one curve against K;
// measured are real runs (sequential, mini-batch or asynchronous), drawn
// as markers at their Trainer.Workers, each in its style. The first
// measured run with one worker is the sequential run whose solver seconds
// to the target are T1 of the prediction; share is p (OracleShare of that
// run). Other runs given as simulated are left out with a note.
func WorkersFigures(target, share float64, simulated []*Trainer, measured ...*Trainer) (passes, seconds *viz.Figure) {
	s := viz.WorkerScaling{Target: target, Share: share, Name: simulatedName, Style: StyleOf(simulatedName)}
	type point struct {
		k      int
		passes float64
	}
	var pts []point
	var left []string
	for _, t := range simulated {
		k, ok := simulatedWorkers(t.Config())
		if !ok {
			left = append(left, fmt.Sprintf("%s (%s)", t.Name, execution(t.Config())))
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
