package ssvmnb

import (
	"bytes"
	"encoding/gob"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
)

// TestWorkersEveryFamily: a trainer of every family starts with one worker
// per CPU, runs with the workers it is given (the engine gets them), keeps
// them through Save and LoadTrainer, a fork and a Change, and follows the
// same trajectory with 1 or 3 workers (they parallelize the evaluations,
// never the order of the steps).
func TestWorkersEveryFamily(t *testing.T) {
	for _, fc := range families {
		t.Run(fc.name, func(t *testing.T) {
			isolated(t)
			one := Must(New("one", fc.data(t), fc.cfg))
			if one.Workers != runtime.GOMAXPROCS(0) || one.applied != one.Workers {
				t.Fatalf("a new trainer has %d workers (engine %d), want one per CPU, %d", one.Workers, one.applied, runtime.GOMAXPROCS(0))
			}
			one.Workers = 1
			one.MustRun(4)
			three := Must(New("three", fc.data(t), fc.cfg))
			three.Workers = 3
			three.MustRun(2)
			if three.applied != 3 {
				t.Fatalf("the engine runs with %d workers, the trainer says 3", three.applied)
			}
			var buf bytes.Buffer
			if err := three.Save(&buf); err != nil {
				t.Fatal(err)
			}
			loaded := Must(LoadTrainer(&buf, three.Data()))
			if loaded.Workers != 3 || loaded.applied != 3 {
				t.Fatalf("loaded with %d workers (engine %d), saved with 3", loaded.Workers, loaded.applied)
			}
			loaded.MustRun(2)
			sameIterate(t, one, loaded)

			f := Must(loaded.Fork("fork", nil))
			if f.Workers != 3 || f.applied != 3 {
				t.Errorf("the fork runs with %d workers (engine %d), its parent with 3", f.Workers, f.applied)
			}
			if err := loaded.SetLambda(loaded.Lambda() / 2); err != nil {
				t.Fatal(err)
			}
			if loaded.applied != 3 {
				t.Errorf("after a change the engine runs with %d workers, the trainer with 3", loaded.applied)
			}
			loaded.Workers = -1
			if _, err := loaded.Run(1); err == nil || !strings.Contains(err.Error(), "Workers must be >= 0") {
				t.Errorf("negative workers: %v", err)
			}
			loaded.Workers = 0
			loaded.MustRun(1)
			if loaded.Workers != runtime.GOMAXPROCS(0) {
				t.Errorf("Workers = 0 runs with %d workers, want one per CPU", loaded.Workers)
			}
		})
	}
}

// TestWorkersSessionResume: a session run keeps its workers when a later
// cell (a fresh program) resumes it by name or through Session, and a file
// written before Workers existed (0) resumes with one worker per CPU, as
// such runs had.
func TestWorkersSessionResume(t *testing.T) {
	isolated(t)
	data := syntheticData(t)
	cfg := solver.Config{Lambda: 0.01, GapEvery: 2, Batch: 2}
	s := MustSession("batch", data, cfg)
	s.Workers = 2
	s.MustRun(3)
	r := MustResume("batch")
	if r.Workers != 2 || r.applied != 2 {
		t.Fatalf("resumed with %d workers (engine %d), saved with 2", r.Workers, r.applied)
	}
	r.MustRun(3)
	if again := MustSession("batch", data, cfg); again.Workers != 2 || again.Passes() != r.Passes() {
		t.Fatalf("Session gives %d workers at pass %v, the stored run has 2 at pass %v", again.Workers, again.Passes(), r.Passes())
	}
	// The same mini-batch run with one worker: the same trajectory.
	whole := Must(New("whole", data, cfg))
	whole.Workers = 1
	whole.MustRun(6)
	sameIterate(t, whole, r)

	var buf bytes.Buffer
	if err := r.Save(&buf); err != nil {
		t.Fatal(err)
	}
	tf := Must(readTrainerFile(&buf))
	tf.Workers, tf.Clock = 0, nil // as written before Workers and the clock
	buf.Reset()
	if err := gob.NewEncoder(&buf).Encode(tf); err != nil {
		t.Fatal(err)
	}
	old := Must(LoadTrainer(&buf, data))
	if old.Workers != runtime.GOMAXPROCS(0) {
		t.Errorf("an older file resumes with %d workers, want one per CPU", old.Workers)
	}
	if w := old.clock.at(old.Current()); !math.IsNaN(w) {
		t.Errorf("an older file has no clock, yet the whole-run time is %v", w)
	}
}

