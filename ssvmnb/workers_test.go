package ssvmnb

import (
	"bytes"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/execution"
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
			one := Must(New("one", fc.data(t), fc.method))
			if one.Workers != runtime.GOMAXPROCS(0) || one.applied != one.Workers {
				t.Fatalf("a new trainer has %d workers (engine %d), want one per CPU, %d", one.Workers, one.applied, runtime.GOMAXPROCS(0))
			}
			one.Workers = 1
			Must(one.Run(4))
			three := Must(New("three", fc.data(t), fc.method))
			three.Workers = 3
			Must(three.Run(2))
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
			Must(loaded.Run(2))
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
			Must(loaded.Run(1))
			if loaded.Workers != runtime.GOMAXPROCS(0) {
				t.Errorf("Workers = 0 runs with %d workers, want one per CPU", loaded.Workers)
			}
		})
	}
}

// TestWorkersSessionResume: a session run keeps its workers and its
// execution when a later cell (a fresh program) resumes it by name or
// through Session, a cell asking for another execution is refused, and a
// file whose Workers is 0 resumes with one worker per CPU.
func TestWorkersSessionResume(t *testing.T) {
	isolated(t)
	data := syntheticData(t)
	m, batch := solver.BCFW{Lambda: 0.01, GapEvery: 2}, execution.MiniBatch{Batch: 2}
	s := Must(Session("batch", data, m, batch))
	s.Workers = 2
	Must(s.Run(3))
	r := Must(Resume("batch"))
	if r.Workers != 2 || r.applied != 2 {
		t.Fatalf("resumed with %d workers (engine %d), saved with 2", r.Workers, r.applied)
	}
	Must(r.Run(3))
	if again := Must(Session("batch", data, m, batch)); again.Workers != 2 || again.Passes() != r.Passes() {
		t.Fatalf("Session gives %d workers at pass %v, the stored run has 2 at pass %v", again.Workers, again.Passes(), r.Passes())
	}
	if _, err := Session("batch", data, m); err == nil || !strings.Contains(err.Error(), "the execution is mini-batch of 2, the cell asks for sequential") {
		t.Fatalf("a cell asking for the sequential run got the mini-batch one: %v", err)
	}
	// The same mini-batch run with one worker: the same trajectory.
	whole := Must(New("whole", data, m, batch))
	whole.Workers = 1
	Must(whole.Run(6))
	sameIterate(t, whole, r)

	var buf bytes.Buffer
	if err := r.Save(&buf); err != nil {
		t.Fatal(err)
	}
	tf := Must(readTrainerFile(&buf))
	tf.Workers, tf.Clock = 0, nil // no workers, no clock
	buf.Reset()
	if err := writeFramed(&buf, trainerContent, tf); err != nil {
		t.Fatal(err)
	}
	old := Must(LoadTrainer(&buf, data))
	if old.Workers != runtime.GOMAXPROCS(0) {
		t.Errorf("a file without workers resumes with %d workers, want one per CPU", old.Workers)
	}
	if w := old.clock.at(old.Current()); !math.IsNaN(w) {
		t.Errorf("a file without a clock resumes, yet the whole-run time is %v", w)
	}
}

// TestWallClock: the clock of a trainer gives every trace point its runs
// made a wall-clock time, at least the solver time (which leaves out the
// evaluations) and never decreasing, continued across runs, saves and
// forks (the fork's first point, at its parent's last iterate, shares its
// clock); the time of the trainer's displays is left out.
func TestWallClock(t *testing.T) {
	isolated(t)
	tr := Must(New("clock", chainData(t), solver.BCFW{Lambda: 0.01, GapEvery: 1, Seed: 2}))
	tr.Live = false
	Must(tr.Run(3))
	var buf bytes.Buffer
	if err := tr.Save(&buf); err != nil {
		t.Fatal(err)
	}
	tr = Must(LoadTrainer(&buf, tr.Data()))
	const pause = 30 * time.Millisecond
	points := 0
	tr.onPoint = func(run.Point) { points++; time.Sleep(pause) }
	before, start := tr.clock.Total, time.Now()
	Must(tr.Run(3))
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
	f := Must(tr.Fork("fork", solver.BCFW{Lambda: 0.01, GapEvery: 1, Seed: 2, Sampling: run.GapSampling}))
	forkAt := len(f.Trace()) - 1
	parentLast := tr.Trace()[len(tr.Trace())-1]
	if w := f.clock.at(f.Trace()[forkAt]); w != tr.clock.at(parentLast) {
		t.Errorf("the fork's point, at the parent's last iterate, has clock %v, the parent's last point %v", w, tr.clock.at(parentLast))
	}

	f.Live = false
	Must(f.Run(2))
	check(f, forkAt+1)
	for k, p := range f.Trace()[:forkAt] { // the shared history keeps the parent's clock
		if f.clock.at(p) != tr.clock.at(p) {
			t.Fatalf("history point %d: fork clock %v, parent %v", k, f.clock.at(p), tr.clock.at(p))
		}
	}
}

// TestExecutionLabels: every execution of BCFW's block steps has its label
// in SpeedupTable, only the first-in first-out delay simulator (and a
// sequential run, K = 1) is a point of the simulated curve, and the method
// of a run does not depend on its execution.
func TestExecutionLabels(t *testing.T) {
	m := solver.BCFW{Lambda: 0.01, Seed: 2}
	train := NewData("chain", chainData(t).Train, nil)
	delays := &execution.Delays{Weights: []float64{3, 1}}
	seq := Must(New("sequential", train, m))
	for _, c := range []struct {
		x     run.Execution
		label string
		k     int
		curve bool
	}{
		{nil, "sequential", 1, true},
		{execution.Sequential{}, "sequential", 1, true},
		{execution.MiniBatch{Batch: 4}, "mini-batch of 4", 0, false},
		{execution.MiniBatch{Batch: 2, Lookahead: 1}, "mini-batch of 2, lookahead 1", 0, false},
		{execution.Async{}, "asynchronous", 0, false},
		{execution.Simulated{Workers: 8}, "simulated, K = 8", 8, true},
		{execution.Simulated{Workers: 2, Delays: delays}, "simulated, K = 2, delays of mean 0.25", 0, false},
	} {
		tn, err := New(c.label, train, m, c.x) // an execution the method takes
		if err != nil {
			t.Fatalf("%s: %v", c.label, err)
		}
		if got := executionLabel(tn.s.Execution()); got != c.label {
			t.Errorf("execution: %q, want %q", got, c.label)
		}
		if k, ok := simulatedWorkers(tn.s.Execution()); k != c.k || ok != c.curve {
			t.Errorf("%s: simulated workers %d, %v; want %d, %v", c.label, k, ok, c.k, c.curve)
		}
		if d := methodDiff(m, seq.Method(), tn.Method()); d != "" {
			t.Errorf("%s: the run's method differs from the sequential one: %s", c.label, d)
		}
	}
}
