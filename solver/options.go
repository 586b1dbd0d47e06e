package solver

import (
	"errors"
	"fmt"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/run"
)

// wiring is what a run is connected to, as opposed to its hyperparameters
// (Config): none of it changes the trajectory of the iterates, none of it is
// saved in a checkpoint.
type wiring struct {
	test      oracles.Problem
	progress  func(run.Point)
	workers   int
	trainLoss bool
	storage   Storage
}

// An Option sets a part of a solver's wiring when it is built (New, Load).
// Each has a setter for later changes.
type Option func(*Solver) error

// WithTest records the task loss on test at every trace point.
func WithTest(test oracles.Problem) Option { return func(s *Solver) error { return s.SetTest(test) } }

// WithProgress calls fn after every trace point.
func WithProgress(fn func(run.Point)) Option {
	return func(s *Solver) error { s.SetProgress(fn); return nil }
}

// WithWorkers sets the number of goroutines of the exact gap passes and
// batch FW iterations (default GOMAXPROCS). Results do not depend on it.
func WithWorkers(k int) Option { return func(s *Solver) error { return s.SetWorkers(k) } }

// WithTrainLoss records the task loss on the training set at every trace
// point (one extra prediction pass, excluded from the solver time).
func WithTrainLoss(on bool) Option { return func(s *Solver) error { s.SetTrainLoss(on); return nil } }

// WithLateLosses lets a run whose steps are sequential compute the task
// losses of a trace point (WithTest, WithTrainLoss) on a goroutine of
// their own while the steps that follow go on, when there are two workers
// or more: the trace is the same, bit for bit, but the Progress callback
// of a point comes when its losses are done, the solver some steps further
// on (so it must not read the solver's state: weights, counters); Run
// returns once the last point is complete. The package documentation
// ("Every core") gives what it saves on the horses.
func WithLateLosses(on bool) Option { return func(s *Solver) error { s.SetLateLosses(on); return nil } }

// WithStorage selects the representation of the per-block vectors of BCFW
// with Frank-Wolfe steps (default AutoStorage). Runs with dense and sparse
// storage follow the same trajectory up to rounding.
func WithStorage(st Storage) Option {
	return func(s *Solver) error {
		if st < AutoStorage || st > SparseBlocks {
			return fmt.Errorf("solver: unknown block storage %d", int(st))
		}
		if s.store != nil {
			return errors.New("solver: the block storage is chosen when the solver is built")
		}
		s.storage = st
		return nil
	}
}

// SetTest sets the problem whose task loss is recorded at every trace point
// (nil: none).
func (s *Solver) SetTest(test oracles.Problem) error {
	if test != nil && test.Dim() != s.d {
		return fmt.Errorf("solver: test problem has dimension %d, training problem %d", test.Dim(), s.d)
	}
	s.test = test
	return nil
}

// Test returns the test problem (nil when none).
func (s *Solver) Test() oracles.Problem { return s.test }

// SetLateLosses turns WithLateLosses on or off for the next Run calls.
func (s *Solver) SetLateLosses(on bool) { s.late.on = on }

// SetProgress sets the callback called after every trace point.
func (s *Solver) SetProgress(fn func(run.Point)) { s.progress = fn }

// SetWorkers sets the number of goroutines of the gap passes (0: GOMAXPROCS).
func (s *Solver) SetWorkers(k int) error {
	if k < 0 {
		return fmt.Errorf("solver: workers must be >= 0, got %d", k)
	}
	if k == 0 {
		k = defaultWorkers()
	}
	s.workers = k
	s.work.workers = make([]workerScratch, k)
	return nil
}

// SetTrainLoss turns the training-set task loss of trace points on or off.
func (s *Solver) SetTrainLoss(on bool) { s.trainLoss = on }

// Storage returns the representation of the per-block vectors in use
// (AutoStorage resolved), or AutoStorage when the solver keeps none (FW,
// SSG, explicit duals).
func (s *Solver) Storage() Storage {
	if s.store == nil {
		return AutoStorage
	}
	return s.store.kind()
}
