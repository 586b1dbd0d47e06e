package soft

import (
	"fmt"
	"runtime"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/run"
)

// An Option sets a part of a solver's wiring when it is built (New, Load).
// Each has a setter for later changes.
type Option func(*Solver) error

// WithTest records the task loss of the current weights on test at every
// trace point (e.g. the Hamming loss of LP plus rounding on the
// factorgraph.Rounded view of a test model, as Meshi et al. predict).
func WithTest(test oracles.Problem) Option { return func(s *Solver) error { return s.SetTest(test) } }

// WithProgress calls fn after every trace point.
func WithProgress(fn func(run.Point)) Option {
	return func(s *Solver) error { s.SetProgress(fn); return nil }
}

// WithWorkers sets the number of goroutines of the exact evaluations
// (default GOMAXPROCS). Results do not depend on it.
func WithWorkers(k int) Option { return func(s *Solver) error { return s.SetWorkers(k) } }

// SetTest sets the problem whose task loss is recorded at every trace point
// (nil: none); its dimension must be the model's.
func (s *Solver) SetTest(test oracles.Problem) error {
	if test == nil || test.Dim() == s.d {
		s.test = test
		return nil
	}
	return fmt.Errorf("soft: test problem has dimension %d, the model %d", test.Dim(), s.d)
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
