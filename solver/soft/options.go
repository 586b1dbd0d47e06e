package soft

import (
	"fmt"

	"runtime"

	"github.com/fwstruct/fwstruct/factorgraph"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/run"
)

// SetTest sets the problem whose task loss is recorded at every trace point
// (nil: none); its dimension must be the model's. Factor-graph data is
// predicted by LP + rounding (its factorgraph.Rounded view), as Meshi et
// al. predict.
func (s *Solver) SetTest(test oracles.Problem) error {
	if test == nil {
		s.test = nil
		return nil
	}
	if test.Dim() != s.d {
		return fmt.Errorf("soft: test problem has dimension %d, the model %d", test.Dim(), s.d)
	}
	if _, err := factorgraph.ModelOf(test); err == nil {
		r, err := roundedView(test)
		if err != nil {
			return fmt.Errorf("soft: test problem: %w", err)
		}
		test = r
	}
	s.test = test
	return nil
}

// Test returns the test problem (nil when none).
func (s *Solver) Test() oracles.Problem { return s.test }

// SetProgress sets the callback called after every trace point.
func (s *Solver) SetProgress(fn func(run.Point)) { s.progress = fn }

// SetWorkers sets the number of goroutines of the exact evaluations (0:
// GOMAXPROCS).
func (s *Solver) SetWorkers(k int) error {
	switch {
	case k < 0:
		return fmt.Errorf("soft: workers must be >= 0, got %d", k)
	case k == 0:
		k = runtime.GOMAXPROCS(0)
	}
	s.workers = k
	s.work.grow(k)
	return nil
}
