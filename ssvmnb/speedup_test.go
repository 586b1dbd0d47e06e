package ssvmnb

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/execution"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/viz"
)

// executions returns runs of one configuration on the synthetic chains,
// each to 8 passes with exact gap passes every pass: sequential with one
// worker, a mini-batch of 2 with a lookahead of 1 on 2 workers, and the
// delay simulator at K = 2 and 4.
func executions(t *testing.T) []*Trainer {
	m := solver.BCFW{Lambda: 0.01, GapEvery: 1, Seed: 4}
	var ts []*Trainer
	for _, c := range []struct {
		name    string
		workers int
		x       run.Execution
	}{
		{"sequential", 1, nil},
		{"mini-batch", 2, execution.MiniBatch{Batch: 2, Lookahead: 1}},
		{"simulated 2", 1, execution.Simulated{Workers: 2}},
		{"simulated 4", 1, execution.Simulated{Workers: 4}},
	} {
		tr := Must(New(c.name, chainData(t), m, c.x))
		tr.Live, tr.Workers = false, c.workers
		Must(tr.Run(8))
		ts = append(ts, tr)
	}
	return ts
}

// TestSpeedupTable checks every cell against the traces and clocks, read
// here independently: the first point at or below the target, its passes,
// solver seconds and clock, the ratios to the first run; "not reached"
// with the last gap for a target nobody reaches, "not measured" for a run
// without a clock, and a caption that names the baseline and a run whose
// configuration differs in more than its execution.
func TestSpeedupTable(t *testing.T) {
	isolated(t)
	ts := executions(t)
	reachAll := 0.0
	for _, tr := range ts {
		reachAll = math.Max(reachAll, tr.Current().Gap)
	}
	first := func(tr *Trainer, eps float64) (run.Point, bool) {
		for _, p := range tr.Trace() {
			if !math.IsNaN(p.Gap) && p.Gap <= eps {
				return p, true
			}
		}
		return run.Point{}, false
	}
	tab := SpeedupTable(reachAll, ts...)
	if len(tab.Rows) != len(ts) || len(tab.Columns) != 8 {
		t.Fatalf("table %d x %d: %q", len(tab.Rows), len(tab.Columns), tab.Columns)
	}
	if !strings.Contains(tab.Caption, "speedups over sequential (workers 1, sequential)") || strings.Contains(tab.Caption, "differ") {
		t.Errorf("caption %q", tab.Caption)
	}
	b, _ := first(ts[0], reachAll)
	bWhole := ts[0].clock.at(b)
	wantExec := []string{"sequential", "mini-batch of 2, lookahead 1", "simulated, K = 2", "simulated, K = 4"}
	for k, tr := range ts {
		p, ok := first(tr, reachAll)
		if !ok {
			t.Fatalf("%s never reached its own final gap", tr.Name)
		}
		whole := tr.clock.at(p)
		if math.IsNaN(whole) || whole < p.Seconds {
			t.Fatalf("%s: whole-run time %v at solver time %v", tr.Name, whole, p.Seconds)
		}
		want := []string{tr.Name, strconv.Itoa(tr.Workers), wantExec[k], Cell(p.Pass), Cell(p.Seconds), Cell(whole),
			Cell(b.Seconds / p.Seconds), Cell(bWhole / whole)}
		if got := tab.Rows[k]; strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("row %d: %q, want %q", k, got, want)
		}
	}
	if tab.Rows[0][6] != "1" || tab.Rows[0][7] != "1" {
		t.Errorf("the baseline's speedups are %s and %s, want 1", tab.Rows[0][6], tab.Rows[0][7])
	}

	// Nobody reaches 1e-12; a run without a clock; another lambda.
	other := Must(New("other lambda", chainData(t), solver.BCFW{Lambda: 0.02, GapEvery: 1, Seed: 4}))
	other.Live = false
	Must(other.Run(4))
	none := SpeedupTable(1e-12, ts[0], other)
	for _, row := range none.Rows {
		last := Cell(ts[0].Current().Gap)
		if row[0] == other.Name {
			last = Cell(other.Current().Gap)
		}
		if !strings.HasPrefix(row[3], "not reached (gap "+last+" at pass ") || row[4] != "not reached" || row[5] != "not reached" || row[6] != "-" || row[7] != "-" {
			t.Errorf("not reached: %q", row)
		}
	}
	if !strings.Contains(none.Caption, "differ in more than their execution: other lambda (Lambda is 0.01, the cell asks for 0.02)") {
		t.Errorf("caption %q does not say that the configurations differ", none.Caption)
	}
	ts[1].clock = wallClock{}
	unmeasured := SpeedupTable(reachAll, ts[0], ts[1])
	if r := unmeasured.Rows[1]; r[5] != "not measured" || r[7] != "-" || r[6] == "-" {
		t.Errorf("a run without a clock: %q", r)
	}
	if empty := SpeedupTable(0.1); len(empty.Rows) != 0 || !strings.Contains(empty.Caption, "no runs") {
		t.Errorf("no runs: %+v", empty)
	}
}

