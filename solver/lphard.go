package solver

import (
	"fmt"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/run"
)

// LPHard is BCFW on the LP relaxation of a factor-graph model (Meshi,
// Srebro and Hazan 2015's "LP-hard" baseline): the example-level problem
// whose labelings are vertices of the local marginal polytope and whose
// max oracle solves the LP relaxation of loss-augmented MAP
// (factorgraph.Relaxed). Its knobs are BCFW's; its test losses and
// predictions are those of LP + rounding (factorgraph.Rounded), as Meshi et
// al. predict. New and Load take the factor-graph problem itself (yeast, a
// MULAN dataset) and make the relaxation.
type LPHard struct {
	BCFW
}

// Name returns "lp-hard".
func (LPHard) Name() string { return "lp-hard" }

// New returns the solver of m on the LP relaxation of p's factor-graph
// model (run.WithTest takes a factor-graph problem too).
func (m LPHard) New(p oracles.Problem, opts ...run.Option) (run.Solver, error) {
	rel, err := relaxedView(p)
	if err != nil {
		return nil, fmt.Errorf("lp-hard: %w", err)
	}
	return build(m, rel, opts)
}

// WithLambda returns m at lambda.
func (m LPHard) WithLambda(lambda float64) run.Method { m.Lambda = lambda; return m }

func (m LPHard) plan() (config, error) {
	cfg, err := m.BCFW.plan()
	cfg.LPHard = true
	return cfg, err
}

// relaxedView returns the LP relaxation of p's factor-graph model (p
// itself when it is one).
func relaxedView(p oracles.Problem) (*factorgraph.Relaxed, error) {
	if r, ok := p.(*factorgraph.Relaxed); ok {
		return r, nil
	}
	m, err := factorgraph.ModelOf(p)
	if err != nil {
		return nil, err
	}
	return factorgraph.NewRelaxed(m, 2)
}

// roundedView returns the LP + rounding view of p's factor-graph model (p
// itself when it is one), what LP-hard predicts with.
func roundedView(p oracles.Problem) (oracles.Problem, error) {
	if r, ok := p.(*factorgraph.Rounded); ok {
		return r, nil
	}
	m, err := factorgraph.ModelOf(p)
	if err != nil {
		return nil, err
	}
	return factorgraph.NewRounded(m)
}
