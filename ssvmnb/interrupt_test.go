package ssvmnb

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/tune"
)

// interrupting is a problem that sends this program SIGINT (the stop
// button) at its oracle call number at (counted from 1), and counts the
// calls made after it.
type interrupting struct {
	oracles.Problem
	calls, at, after atomic.Int64
}

// interruptNow sends the program SIGINT and waits until the catch has
// seen it (signals are delivered asynchronously).
func interruptNow() {
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	for deadline := time.Now().Add(5 * time.Second); !interrupted.Load() && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(10 * time.Millisecond) // the cancel follows the flag
}

func (p *interrupting) MaxOracle(i int, w []float64, dst []int32) ([]int32, float64) {
	switch n := p.calls.Add(1); {
	case p.at.Load() > 0 && n == p.at.Load():
		// The signal is delivered asynchronously: wait for it, so that
		// the step after this one sees it.
		interruptNow()
	case p.at.Load() > 0 && n > p.at.Load():
		p.after.Add(1)
	}
	return p.Problem.MaxOracle(i, w, dst)
}

// interruptAt returns data whose training problem sends SIGINT at its
// oracle call at, and makes the test forget the interrupt at its end.
func interruptAt(t *testing.T, at int64) (*Data, *interrupting) {
	t.Helper()
	tr, te := synthetic(t)
	p := &interrupting{Problem: tr}
	p.at.Store(at)
	t.Cleanup(func() { interrupted.Store(false) })
	return NewData("synthetic", p, te), p
}

// TestRunInterrupted: SIGINT during Run stops the run within a few block
// steps; the run is stored at the pass the note and the error name, ends
// with an evaluation there, and every later Run of the program returns at
// once; SIGINT is caught only while Run works.
func TestRunInterrupted(t *testing.T) {
	notes := isolated(t)
	data, p := interruptAt(t, 500) // in the fourth pass of 60 words
	m := solver.BCFW{Lambda: 0.01, GapEvery: 100, Seed: 1}
	tr := Must(Session("bcfw", data, m))
	_, err := tr.Run(1000)
	if !errors.Is(err, errInterrupted) {
		t.Fatalf("Run interrupted: %v", err)
	}
	if p.after.Load() > 10+int64(data.Train.Len()) { // a few steps, the final evaluation
		t.Errorf("%d oracle calls after SIGINT", p.after.Load())
	}
	pass := Cell(tr.Passes())
	if !strings.Contains(notes.String(), "interrupted at pass") || tr.Last().Steps != tr.Solver().Steps() {
		t.Fatalf("notes %q; the trace ends at step %d, the run at %d", notes.String(), tr.Last().Steps, tr.Solver().Steps())
	}
	stored := Must(Session("bcfw", data, m))
	if Cell(stored.Passes()) != pass || stored.Last().Steps != tr.Solver().Steps() {
		t.Fatalf("stored at pass %v, the run stopped at %v", stored.Passes(), pass)
	}
	calls := p.calls.Load()
	if _, err := tr.Run(1); !errors.Is(err, errInterrupted) || p.calls.Load() != calls {
		t.Fatalf("a Run after the interrupt: %v, %d more oracle calls", err, p.calls.Load()-calls)
	}
}

// TestSeedsSweepsAndTuneInterrupted: SIGINT during Seeds, a sweep or Tune
// returns what finished with an error saying how much; the sweep shows the
// table of its finished values, Tune that of its finished folds.
func TestSeedsSweepsAndTuneInterrupted(t *testing.T) {
	isolated(t)
	stop := run.Stop{Passes: 3}
	m := solver.BCFW{Lambda: 0.01, GapEvery: 1}

	// Seeds: the second seed is interrupted, the first is returned (the
	// oracle calls of one run counted first).
	data, p := interruptAt(t, 0)
	Must(Seeds(context.Background(), "bcfw", data, m, []uint64{1}, stop))
	p.at.Store(2*p.calls.Load() + 30)
	g, err := Seeds(context.Background(), "bcfw", data, m, []uint64{1, 2, 3}, stop)
	if !errors.Is(err, errInterrupted) || len(g.Trainers) != 1 || !strings.Contains(err.Error(), "1 of 3 seeds finished") {
		t.Fatalf("Seeds interrupted: %d runs, %v", len(g.Trainers), err)
	}
	interrupted.Store(false)

	// A sweep: the second value is interrupted, 30 oracle calls in.
	rec := record(t)
	data, p = interruptAt(t, 0)
	sw := GapEverySweep(m, []float64{1, 2, 5}, stop, 0.1)
	method := sw.Method
	sw.Method = func(v float64) run.Method {
		if v == 2 {
			p.at.Store(p.calls.Load() + 30)
		}
		return method(v)
	}
	res, err := sw.Run(context.Background(), data)
	if !errors.Is(err, errInterrupted) || len(res.Groups) != 1 || !strings.Contains(err.Error(), "1 of 3 values finished") {
		t.Fatalf("sweep interrupted: %d values, %v", len(res.Groups), err)
	}
	if shown := strings.Join(rec.html, ""); !strings.Contains(shown, "sweep over GapEvery") || !strings.Contains(shown, "interrupted: 1 of 3 finished") {
		t.Errorf("the interrupted sweep showed %q", shown)
	}
	interrupted.Store(false)

	// A 2-D sweep: interrupted in its second row; the first makes a heat
	// map.
	data, p = interruptAt(t, 0)
	sw2 := CacheSweep(m, []float64{0.25, 0.5}, []float64{0.01, 1}, stop, 0.1)
	method2 := sw2.Method
	sw2.Method = func(a, b float64) run.Method {
		if a == 0.5 && b == 1 {
			p.at.Store(p.calls.Load() + 30)
		}
		return method2(a, b)
	}
	grid, err := sw2.Run(context.Background(), data)
	if !errors.Is(err, errInterrupted) || len(grid.Trainers) != 1 {
		t.Fatalf("2-D sweep interrupted: %d rows, %v", len(grid.Trainers), err)
	}
	if f := grid.PassesHeatMap(); len(f.Rows) != 1 {
		t.Fatalf("the heat map of an interrupted grid has %d rows", len(f.Rows))
	}
	interrupted.Store(false)

	// Tune: interrupted after its first fit.
	rec.html = nil
	d := Must(Load("synthetic", syntheticData(t).spec.Options))
	first := true
	cfg := tune.Config{Lambdas: []float64{0.1, 0.01}, Folds: 2, Stop: stop, Progress: func(tune.Progress) {
		if first {
			first = false
			// Wait for it, so that the next fit sees it (on a loaded
			// machine the other fits could finish first).
			interruptNow()
		}
	}}
	t.Cleanup(func() { interrupted.Store(false) })
	if _, err := Tune(context.Background(), d, m, cfg); !errors.Is(err, errInterrupted) || !strings.Contains(err.Error(), "of 5 fits finished") {
		t.Fatalf("Tune interrupted: %v", err)
	}
	if shown := strings.Join(rec.html, ""); !strings.Contains(shown, "tune, interrupted") {
		t.Errorf("the interrupted Tune showed %q", shown)
	}
}
