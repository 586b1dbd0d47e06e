package soft

import (
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// config is the plan of a soft run, what BCFW compiles to.
type config struct {
	// Lambda is the regularization parameter (> 0) of Meshi's eq. 2.
	Lambda float64
	// Rho is the penalty on the violation of the agreement constraints
	// (> 0, finite; Meshi eq. 5): the smaller, the closer the soft optimum
	// g*_rho to the hard one g*, and the slower the convergence.
	Rho float64
	// Sampling is run.Uniform (default: over the blocks, Meshi Alg. 1,
	// line 3, as its analysis assumes), run.Permutation (a fresh random
	// order every pass), run.GapSampling (proportional to the last block
	// gap, Osokin et al. 2016, Alg. 2, unvisited blocks first) or
	// run.ExamplePermutation (a fresh random order every pass that keeps
	// each example's blocks together; see "Sampling" in the package
	// documentation).
	Sampling run.Sampling
	// GapEvery is the number of passes (block steps / Blocks) between two
	// exact gap passes; zero means 10 and +Inf never. A gap pass maximizes
	// every block once: it refreshes the block gaps of gap sampling,
	// re-anchors w and delta on mu, certifies the gap for stopping and is
	// recorded in the trace; it counts as a pass of oracle calls (its time
	// is not counted, as for every exact evaluation).
	GapEvery float64
	// TraceEvery adds observe-only evaluations every TraceEvery passes
	// (zero: none); they never change the run.
	TraceEvery float64
	// Seed seeds the random sampling; runs with equal seeds are identical.
	Seed uint64
}

// withDefaults returns cfg with its zero values replaced by the defaults
// (GapEvery 10).
func (cfg config) withDefaults() config {
	if cfg.GapEvery == 0 {
		cfg.GapEvery = 10
	}
	return cfg
}

// validate checks cfg (after defaults): lambda and rho positive and
// finite, a known sampling, GapEvery positive, TraceEvery finite and >= 0.
func (cfg config) validate() error {
	if err := core.ValidateSchedule(cfg.Lambda, cfg.GapEvery, cfg.TraceEvery); err != nil {
		return fmt.Errorf("soft: %w", err)
	}
	if !(cfg.Rho > 0) || math.IsInf(cfg.Rho, 1) {
		return fmt.Errorf("soft: rho must be a positive finite number (the penalty of the soft constraints, Meshi eq. 5), got %v", cfg.Rho)
	}
	switch cfg.Sampling {
	case run.Uniform, run.Permutation, run.GapSampling, run.ExamplePermutation:
	default:
		return fmt.Errorf("soft: sampling %v is not one of soft's (uniform, perm, gap, example-perm)", cfg.Sampling)
	}
	return nil
}
