package kernel

import (
	"errors"
	"fmt"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// config is the plan of a kernelized run, what the method types (BCFW, FW,
// Exact) compile to; its fields mean what the methods' of the same names
// do.
type config struct {
	Lambda     float64
	Kernel     Kernel
	Algorithm  run.Algorithm
	Sampling   run.Sampling
	StepSize   run.StepSize
	Averaging  bool
	GapEvery   float64
	TraceEvery float64
	Seed       uint64
	Exact      bool
	Shrinking  bool
	// CacheBytes and CacheFloat32: the kernel row cache of the BCFW steps.
	CacheBytes   int64
	CacheFloat32 bool
}

// withDefaults returns cfg with its zero values replaced by the defaults.
func (cfg config) withDefaults() config {
	if cfg.GapEvery == 0 {
		cfg.GapEvery = 10
	}
	return cfg
}

func (cfg *config) validate() error {
	if err := core.ValidateSchedule(cfg.Lambda, cfg.GapEvery, cfg.TraceEvery); err != nil {
		return fmt.Errorf("kernel: %w", err)
	}
	if err := cfg.Kernel.Validate(); err != nil {
		return err
	}
	if cfg.Algorithm != run.BCFW && cfg.Algorithm != run.FW {
		return fmt.Errorf("kernel: the kernelized solver runs bcfw or fw, not %v", cfg.Algorithm)
	}
	if err := core.ValidateExampleSampling(cfg.Sampling); err != nil {
		return fmt.Errorf("kernel: %w", err)
	}
	if cfg.Algorithm == run.FW && cfg.Sampling != run.Uniform {
		return fmt.Errorf("kernel: sampling %v needs bcfw", cfg.Sampling)
	}
	if err := core.ValidateStepSize(cfg.StepSize); err != nil {
		return fmt.Errorf("kernel: %w", err)
	}
	if cfg.CacheBytes < 0 {
		return fmt.Errorf("kernel: the row cache must be >= 0 bytes (0: none), got %d", cfg.CacheBytes)
	}
	return cfg.validateExact()
}

// wiring is what a run is connected to; none of it changes the iterates,
// none of it is saved.
type wiring struct {
	test      *inputs
	testSet   *oracles.Multiclass // what test was made from
	progress  func(run.Point)
	workers   int
	trainLoss bool
}

// wire applies the options o to s: the test problem must be multiclass,
// and the steps are sequential (the workers compute kernel values).
func (s *Solver) wire(o run.Options) error {
	if x := o.Execution; x != nil && x.Name() != "sequential" {
		return fmt.Errorf("kernel cannot be run by the %s execution: its workers compute the kernel rows of the steps ahead (give workers instead)", x.Name())
	}
	if err := s.SetWorkers(o.Workers); err != nil {
		return err
	}
	if o.Test != nil {
		mc, ok := o.Test.(*oracles.Multiclass)
		if !ok {
			return fmt.Errorf("kernel: the test problem must be multiclass data (usps, svmlight, csv), not %s", oracles.KindOf(o.Test))
		}
		if err := s.SetTest(mc); err != nil {
			return err
		}
	}
	s.progress, s.trainLoss = o.Progress, o.TrainLoss
	s.cache = newRowCache(s.n, s.cfg.CacheBytes, s.cfg.CacheFloat32)
	return nil
}

// SetTest sets the test set (nil: none).
func (s *Solver) SetTest(test *oracles.Multiclass) error {
	if test == nil {
		s.test, s.testSet = nil, nil
		return nil
	}
	if test.NumFeatures() != s.p.NumFeatures() || test.NumClasses() != s.p.NumClasses() {
		return fmt.Errorf("kernel: test set has %d features and %d classes, training set %d and %d", test.NumFeatures(), test.NumClasses(), s.p.NumFeatures(), s.p.NumClasses())
	}
	s.test, s.testSet = newInputs(test), test
	return nil
}

// SetProgress sets the callback called after every trace point.
func (s *Solver) SetProgress(fn func(run.Point)) { s.progress = fn }

// SetWorkers sets the goroutines that compute kernel values (0:
// GOMAXPROCS; see run.WithWorkers).
func (s *Solver) SetWorkers(k int) error {
	if k < 0 {
		return errors.New("kernel: workers must be >= 0")
	}
	if k == 0 {
		k = defaultWorkers()
	}
	s.workers = k
	return nil
}
