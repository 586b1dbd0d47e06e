package core

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/fwstruct/fwstruct/solver/run"
)

// fake is an engine of n blocks whose steps and refreshing evaluations
// each cost an oracle call per block.
type fake struct {
	n, steps, calls int64
	loop            *Loop
	records         []bool
	failAt          int64
}

func (f *fake) Step() error {
	if f.steps == f.failAt {
		return errors.New("boom")
	}
	f.steps++
	f.calls++
	return nil
}
func (f *fake) Clock() int64    { return f.steps }
func (f *fake) Passes() float64 { return float64(f.calls) / float64(f.n) }
func (f *fake) Record(refresh bool) error {
	if refresh {
		f.calls += f.n
	}
	f.records = append(f.records, refresh)
	f.loop.LastEval = f.steps
	return nil
}
func (f *fake) Reached(run.Stop) (run.Status, bool) { return 0, false }
func (f *fake) EarlyCheckDue(run.Stop) bool         { return false }

func TestLoopSchedule(t *testing.T) {
	const n = 10
	for _, tc := range []struct {
		gapEvery, traceEvery, budget float64
		records                      int
	}{
		{2, 0, 9, 4},   // start, then gap passes after 2, 4, 6 passes of steps (at passes 3, 6, 9)
		{1, 0, 6.5, 4}, // start, gap passes at 1, 2, 3 (passes 2, 4, 6); the next does not fit
		{100, 1, 5, 6}, // start and observe-only points at 1..5 passes
	} {
		l := NewLoop(n, tc.gapEvery, tc.traceEvery, GapPasses)
		f := &fake{n: n, loop: &l, failAt: -1}
		st, err := l.Run(context.Background(), run.Stop{Passes: tc.budget}, f)
		if err != nil || st != run.StatusPasses {
			t.Fatalf("%+v: status %v, err %v", tc, st, err)
		}
		if f.Passes() > tc.budget+1e-9 || f.Passes() < tc.budget-1 {
			t.Fatalf("%+v: ended at %v passes", tc, f.Passes())
		}
		if len(f.records) != tc.records {
			t.Fatalf("%+v: %d evaluations %v, want %d", tc, len(f.records), f.records, tc.records)
		}
	}
}

func TestLoopStopsOnStepError(t *testing.T) {
	l := NewLoop(5, 1, 0, GapPasses)
	f := &fake{n: 5, loop: &l, failAt: 7}
	if _, err := l.Run(context.Background(), run.Stop{Passes: 100}, f); err == nil || f.steps != 7 {
		t.Fatalf("err %v after %d steps", err, f.steps)
	}
}

// canceling is a fake whose step k cancels the run's context.
type canceling struct {
	fake
	at     int64
	cancel func()
}

func (c *canceling) Step() error {
	if c.steps == c.at {
		c.cancel()
	}
	return c.fake.Step()
}

// TestLoopStopsAtTheStepAfterACancel: a context canceled during a step
// stops the run after that step, not at the end of the chunk of steps
// between two checks (the stop button of a notebook, where one step may
// take milliseconds).
func TestLoopStopsAtTheStepAfterACancel(t *testing.T) {
	const n = 1000 // chunks of 256 steps
	l := NewLoop(n, 100, 0, GapPasses)
	ctx, cancel := context.WithCancel(context.Background())
	c := &canceling{fake: fake{n: n, loop: &l, failAt: -1}, at: 10, cancel: cancel}
	st, err := l.Run(ctx, run.Stop{Passes: 50}, c)
	if err != nil || st != run.StatusCanceled || c.steps != 11 {
		t.Fatalf("status %v, err %v, after %d steps; want canceled after step 11", st, err, c.steps)
	}
}

func TestParallelIsDeterministicAndReportsErrors(t *testing.T) {
	sums := make([]int, 3)
	if err := Parallel(100, 3, func(k, i int) error { sums[k] += i; return nil }); err != nil {
		t.Fatal(err)
	}
	if sums[0]+sums[1]+sums[2] != 4950 { // per-worker sums add up, whoever took which chunk
		t.Fatalf("per-worker sums %v", sums)
	}
	err := Parallel(50, 4, func(k, i int) error {
		if i == 30 {
			return errors.New("block 30")
		}
		return nil
	})
	if err == nil || err.Error() != "block 30" {
		t.Fatalf("err %v", err)
	}
}