// TestWorkerShare: the calls of the block steps are those the solver
// makes outside its gap passes (one per step without the cache, the cache
// misses with it); a run that stores no corners scores none (Scoring 0),
// one with the cache scores its corners (Scoring > 0); P is the sum capped
// at 1; a multi-plane run gives its own measurement of the oracle calls
// and no scoring share (not modeled); runs it cannot measure are errors
// saying why.
func TestWorkerShare(t *testing.T) {
	isolated(t)
	plain := Must(New("plain", chainData(t), solver.BCFW{Lambda: 0.01, GapEvery: 2, Seed: 1}))
	cached := Must(New("cached", chainData(t), solver.BCFW{Lambda: 0.01, GapEvery: 2, Seed: 1, Cache: &solver.Cache{}}))
	if _, err := WorkerShare(plain); err == nil || !strings.Contains(err.Error(), "call Run first") {
		t.Errorf("before Run: %v", err)
	}
	for _, tr := range []*Trainer{plain, cached} {
		tr.Live = false
		Must(tr.Run(10))
	}
	if got, want := blockOracleCalls(plain), plain.Current().Steps; got != want {
		t.Errorf("plain BCFW: %d oracle calls of block steps, %d steps", got, want)
	}
	cur := cached.Current()
	if got := blockOracleCalls(cached); got != cur.CacheMisses || cur.CacheHits == 0 {
		t.Errorf("with the cache: %d oracle calls of block steps, %d misses (%d hits)", got, cur.CacheMisses, cur.CacheHits)
	}
	ps := Must(WorkerShare(plain))
	if !(ps.Oracle > 0 && ps.Oracle <= 1) || ps.Scoring != 0 || ps.P() != ps.Oracle {
		t.Errorf("plain BCFW (no stored corners): %+v, p = %v", ps, ps.P())
	}
	cs := Must(WorkerShare(cached))
	if !(cs.Oracle > 0 && cs.Oracle <= 1) || !(cs.Scoring > 0 && cs.Scoring <= 1) || cs.P() != math.Min(1, cs.Oracle+cs.Scoring) {
		t.Errorf("BCFW with the cache: %+v, p = %v", cs, cs.P())
	}
	if scoredCorners(cached.Trace()) <= 0 || scoredCorners(plain.Trace()) != 0 {
		t.Errorf("scored corners: %v with the cache, %v without", scoredCorners(cached.Trace()), scoredCorners(plain.Trace()))
	}
	mp := Must(New("mp", chainData(t), families[2].method))
	mp.Live = false
	Must(mp.Run(4))
	ms := Must(WorkerShare(mp))
	if want := mp.Current().OracleTimeShare; ms.Oracle != want || math.IsNaN(want) || !math.IsNaN(ms.Scoring) || !math.IsNaN(ms.P()) {
		t.Errorf("multi-plane: %+v (p = %v), its own measurement %v", ms, ms.P(), want)
	}
	sf := Must(New("soft", factorData(t), families[6].method))
	if _, err := WorkerShare(sf); err == nil || !strings.Contains(err.Error(), "needs a run of package solver") {
		t.Errorf("soft run: %v", err)
	}
}

