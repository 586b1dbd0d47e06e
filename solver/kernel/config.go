package kernel

import (
	"errors"
	"fmt"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// Config holds the hyperparameters of a kernelized solver: plain data, what
// a checkpoint keeps. Its fields mean what solver.Config's of the same names
// do; the zero value of every field but Lambda is a sensible default (BCFW
// with uniform sampling, line search, a gap pass every 10 passes, the
// linear kernel).
type Config struct {
	// Lambda is the regularization parameter (> 0).
	Lambda float64
	// Kernel is the kernel on inputs (default linear).
	Kernel Kernel
	// Algorithm is run.BCFW (default, Alg. B.1) or run.FW (the
	// kernelized Alg. 2).
	Algorithm run.Algorithm
	// Sampling is run.Uniform (default), Permutation or GapSampling
	// (BCFW only).
	Sampling run.Sampling
	// StepSize is run.LineSearch (default) or run.Predefined.
	StepSize run.StepSize
	// Averaging maintains the weighted average of the dual iterates (the
	// optional line of Alg. B.1) and reports it in the trace.
	Averaging bool
	// GapEvery is the number of passes between exact gap passes; zero
	// means 10, +Inf never.
	GapEvery float64
	// TraceEvery adds observe-only evaluations every TraceEvery passes.
	TraceEvery float64
	// Seed seeds the sampling.
	Seed uint64
	// Exact replaces the Frank-Wolfe block step by the exact minimization
	// over the block's simplex (exactStep; BCFW with line search only).
	Exact bool
	// Shrinking skips the blocks an exact step found settled until the
	// next gap pass (Exact with permutation sampling only; see exactStep).
	Shrinking bool
}

// WithDefaults returns cfg with its zero values replaced by the defaults.
func (cfg Config) WithDefaults() Config {
	if cfg.GapEvery == 0 {
		cfg.GapEvery = 10
	}
	return cfg
}

func (cfg *Config) validate() error {
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
	return cfg.validateExact()
}

// wiring is what a run is connected to; none of it changes the iterates,
// none of it is saved.
type wiring struct {
	test      *inputs
	progress  func(run.Point)
	workers   int
	trainLoss bool
	budget    int64 // kernel cache, bytes
}

// An Option wires a solver when it is built (New, Load).
type Option func(*Solver) error

// WithTest records the test error (mean 0-1 loss) of the kernel expansion
// on test at every trace point.
func WithTest(test *oracles.Multiclass) Option {
	return func(s *Solver) error { return s.SetTest(test) }
}

// WithProgress calls fn after every trace point.
func WithProgress(fn func(run.Point)) Option {
	return func(s *Solver) error { s.SetProgress(fn); return nil }
}

// WithWorkers sets the goroutines that compute kernel values (0:
// GOMAXPROCS): the rows of the BCFW steps (see the package documentation,
// "Parallel steps"),
// the evaluation passes and batch FW iterations. Results do not depend on
// it, bit for bit.
func WithWorkers(k int) Option { return func(s *Solver) error { return s.SetWorkers(k) } }

// WithTrainLoss records the training error at every trace point (free: it
// comes with the evaluation pass).
func WithTrainLoss(on bool) Option { return func(s *Solver) error { s.trainLoss = on; return nil } }

// WithCache keeps rows of the training kernel matrix within budget bytes
// for the BCFW steps (0: no cache; rows of n float64 each, so USPS's 7,291
// rows take 425 MB in all), filled and read by the BCFW steps (the
// evaluation passes and batch FW compute their values as kernel blocks,
// see the package documentation). A step whose row the cache holds reads
// it and computes only the values it lacks; the other steps compute their
// rows as kernel blocks, so a cache pays when the same rows come back
// often (many passes, shrinking's later sweeps over few active blocks;
// docs/performance.md, "The kernel row", gives a measurement on USPS).
// The cache never changes a result; CacheStats reports its hit rate.
func WithCache(budget int64) Option {
	return func(s *Solver) error {
		if budget < 0 {
			return fmt.Errorf("kernel: cache budget must be >= 0, got %d", budget)
		}
		s.budget = budget
		s.cache = newRowCache(s.n, budget, false)
		return nil
	}
}

// WithCacheFloat32 is WithCache with the rows kept as float32: twice the
// rows in the budget (USPS's 7,291 rows take 213 MB in all), at the price
// of kernel values rounded to float32 (relative error 6e-8) wherever a step
// reads them from the cache, so that, unlike WithCache, results depend on
// the cache (the rounding is far below the accuracy the solver is run to).
func WithCacheFloat32(budget int64) Option {
	return func(s *Solver) error {
		if budget < 0 {
			return fmt.Errorf("kernel: cache budget must be >= 0, got %d", budget)
		}
		s.budget = budget
		s.cache = newRowCache(s.n, budget, true)
		return nil
	}
}

// SetTest sets the test set (nil: none).
func (s *Solver) SetTest(test *oracles.Multiclass) error {
	if test == nil {
		s.test = nil
		return nil
	}
	if test.NumFeatures() != s.p.NumFeatures() || test.NumClasses() != s.p.NumClasses() {
		return fmt.Errorf("kernel: test set has %d features and %d classes, training set %d and %d", test.NumFeatures(), test.NumClasses(), s.p.NumFeatures(), s.p.NumClasses())
	}
	s.test = newInputs(test)
	return nil
}

// SetProgress sets the callback called after every trace point.
func (s *Solver) SetProgress(fn func(run.Point)) { s.progress = fn }

// SetWorkers sets the goroutines that compute kernel values (0:
// GOMAXPROCS; see WithWorkers).
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