// batch is a fake batch engine: every step costs a pass.
type batch struct{ fake }

func (b *batch) Step() error {
	b.steps++
	b.calls += b.n
	return nil
}

func (b *batch) StepCost() float64 { return 1 }

func (b *batch) RecordCost(refresh bool) float64 {
	if refresh {
		return 1
	}
	return 0
}

func TestLoopStepCostKeepsBudget(t *testing.T) {
	l := NewLoop(1, 100, 0, GapPasses)
	b := &batch{fake{n: 4, failAt: -1}}
	b.loop = &l
	st, err := l.Run(context.Background(), run.Stop{Passes: 3.5}, b)
	if err != nil || st != run.StatusPasses {
		t.Fatalf("status %v, err %v", st, err)
	}
	if b.Passes() != 3 {
		t.Fatalf("stopped at %v passes, want 3 (a fourth step would cross 3.5)", b.Passes())
	}
}

// TestAdvance compares Advance with the loop that defines it (add periods
// until the mark passes now) on small values, and checks that far-apart
// and overflowing values (a corrupt checkpoint's clocks) are answered at
// once, saturating at math.MaxInt64.
func TestAdvance(t *testing.T) {
	l := NewLoop(4, 10, 0, GapPasses)
	for _, every := range []float64{0.25, 1, 2.5} {
		step := l.ticks(every)
		for mark := int64(0); mark < 30; mark++ {
			for now := int64(0); now < 60; now++ {
				want := mark
				for want <= now {
					want += step
				}
				if got := l.Advance(mark, now, every); got != want {
					t.Fatalf("Advance(%d, %d, %v) = %d, want %d", mark, now, every, got, want)
				}
			}
		}
	}
	cases := []struct {
		mark, now int64
		every     float64
		want      int64
	}{
		{1, 1 << 60, 1, 1<<60 + 1},
		{1, math.MaxInt64 - 1, 1, math.MaxInt64},
		{5, math.MaxInt64, 2, math.MaxInt64},
		{-7, 3, 1, 4},
		{3, 100, math.Inf(1), math.MaxInt64},
	}
	for _, c := range cases {
		if got := l.Advance(c.mark, c.now, c.every); got != c.want {
			t.Errorf("Advance(%d, %d, %v) = %d, want %d", c.mark, c.now, c.every, got, c.want)
		}
	}
}

// phased is a fake engine whose every pass of n oracle steps is followed
// by free steps (no oracle call, no clock tick), a phase that ends with
// the clock's last tick, like the approximate passes of multi-plane BCFW.
type phased struct {
	fake
	free, left int64 // free steps per phase, left in the current one
	done       int64 // free steps made
}

func (p *phased) Step() error {
	if p.left > 0 {
		p.left--
		p.done++
		if p.left == 0 {
			p.steps++ // the pass's last tick comes when its phase ends
		}
		return nil
	}
	p.calls++
	if (p.calls)%p.n == 0 && p.free > 0 {
		p.left = p.free
		return nil
	}
	p.steps++
	return nil
}
func (p *phased) Settled() bool { return p.left == 0 }

func TestLoopLetsPhasesFinish(t *testing.T) {
	const n = 10
	for _, tc := range []struct {
		free   int64
		budget float64
	}{{0, 3}, {5, 3}, {5000, 2}, {7, 2.5}} {
		l := NewLoop(n, 1, 0, GapPasses)
		p := &phased{fake: fake{n: n, loop: &l, failAt: -1}, free: tc.free}
		st, err := l.Run(context.Background(), run.Stop{Passes: tc.budget}, p)
		if err != nil || st != run.StatusPasses {
			t.Fatalf("%+v: status %v, err %v", tc, st, err)
		}
		if p.left != 0 || p.Passes() > tc.budget+1e-9 {
			t.Fatalf("%+v: stopped inside a phase (%d free steps left) or over budget (%v passes)", tc, p.left, p.Passes())
		}
		// Every pass of oracle steps made is followed by its whole phase.
		if exact := p.calls - int64(len(p.records)-1)*n; p.done != exact/n*tc.free {
			t.Fatalf("%+v: %d free steps after %d oracle steps", tc, p.done, exact)
		}
	}
}
