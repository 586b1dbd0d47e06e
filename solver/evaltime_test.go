package solver

import (
	"context"
	"testing"
	"time"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
	"github.com/fwstruct/fwstruct/solver/run"
)

// slowPredict makes every prediction of a test problem take d.
type slowPredict struct {
	oracles.Problem
	d time.Duration
}

func (s slowPredict) Predict(i int, w []float64, dst []int32) []int32 {
	time.Sleep(s.d)
	return s.Problem.Predict(i, w, dst)
}

// TestSolverTimeExcludesEvaluations: the test losses of the trace points
// are evaluation work, never solver time (issue 35, item 15: batch FW
// counted them): every method whose trace records a test loss at every
// pass reports about the solver time of the same run with instant test
// predictions, not that plus the time its slow predictions took, and an
// evaluation time (EvalSeconds of its last point) that holds them.
func TestSolverTimeExcludesEvaluations(t *testing.T) {
	p := smallChain(20)
	fast := oraclestest.Chain(oraclestest.ChainConfig{N: 20, MaxLen: 4, Labels: 3, Features: 4, Density: 0.7, Seed: 9})
	slow := slowPredict{fast, 2 * time.Millisecond}
	for _, m := range []run.Method{
		FW{Lambda: 0.05, GapEvery: 1},
		CuttingPlane{Lambda: 0.05, GapEvery: 1},
		BCFW{Lambda: 0.05, GapEvery: 1},
		SSG{Lambda: 0.05, GapEvery: 1},
		FW{Lambda: 0.05, GapEvery: 1, TraceEvery: 1, Average: run.WeightedAverage},
	} {
		train := func(test oracles.Problem) (run.Solver, time.Duration) {
			s, err := m.New(p, run.WithTest(test), run.WithWorkers(1))
			if err != nil {
				t.Fatal(err)
			}
			t0 := time.Now()
			if _, err := s.Run(context.Background(), run.Stop{Passes: 10}); err != nil {
				t.Fatal(err)
			}
			return s, time.Since(t0)
		}
		base, _ := train(fast)
		s, wall := train(slow)
		points := len(s.Trace())
		predictions := time.Duration(points*slow.Len()) * slow.d // at least this long
		if wall < predictions {
			t.Fatalf("%s: %d points took %v, less than their predictions alone (%v): the test is broken", m.Name(), points, wall, predictions)
		}
		if s.Elapsed() > base.Elapsed()+predictions/2 {
			t.Errorf("%s: solver time %v with %v of predictions in %d trace points, %v with instant ones: the evaluations are counted", m.Name(), s.Elapsed(), predictions, points, base.Elapsed())
		}
		eval := time.Duration(s.Trace()[points-1].EvalSeconds * float64(time.Second))
		if slack := wall/100 + 2*time.Millisecond; eval < predictions || eval+s.Elapsed() > wall+slack {
			t.Errorf("%s: evaluation time %v, solver time %v, wall %v: the %v of predictions are not the evaluations' (or more is counted than ran)", m.Name(), eval, s.Elapsed(), wall, predictions)
		}
	}
}
