package solver

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
	"github.com/fwstruct/fwstruct/solver/execution"
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// TestLateLossesSameTrace checks that computing the task losses of the
// trace points while the steps go on changes nothing in the trace, bit for
// bit, whatever the executions, splits of the run and workers: the
// callback sees every point once, in order, complete, and Run returns only
// once the last point is in the trace.
func TestLateLossesSameTrace(t *testing.T) {
	train := oraclestest.Chain(oraclestest.ChainConfig{N: 60, MaxLen: 8, Labels: 5, Features: 20, Density: 0.3, Seed: 3})
	test := oraclestest.Chain(oraclestest.ChainConfig{N: 45, MaxLen: 8, Labels: 5, Features: 20, Density: 0.3, Seed: 4})
	for _, c := range []struct {
		name  string
		cfg   config
		ahead bool // the losses are computed while the steps go on
	}{
		{"bcfw", config{Lambda: 0.01, TraceEvery: 0.25}, true},
		{"recommended", func() config { c := recommended(); c.Lambda, c.GapEvery, c.TraceEvery = 0.01, 1, 0.25; return c }(), true},
		{"recommended, averaged", func() config {
			c := recommended()
			c.Lambda, c.GapEvery, c.TraceEvery, c.Averaging, c.AverageKind = 0.01, 1, 0.25, true, run.WeightedAverage
			return c
		}(), true},
		{"ssg", config{Lambda: 0.01, Algorithm: run.SSG, TraceEvery: 0.5}, true},
		{"ssg, averaged", config{Lambda: 0.01, Algorithm: run.SSG, TraceEvery: 0.5, Averaging: true, AverageKind: run.WeightedAverage}, true},
		{"mini-batch (losses in place)", config{Lambda: 0.01, TraceEvery: 0.5, Execution: execution.MiniBatch{Batch: 3, Lookahead: 1}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			run1 := func(late bool, workers int, splits []float64) ([]run.Point, []run.Point) {
				var seen []run.Point
				s, err := newSolver(train, c.cfg, run.WithTest(test), run.WithTrainLoss(true), run.WithWorkers(workers), run.WithLateLosses(late),
					run.WithProgress(func(pt run.Point) { seen = append(seen, pt) }))
				if err != nil {
					t.Fatal(err)
				}
				if got := s.lateLossesApply(); got != (late && workers > 1 && c.ahead) {
					t.Fatalf("late %v, %d workers: losses computed ahead %v", late, workers, got)
				}
				for _, passes := range splits {
					res, err := s.Run(context.Background(), run.Stop{Passes: passes})
					if err != nil {
						t.Fatal(err)
					}
					if last, _ := s.Last(); !samePoint(res.Last, last) || res.Current != (s.evalAt == s.steps) {
						t.Fatalf("Run returned %+v as its last point, the trace ends with %+v", res.Last, last)
					}
					if s.late.pending {
						t.Fatal("Run returned with a point under way")
					}
				}
				return s.Trace(), seen
			}
			want, _ := run1(false, 1, []float64{6})
			for _, workers := range []int{2, 3} {
				for _, splits := range [][]float64{{6}, {1, 2.5, 6}} {
					got, seen := run1(true, workers, splits)
					if !sameTrace(got, want) {
						t.Fatalf("%d workers, runs to %v: the trace differs from the one computed in place", workers, splits)
					}
					if !sameTrace(seen, want) {
						t.Fatalf("%d workers: the progress callback saw %d points, not the trace's %d in order", workers, len(seen), len(want))
					}
				}
			}
			for _, pt := range want {
				if pt.TestLoss != pt.TestLoss || pt.TrainLoss != pt.TrainLoss {
					t.Fatalf("a point without its losses: %+v", pt)
				}
				if averaged := c.cfg.AverageKind != run.NoAverage; averaged != (pt.TestLossAvg == pt.TestLossAvg) {
					t.Fatalf("averaging %v, the averaged iterate's test loss %v", averaged, pt.TestLossAvg)
				}
			}
		})
	}
}

// sameTrace reports whether two traces are the same but for the solver
// times.
func sameTrace(a, b []run.Point) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !samePoint(a[k], b[k]) {
			return false
		}
	}
	return true
}

// panicTest is a test problem whose Predict panics on one example.
type panicTest struct {
	oracles.Problem
	bad int
}

func (p panicTest) Predict(i int, w []float64, dst []int32) []int32 {
	if i == p.bad {
		var a []int32
		_ = a[i] // index out of range
	}
	return p.Problem.Predict(i, w, dst)
}

// TestLossPanicIsTheRunsError checks that a test problem whose Predict
// panics makes Run fail with an error naming the example, in place and
// late, instead of a loss computed without it or a crash.
func TestLossPanicIsTheRunsError(t *testing.T) {
	train := oraclestest.Chain(oraclestest.ChainConfig{N: 30, MaxLen: 6, Labels: 4, Features: 10, Density: 0.4, Seed: 5})
	test := panicTest{oraclestest.Chain(oraclestest.ChainConfig{N: 20, MaxLen: 6, Labels: 4, Features: 10, Density: 0.4, Seed: 6}), 13}
	for _, late := range []bool{false, true} {
		s, err := newSolver(train, config{Lambda: 0.1}, run.WithTest(test), run.WithWorkers(2), run.WithLateLosses(late))
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Run(context.Background(), run.Stop{Passes: 3})
		var pe *core.PanicError
		if !errors.As(err, &pe) || pe.Example != 13 || !strings.Contains(err.Error(), "test loss") {
			t.Fatalf("late %v: Run returned %v, want the panic of test example 13", late, err)
		}
	}
}

// TestAveragedTestLoss: the averaged iterate's test loss of a trace point
// is the mean task loss of the predictions at the averaged weights of that
// point, and differs from the iterate's where the two iterates predict
// differently.
func TestAveragedTestLoss(t *testing.T) {
	train := oraclestest.Chain(oraclestest.ChainConfig{N: 60, MaxLen: 8, Labels: 5, Features: 20, Density: 0.3, Seed: 3})
	test := oraclestest.Chain(oraclestest.ChainConfig{N: 45, MaxLen: 8, Labels: 5, Features: 20, Density: 0.3, Seed: 4})
	s, err := newSolver(train, config{Lambda: 0.01, GapEvery: 1, Averaging: true, AverageKind: run.WeightedAverage}, run.WithTest(test), run.WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	differs := false
	for range 4 {
		if _, err := s.Run(context.Background(), run.Stop{Passes: s.Passes() + 1}); err != nil {
			t.Fatal(err)
		}
		pt, err := s.Current()
		if err != nil {
			t.Fatal(err)
		}
		mean := func(w []float64) float64 {
			var sum float64
			for i := range test.Len() {
				sum += test.Loss(i, test.Predict(i, w, nil))
			}
			return sum / float64(test.Len())
		}
		if want := mean(s.AverageWeights()); pt.TestLossAvg != want {
			t.Fatalf("pass %g: test loss of the average %v, its predictions' mean loss %v", pt.Pass, pt.TestLossAvg, want)
		}
		if want := mean(s.Weights()); pt.TestLoss != want {
			t.Fatalf("pass %g: test loss %v, the iterate's predictions' mean loss %v", pt.Pass, pt.TestLoss, want)
		}
		differs = differs || pt.TestLoss != pt.TestLossAvg
	}
	if !differs {
		t.Error("the average and the iterate had the same test loss at every pass: the test cannot tell them apart")
	}
}
