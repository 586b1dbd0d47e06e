package tune

import (
	"errors"
	"fmt"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/kernel"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/soft"
)

// family is what Run needs of a solver family: building a solver at the
// values of the grid, moving one to a smaller lambda (warm start), and
// predicting held-out examples with its model.
type family struct {
	// aux names the second hyperparameter searched ("rho", "gamma"), ""
	// for none; auxOf is its value in the base configuration.
	aux   string
	auxOf float64
	// build returns a solver on train at lambda and aux.
	build func(train oracles.Problem, lambda, aux float64, workers int) (run.Solver, error)
	// config returns the family's configuration at lambda and aux.
	config func(lambda, aux float64) any
	// setLambda moves s to a smaller lambda keeping its iterate (nil:
	// the family cannot).
	setLambda func(s run.Solver, lambda float64) error
	// predict returns the predictions of s's model on every example of
	// held, and the problem whose metrics score them.
	predict func(s run.Solver, held oracles.Problem) ([][]int32, oracles.Problem, error)
}

// familyOf returns the family of a base configuration: a solver.Config, a
// soft.Config or a kernel.Config.
func familyOf(base any) (*family, error) {
	switch cfg := base.(type) {
	case solver.Config:
		return primalFamily(cfg), nil
	case soft.Config:
		return softFamily(cfg), nil
	case kernel.Config:
		return kernelFamily(cfg), nil
	case nil:
		return nil, errors.New("tune: no solver configuration (want a solver.Config, soft.Config or kernel.Config)")
	}
	return nil, fmt.Errorf("tune: %T is not a solver configuration (want a solver.Config, soft.Config or kernel.Config)", base)
}

// primalFamily is the example-level solvers (BCFW and its variants, FW,
// SSG, cutting plane); BCFW runs are warm-started along the lambda grid
// (solver.Solver.SetLambda, Osokin et al. 2016, Prop. 1).
func primalFamily(base solver.Config) *family {
	f := &family{
		build: func(train oracles.Problem, lambda, _ float64, workers int) (run.Solver, error) {
			cfg := base
			cfg.Lambda = lambda
			return solver.New(train, cfg, solver.WithWorkers(workers))
		},
		config: func(lambda, _ float64) any {
			cfg := base
			cfg.Lambda = lambda
			return cfg
		},
		predict: func(s run.Solver, held oracles.Problem) ([][]int32, oracles.Problem, error) {
			return predictAll(held, s.(*solver.Solver).Weights()), held, nil
		},
	}
	if base.Algorithm == run.BCFW {
		f.setLambda = func(s run.Solver, lambda float64) error { return s.(*solver.Solver).SetLambda(lambda) }
	}
	return f
}

// softFamily is soft BCFW (Meshi et al. 2015) on factor-graph data, its
// second hyperparameter rho; held-out examples are predicted by LP and
// rounding, as Meshi et al. predict.
func softFamily(base soft.Config) *family {
	return &family{
		aux: "rho", auxOf: base.Rho,
		build: func(train oracles.Problem, lambda, rho float64, workers int) (run.Solver, error) {
			m, err := factorModel(train)
			if err != nil {
				return nil, err
			}
			cfg := base
			cfg.Lambda, cfg.Rho = lambda, rho
			return soft.New(m, cfg, soft.WithWorkers(workers))
		},
		config: func(lambda, rho float64) any {
			cfg := base
			cfg.Lambda, cfg.Rho = lambda, rho
			return cfg
		},
		predict: func(s run.Solver, held oracles.Problem) ([][]int32, oracles.Problem, error) {
			m, err := factorModel(held)
			if err != nil {
				return nil, nil, err
			}
			r, err := factorgraph.NewRounded(m)
			if err != nil {
				return nil, nil, err
			}
			return predictAll(r, s.(*soft.Solver).Weights()), r, nil
		},
	}
}

// factorModel returns the factor-graph model behind a problem of package
// factorgraph (MULAN data).
func factorModel(p oracles.Problem) (*factorgraph.Model, error) {
	if v, ok := p.(interface{ Model() *factorgraph.Model }); ok {
		return v.Model(), nil
	}
	return nil, fmt.Errorf("tune: the soft solver needs factor-graph data (yeast or a MULAN dataset), not %T", p)
}

// kernelFamily is the kernelized solver on multiclass data, its second
// hyperparameter the kernel's gamma (rbf and poly).
func kernelFamily(base kernel.Config) *family {
	f := &family{
		build: func(train oracles.Problem, lambda, gamma float64, workers int) (run.Solver, error) {
			mc, ok := train.(*oracles.Multiclass)
			if !ok {
				return nil, fmt.Errorf("tune: the kernelized solver needs multiclass data (usps, svmlight, csv), not %T", train)
			}
			return kernel.New(mc, withGamma(base, lambda, gamma), kernel.WithWorkers(workers))
		},
		config: func(lambda, gamma float64) any { return withGamma(base, lambda, gamma) },
		predict: func(s run.Solver, held oracles.Problem) ([][]int32, oracles.Problem, error) {
			mc, ok := held.(*oracles.Multiclass)
			if !ok {
				return nil, nil, fmt.Errorf("tune: the kernelized solver needs multiclass data, not %T", held)
			}
			m := s.(*kernel.Solver).Model()
			pred := make([][]int32, mc.Len())
			for i := range pred {
				pred[i] = []int32{m.Predict(mc.Input(i))}
			}
			return pred, mc, nil
		},
	}
	if base.Kernel.Kind != kernel.Linear {
		f.aux, f.auxOf = "gamma", base.Kernel.Gamma
	}
	return f
}

// withGamma returns the kernel configuration at lambda and gamma (gamma
// ignored by the linear kernel).
func withGamma(base kernel.Config, lambda, gamma float64) kernel.Config {
	cfg := base
	cfg.Lambda = lambda
	if cfg.Kernel.Kind != kernel.Linear {
		cfg.Kernel.Gamma = gamma
	}
	return cfg
}