// TestScoredCorners: the steps between consecutive points times the mean
// of their stored corners per block (the cache's, else the active sets'),
// on made-up traces.
func TestScoredCorners(t *testing.T) {
	pt := func(steps int64, cache, active float64) run.Point {
		p := run.Blank()
		p.Steps, p.CacheMean, p.ActiveMean = steps, cache, active
		return p
	}
	nan := math.NaN()
	for _, c := range []struct {
		name  string
		trace []run.Point
		want  float64
	}{
		{"empty", nil, 0},
		{"one point", []run.Point{pt(100, 5, nan)}, 0},
		{"cache", []run.Point{pt(0, 0, nan), pt(100, 2, nan), pt(300, 4, nan)}, 100*1 + 200*3},
		{"a gap pass adds no steps", []run.Point{pt(0, 1, nan), pt(10, 1, nan), pt(10, 3, nan), pt(20, 3, nan)}, 10*1 + 10*3},
		{"active sets without a cache", []run.Point{pt(0, nan, 1), pt(50, nan, 3)}, 50 * 2},
		{"the cache first", []run.Point{pt(0, 2, 1), pt(50, 2, 1)}, 50 * 2},
		{"no stored corners", []run.Point{pt(0, nan, nan), pt(50, nan, nan)}, 0},
	} {
		if got := scoredCorners(c.trace); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestMedianWindowMean: on made-up timings, the median of the windows'
// means per count: a constant time is returned as it is, a burst that
// takes one window does not move the result, every sample is timed at
// least once (minCount) and at least timingWindows windows are closed, and
// an error of the work is returned.
func TestMedianWindowMean(t *testing.T) {
	const ms = time.Millisecond
	for _, c := range []struct {
		name      string
		minCount  int
		unit      func(k int) (time.Duration, int)
		want      float64
		minCalled int
	}{
		{"constant", 1, func(int) (time.Duration, int) { return 5 * ms, 1 }, 0.005, timingWindows * 4},
		{"a burst in one window", 1, func(k int) (time.Duration, int) {
			if k == 6 {
				return time.Second, 1
			}
			return 5 * ms, 1
		}, 0.005, timingWindows*4 - 1}, // the burst closes its window at once
		{"every sample once", 100, func(int) (time.Duration, int) { return 5 * ms, 1 }, 0.005, 100},
		{"counts per unit", 1, func(int) (time.Duration, int) { return 30 * ms, 3 }, 0.01, timingWindows},
	} {
		called := 0
		got, err := medianWindowMean(c.minCount, func() (time.Duration, int, error) {
			d, n := c.unit(called)
			called++
			return d, n, nil
		})
		if err != nil || math.Abs(got-c.want) > 1e-12 || called < c.minCalled {
			t.Errorf("%s: %v, %v after %d units; want %v after at least %d", c.name, got, err, called, c.want, c.minCalled)
		}
	}
	failed := errors.New("oracle failed")
	if got, err := medianWindowMean(1, func() (time.Duration, int, error) { return 0, 0, failed }); !errors.Is(err, failed) || !math.IsNaN(got) {
		t.Errorf("an error of the work: %v, %v", got, err)
	}
}

// TestWorkersFigures: the figure of a study on the synthetic chains takes
// the passes of the simulated runs against K, the measured runs at their
// workers with their passes and solver seconds to the target, T1 from the
// sequential run, leaves a mini-batch given as simulated out with a note,
// and draws.
func TestWorkersFigures(t *testing.T) {
	isolated(t)
	ts := executions(t)
	seq, batch := ts[0], ts[1]
	target := 0.0
	for _, tr := range ts {
		target = math.Max(target, tr.Current().Gap)
	}
	const share = 0.6
	passes, seconds := WorkersFigures(target, share, []*Trainer{ts[3], ts[2], seq, batch}, seq, batch)
	series := func(f *viz.Figure, name string) viz.Series {
		for _, s := range f.Series {
			if s.Name == name {
				return s
			}
		}
		t.Fatalf("%q: no series %q", f.Title, name)
		return viz.Series{}
	}
	sim := series(passes, simulatedName)
	wantPasses := []float64{run.PassesToGap(seq.Trace(), target), run.PassesToGap(ts[2].Trace(), target), run.PassesToGap(ts[3].Trace(), target)}
	if len(sim.X) != 3 || sim.X[0] != 1 || sim.X[1] != 2 || sim.X[2] != 4 || sim.Y[0] != wantPasses[0] || sim.Y[1] != wantPasses[1] || sim.Y[2] != wantPasses[2] {
		t.Errorf("simulated curve (%v, %v), want K = 1, 2, 4 and passes %v", sim.X, sim.Y, wantPasses)
	}
	for _, m := range []*Trainer{seq, batch} {
		pp, sp := series(passes, m.Name), series(seconds, m.Name)
		if pp.X[0] != float64(m.Workers) || pp.Y[0] != run.PassesToGap(m.Trace(), target) || sp.Y[0] != run.SecondsToGap(m.Trace(), target) {
			t.Errorf("%s: passes (%v, %v), seconds %v", m.Name, pp.X, pp.Y, sp.Y)
		}
	}
	var pred viz.Series
	for _, s := range seconds.Series {
		if strings.HasPrefix(s.Name, "predicted") {
			pred = s
		}
	}
	t1 := run.SecondsToGap(seq.Trace(), target)
	for i, k := range []int{1, 2, 4} {
		if want := viz.AmdahlSeconds(t1, wantPasses[0], wantPasses[i], share, k); pred.Y[i] != want {
			t.Errorf("prediction at K = %d: %v, want %v", k, pred.Y[i], want)
		}
	}
	if notes := strings.Join(passes.Notes, " | "); !strings.Contains(notes, "left out of the curve: mini-batch (mini-batch of 2, lookahead 1)") {
		t.Errorf("notes %q", notes)
	}
	for _, f := range []*viz.Figure{passes, seconds} {
		if _, err := renderPNG(f); err != nil || f.Drawn() < 3 {
			t.Errorf("%q: %v, drawn %d", f.Title, err, f.Drawn())
		}
	}
}
