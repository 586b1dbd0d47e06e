package solver

import (
	"fmt"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/run"
)

// wiring is what a run is connected to, as opposed to its method (config):
// none of it changes the trajectory of the iterates, none of it is saved
// in a checkpoint (run.Options without the execution, which is part of the
// plan).
type wiring struct {
	test      oracles.Problem
	progress  func(run.Point)
	workers   int
	trainLoss bool
}

// wire applies the options o (checked by run.Wiring) to s.
func (s *Solver) wire(o run.Options) error {
	if err := s.SetWorkers(o.Workers); err != nil {
		return err
	}
	if err := s.SetTest(o.Test); err != nil {
		return err
	}
	s.progress, s.trainLoss, s.late.on = o.Progress, o.TrainLoss, o.LateLosses
	return nil
}

// SetTest sets the problem whose task loss is recorded at every trace point
// (nil: none). For LP-hard it is a factor-graph problem, predicted by LP +
// rounding (factorgraph.Rounded) as Meshi et al. predict.
func (s *Solver) SetTest(test oracles.Problem) error {
	if test != nil && test.Dim() != s.d {
		return fmt.Errorf("solver: test problem has dimension %d, training problem %d", test.Dim(), s.d)
	}
	if test != nil && s.cfg.LPHard {
		var err error
		if test, err = roundedView(test); err != nil {
			return fmt.Errorf("solver: test problem: %w", err)
		}
	}
	s.test = test
	return nil
}

// Test returns the test problem (nil when none).
func (s *Solver) Test() oracles.Problem { return s.test }

// SetLateLosses turns run.Options.LateLosses on or off for the next Run
// calls.
func (s *Solver) SetLateLosses(on bool) { s.late.on = on }

// SetProgress sets the callback called after every trace point.
func (s *Solver) SetProgress(fn func(run.Point)) { s.progress = fn }

// SetWorkers sets the number of goroutines of the gap passes, evaluations
// and executions (0: GOMAXPROCS). Results do not depend on it.
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
