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
// pass reports a solver time far below the time its predictions took, and
// an evaluation time (EvalSeconds of its last point) that holds them.
func TestSolverTimeExcludesEvaluations(t *testing.T) {
	p := smallChain(20)
	test := slowPredict{oraclestest.Chain(oraclestest.ChainConfig{N: 20, MaxLen: 4, Labels: 3, Features: 4, Density: 0.7, Seed: 9}), 2 * time.Millisecond}
	for _, m := range []run.Method{
		FW{Lambda: 0.05, GapEvery: 1},
		CuttingPlane{Lambda: 0.05, GapEvery: 1},
		BCFW{Lambda: 0.05, GapEvery: 1},
		SSG{Lambda: 0.05, GapEvery: 1},
		FW{Lambda: 0.05, GapEvery: 1, TraceEvery: 1, Average: run.WeightedAverage},
	} {
		s, err := m.New(p, run.WithTest(test), run.WithWorkers(1))
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		if _, err := s.Run(context.Background(), run.Stop{Passes: 10}); err != nil {
			t.Fatal(err)
		}
		wall := time.Since(t0)
		points := len(s.Trace())
		predictions := time.Duration(points*test.Len()) * test.d // at least this long
		if wall < predictions {
			t.Fatalf("%s: %d points took %v, less than their predictions alone (%v): the test is broken", m.Name(), points, wall, predictions)
		}
		if s.Elapsed() > predictions/4 {
			t.Errorf("%s: solver time %v with %v of predictions in %d trace points: the evaluations are counted", m.Name(), s.Elapsed(), predictions, points)
		}
		eval := time.Duration(s.Trace()[points-1].EvalSeconds * float64(time.Second))
		if eval < predictions || eval+s.Elapsed() > wall {
			t.Errorf("%s: evaluation time %v, solver time %v, wall %v: the %v of predictions are not the evaluations' (or more is counted than ran)", m.Name(), eval, s.Elapsed(), wall, predictions)
		}
	}
}
