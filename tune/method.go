package tune

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/auto"
	"github.com/fwstruct/fwstruct/solver/run"
)

// Second hyperparameters: a method that has one offers a copy of itself at
// another value (soft.BCFW's penalty rho, the kernel methods' gamma).
type (
	withRho   interface{ WithRho(rho float64) run.Method }
	withGamma interface {
		WithGamma(gamma float64) run.Method
	}
)

// warmStarted names the methods Run walks the lambda grid with warm
// starts: those of BCFW's block steps in package solver, whose SetLambda to
// a smaller lambda keeps w and rescales the dual variables and the block
// gaps by Proposition 1 of Osokin et al. (2016), without a gap pass. The
// other methods start every value cold.
var warmStarted = []string{"bcfw", "mp-bcfw", "exact", "lp-hard"}

// grid is the base method of Run and what it searches besides lambda.
type grid struct {
	base run.Method
	// aux names the second hyperparameter searched ("rho", "gamma"), ""
	// for none; auxes are its values (one 0 for none).
	aux   string
	auxes []float64
}

// newGrid checks the base method against the grids of cfg.
func newGrid(base run.Method, cfg Config) (*grid, error) {
	if cfg.Rhos != nil && cfg.Gammas != nil {
		return nil, errors.New("tune: a rho grid and a gamma grid: no method has both")
	}
	g := &grid{base: base, auxes: []float64{0}}
	switch {
	case cfg.Rhos != nil:
		if _, ok := base.(withRho); !ok {
			return nil, fmt.Errorf("tune: a rho grid applies to the soft solver only, not to %s", base.Name())
		}
		g.aux, g.auxes = "rho", cfg.Rhos
	case cfg.Gammas != nil:
		wg, ok := base.(withGamma)
		if !ok || run.Same(wg.WithGamma(1), wg.WithGamma(2)) { // the linear kernel has no gamma
			return nil, fmt.Errorf("tune: a gamma grid applies to the rbf and poly kernels only, not to %s", base.Name())
		}
		g.aux, g.auxes = "gamma", cfg.Gammas
	}
	if len(g.auxes) == 0 {
		return nil, fmt.Errorf("tune: an empty %s grid", g.aux)
	}
	for _, a := range g.auxes {
		if g.aux != "" && (!(a > 0) || math.IsInf(a, 1)) {
			return nil, fmt.Errorf("tune: %s %v, want positive and finite values", g.aux, a)
		}
	}
	return g, nil
}

// resolveAuto returns the method auto chooses for the training problem
// when base is auto (nil is auto too), once for the whole grid, so that
// every value and fold trains the same method (and warm starts apply);
// with a rho grid auto trains soft constraints. Another base is returned
// as it is.
func resolveAuto(train oracles.Problem, base run.Method, cfg Config) (run.Method, error) {
	if base == nil {
		base = auto.Method{}
	}
	a, ok := base.(auto.Method)
	if !ok {
		return base, nil
	}
	if len(cfg.Rhos) > 0 && a.Rho == 0 {
		a.Rho = cfg.Rhos[0]
	}
	lambda := a.Lambda
	if lambda == 0 {
		lambda = 1 // the grid sets it; auto's choice does not depend on it
	}
	c, err := auto.Choose(train, a.WithLambda(lambda).(auto.Method), cfg.Workers, nil)
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	return c.Method, nil
}

// method returns the base method at lambda and aux.
func (g *grid) method(lambda, aux float64) run.Method {
	m := g.base
	switch g.aux {
	case "rho":
		m = m.(withRho).WithRho(aux)
	case "gamma":
		m = m.(withGamma).WithGamma(aux)
	}
	return m.WithLambda(lambda)
}

// warm reports whether Run walks the lambda grid of g warm-started.
func (g *grid) warm() bool { return slices.Contains(warmStarted, g.base.Name()) }

// describe names a value of the grid in messages.
func (g *grid) describe(lambda, aux float64) string {
	if g.aux == "" {
		return fmt.Sprintf("lambda %g", lambda)
	}
	return fmt.Sprintf("lambda %g, %s %g", lambda, g.aux, aux)
}

// score returns the metric of s's model on held, predicted as the method
// predicts (LP + rounding for the soft solver and LP-hard on factor-graph
// data).
func score(s run.Solver, held oracles.Problem, metric string) (float64, error) {
	pred, p, err := s.Predict(held)
	if err != nil {
		return 0, fmt.Errorf("tune: %w", err)
	}
	return metricOf(p, pred, metric)
}
