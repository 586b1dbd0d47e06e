package soft

import (
	"context"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/fwstruct/fwstruct/solver/run"
)

// TestRunBudgetAndSchedule: a run never exceeds its pass budget; gap passes
// fall every GapEvery passes and count one pass each; observe-only points
// are never counted; Result.Current says whether the last point describes
// the final iterate, and Current evaluates it when not.
func TestRunBudgetAndSchedule(t *testing.T) {
	m := multiLabel(t, 5, 4, 3, 4)
	for _, tc := range []struct {
		cfg    config
		budget float64
	}{
		{config{Lambda: 0.1, Rho: 1, GapEvery: 2}, 9},
		{config{Lambda: 0.1, Rho: 1, GapEvery: 3, TraceEvery: 0.5, Sampling: run.Permutation}, 7.5},
		{config{Lambda: 0.1, Rho: 1, GapEvery: math.Inf(1), TraceEvery: 1, Sampling: run.GapSampling}, 4},
	} {
		s, err := newSolver(m, tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Run(context.Background(), run.Stop{Passes: tc.budget})
		if err != nil || res.Status != run.StatusPasses {
			t.Fatalf("%+v: %v %v", tc.cfg, res.Status, err)
		}
		if s.Passes() > tc.budget+1e-9 || s.Passes() < tc.budget-1-1e-9 {
			t.Fatalf("%+v: ended at %v passes for a budget of %v", tc.cfg, s.Passes(), tc.budget)
		}
		refreshes := 0
		for k, p := range s.Trace() {
			if p.Refresh {
				refreshes++
			}
			if want := float64(p.Steps+int64(refreshes*s.Blocks())) / float64(s.Blocks()); math.Abs(p.Pass-want) > 1e-9 {
				t.Fatalf("%+v point %d: pass %v, want steps/blocks + gap passes = %v", tc.cfg, k, p.Pass, want)
			}
		}
		last := s.Trace()[len(s.Trace())-1]
		if res.Current != (last.Steps == s.Steps()) {
			t.Fatalf("Result.Current = %v but the last point is at step %d of %d", res.Current, last.Steps, s.Steps())
		}
		cur, err := s.Current()
		if err != nil || cur.Steps != s.Steps() || cur.Pass != s.Passes() {
			t.Fatalf("Current: %+v, %v", cur, err)
		}
		n := len(s.Trace())
		if again, _ := s.Current(); !samePoints(t, []run.Point{again}, []run.Point{cur}) || len(s.Trace()) != n {
			t.Fatal("Current twice recorded twice")
		}
	}
}

// TestStopCriteria: Stop.Gap ends a run at a certified gap, Stop.GapEstimate
// at a stale estimate, Duration and a canceled context stop; runs that
// could never stop are refused.
func TestStopCriteria(t *testing.T) {
	m := multiLabel(t, 5, 4, 3, 5)
	cfg := config{Lambda: 0.3, Rho: 1, GapEvery: 1, Seed: 1}
	s, _ := newSolver(m, cfg)
	res, err := s.Run(context.Background(), run.Stop{Gap: 0.01, Passes: 1000})
	if err != nil || res.Status != run.StatusConverged || !(res.Last.Gap <= 0.01) || !res.Current {
		t.Fatalf("Stop.Gap: %+v %v", res, err)
	}
	s, _ = newSolver(m, cfg)
	res, err = s.Run(context.Background(), run.Stop{GapEstimate: 0.02, Passes: 1000})
	if err != nil || res.Status != run.StatusEstimateConverged || !(s.GapEstimate() <= 0.02) {
		t.Fatalf("Stop.GapEstimate: %+v %v", res, err)
	}
	s, _ = newSolver(m, cfg)
	res, err = s.Run(context.Background(), run.Stop{Gap: 0.01, EarlyCheck: 0.8, Passes: 1000})
	if err != nil || res.Status != run.StatusConverged {
		t.Fatalf("Stop.EarlyCheck: %+v %v", res, err)
	}
	s, _ = newSolver(m, cfg)
	if res, err = s.Run(context.Background(), run.Stop{Duration: time.Millisecond}); err != nil || res.Status != run.StatusTime {
		t.Fatalf("Stop.Duration: %+v %v", res, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res, err = s.Run(ctx, run.Stop{}); err != nil || res.Status != run.StatusCanceled {
		t.Fatalf("canceled context: %+v %v", res, err)
	}
	never, _ := newSolver(m, config{Lambda: 0.3, Rho: 1, GapEvery: math.Inf(1)})
	for _, stop := range []run.Stop{{}, {Gap: 0.1}, {Passes: -1}, {Passes: math.NaN()}, {Gap: math.Inf(1)}, {EarlyCheck: 0.5, Passes: 1}, {Duration: -1}} {
		if _, err := never.Run(context.Background(), stop); err == nil {
			t.Fatalf("Run accepted %+v", stop)
		}
	}
}

// TestWorkersDoNotChangeResults: the evaluations are the same with one
// goroutine or several, and observe-only points do not change the
// trajectory.
func TestWorkersDoNotChangeResults(t *testing.T) {
	m := multiLabel(t, 9, 4, 3, 6)
	run := func(workers int, trace float64) *Solver {
		s, err := newSolver(m, config{Lambda: 0.1, Rho: 0.5, GapEvery: 2, TraceEvery: trace, Seed: 5}, run.WithWorkers(workers))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run(context.Background(), run.Stop{Passes: 8}); err != nil {
			t.Fatal(err)
		}
		return s
	}
	a, b, c := run(1, 0), run(3, 0), run(2, 0.25)
	if !reflect.DeepEqual(a.w, b.w) || !reflect.DeepEqual(a.w, c.w) || !reflect.DeepEqual(a.mu, c.mu) {
		t.Fatal("workers or observe-only points changed the trajectory")
	}
	if !samePoints(t, a.Trace(), b.Trace()) {
		t.Fatal("the trace depends on the number of workers")
	}
	if len(c.Trace()) <= len(a.Trace()) {
		t.Fatal("TraceEvery added no point")
	}
}