// TestWallClock: the clock of a trainer gives every trace point its runs
// made a wall-clock time, at least the solver time (which leaves out the
// evaluations) and never decreasing, continued across runs, saves and
// forks (the fork's first point, at its parent's last iterate, shares its
// clock); the time of the trainer's displays is left out.
func TestWallClock(t *testing.T) {
	isolated(t)
	tr := Must(New("clock", chainData(t), solver.Config{Lambda: 0.01, GapEvery: 1, Seed: 2}))
	tr.Live = false
	tr.MustRun(3)
	var buf bytes.Buffer
	if err := tr.Save(&buf); err != nil {
		t.Fatal(err)
	}
	tr = Must(LoadTrainer(&buf, tr.Data()))
	const pause = 30 * time.Millisecond
	points := 0
	tr.onPoint = func(run.Point) { points++; time.Sleep(pause) }
	before, start := tr.clock.Total, time.Now()
	tr.MustRun(3)
	elapsed := time.Since(start)
	tr.onPoint = nil
	if spent := time.Duration((tr.clock.Total - before) * 1e9); points == 0 || spent > elapsed-time.Duration(points)*pause {
		t.Errorf("the clock counts %v of a %v run whose %d displays slept %v each", spent, elapsed, points, pause)
	}
	check := func(tn *Trainer, from int) {
		t.Helper()
		last := 0.0
		for k, p := range tn.Trace()[from:] {
			w := tn.clock.at(p)
			if math.IsNaN(w) || w < p.Seconds || w < last {
				t.Fatalf("%s: point %d (pass %v, solver %v s): clock %v after %v", tn.Name, from+k, p.Pass, p.Seconds, w, last)
			}
			last = w
		}
		if tn.clock.Total < last {
			t.Fatalf("%s: total %v before the last point %v", tn.Name, tn.clock.Total, last)
		}
	}
	check(tr, 0)
	f := Must(tr.Fork("fork", func(c *solver.Config) { c.Sampling = run.GapSampling }))
	forkAt := len(f.Trace()) - 1
	parentLast := tr.Trace()[len(tr.Trace())-1]
	if w := f.clock.at(f.Trace()[forkAt]); w != tr.clock.at(parentLast) {
		t.Errorf("the fork's point, at the parent's last iterate, has clock %v, the parent's last point %v", w, tr.clock.at(parentLast))
	}

	f.Live = false
	f.MustRun(2)
	check(f, forkAt+1)
	for k, p := range f.Trace()[:forkAt] { // the shared history keeps the parent's clock
		if f.clock.at(p) != tr.clock.at(p) {
			t.Fatalf("history point %d: fork clock %v, parent %v", k, f.clock.at(p), tr.clock.at(p))
		}
	}
}

// TestExecutionLabels: every execution of BCFW's block steps has its label
// in SpeedupTable, only the first-in first-out delay simulator (and a
// sequential run, K = 1) is a point of the simulated curve, and a
// configuration without what selects its execution is the sequential one.
func TestExecutionLabels(t *testing.T) {
	base := solver.Config{Lambda: 0.01, Seed: 2}
	train := chainData(t).Train
	delays := &solver.DelayDistribution{Weights: []float64{3, 1}}
	for _, c := range []struct {
		edit  func(*solver.Config)
		label string
		k     int
		curve bool
	}{
		{func(*solver.Config) {}, "sequential", 1, true},
		{func(c *solver.Config) { c.Batch = 4 }, "mini-batch of 4", 0, false},
		{func(c *solver.Config) { c.Batch, c.Lookahead = 2, 1 }, "mini-batch of 2, lookahead 1", 0, false},
		{func(c *solver.Config) { c.Async = true }, "asynchronous", 0, false},
		{func(c *solver.Config) { c.SimulateWorkers = 8 }, "simulated, K = 8", 8, true},
		{func(c *solver.Config) { c.SimulateWorkers, c.SimulateDelays = 2, delays }, "simulated, K = 2, delays of mean 0.25", 0, false},
	} {
		cfg := base
		c.edit(&cfg)
		if _, err := solver.New(train, cfg); err != nil { // a configuration the solver takes
			t.Fatalf("%s: %v", c.label, err)
		}
		if got := execution(cfg); got != c.label {
			t.Errorf("execution: %q, want %q", got, c.label)
		}
		if k, ok := simulatedWorkers(cfg); k != c.k || ok != c.curve {
			t.Errorf("%s: simulated workers %d, %v; want %d, %v", c.label, k, ok, c.k, c.curve)
		}
		if d := configDiff(sansExecution(base), sansExecution(cfg)); d != "" {
			t.Errorf("%s: without its execution the configuration differs from the sequential one: %s", c.label, d)
		}
	}
}
