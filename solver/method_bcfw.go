package solver

import (
	"fmt"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/run"
)

// BCFW is block-coordinate Frank-Wolfe (Lacoste-Julien et al. 2013,
// Alg. 4) with the variants of Osokin et al. (2016): gap sampling (Alg. 2),
// pairwise and away steps (Alg. 3, 4), the gap-based cache (Alg. 5) and box
// constraints (App. H, Alg. 9). Its zero value (with a Lambda) is the
// papers' baseline: uniform sampling, Frank-Wolfe steps with line search,
// no cache, no average, an exact gap pass every 10 passes. Recommended
// returns what we recommend for training.
type BCFW struct {
	// Lambda is the regularization parameter (> 0).
	Lambda float64 `json:"lambda"`
	// Sampling is run.Uniform (zero), run.Permutation, run.GapSampling or
	// run.GapSamplingInOrder.
	Sampling run.Sampling `json:"sampling"`
	// Step is FWStep (zero: Frank-Wolfe with line search), FWPredefined,
	// Pairwise or Away.
	Step Step `json:"step"`
	// Cache, when set, is the gap-based cache of oracle answers; nil: none.
	Cache *Cache `json:"cache,omitempty"`
	// Average is the average of the iterates the trace also reports
	// (primal_avg, dual_avg, gap_avg): run.NoAverage (zero),
	// run.WeightedAverage (BCFW-wavg), run.SuffixAverage (BCFW-tavg) or
	// run.UniformAverage (Lacoste-Julien et al. 2013, App. C, F). An
	// average of dual-feasible points is dual feasible, so its dual and
	// gap are exact.
	Average run.AverageKind `json:"average"`
	// Box bounds w coordinate-wise (nil: none); a problem's own bounds
	// (oracles.Bounded) are applied as well.
	Box *Box `json:"box,omitempty"`
	// GapEvery is the number of passes (block steps / n) between two
	// exact duality-gap passes; zero means 10 and a negative value never.
	// The gap pass is part of the algorithm (Osokin et al. 2016, App. D):
	// it refreshes the stale block gaps (gap sampling), the global gap
	// (cache), certifies the gap for stopping and is recorded in the
	// trace; its n oracle calls are counted (its time is not, as for every
	// exact evaluation).
	GapEvery float64 `json:"gap_every,omitempty"`
	// TraceEvery adds observe-only evaluations every TraceEvery passes
	// (zero: none), the "offline" curves of the papers' figures. They never
	// change the iterate, the algorithm's state nor its counters; being
	// exact, they do certify the gap, so Stop.Gap may end a run at one.
	TraceEvery float64 `json:"trace_every,omitempty"`
	// Seed seeds the random sampling; runs with equal seeds are identical.
	Seed uint64 `json:"seed"`
	// Storage selects the representation of the block vectors of
	// Frank-Wolfe steps (zero: AutoStorage); runs with dense and sparse
	// storage follow the same trajectory up to rounding.
	Storage Storage `json:"storage,omitempty"`
}

// Name returns "bcfw".
func (BCFW) Name() string { return "bcfw" }

// New returns the solver of m on p at w = 0, where the dual mass of every
// block sits on its ground-truth labeling. opts wire it (run.WithTest,
// run.WithExecution for a mini-batch or an asynchronous execution, ...).
func (m BCFW) New(p oracles.Problem, opts ...run.Option) (run.Solver, error) {
	return build(m, p, opts)
}

// WithLambda returns m at lambda.
func (m BCFW) WithLambda(lambda float64) run.Method { m.Lambda = lambda; return m }

// plan compiles m to the engine's plan.
func (m BCFW) plan() (config, error) {
	if err := checkSchedule(m.GapEvery, m.TraceEvery); err != nil {
		return config{}, err
	}
	cfg := config{Lambda: m.Lambda, Algorithm: run.BCFW, Sampling: m.Sampling, Step: m.Step, Box: m.Box,
		GapEvery: never(m.GapEvery), TraceEvery: m.TraceEvery, Seed: m.Seed, Storage: m.Storage}
	switch m.Sampling {
	case run.Uniform, run.Permutation, run.GapSampling:
	case run.GapSamplingInOrder:
		cfg.Sampling, cfg.UnvisitedInOrder = run.GapSampling, true
	default:
		return config{}, fmt.Errorf("sampling %v is not one of bcfw's (uniform, perm, gap, gap-in-order)", m.Sampling)
	}
	switch m.Step {
	case FWStep, Pairwise, Away:
	case FWPredefined:
		cfg.Step, cfg.StepSize = FWStep, run.Predefined
	default:
		return config{}, fmt.Errorf("unknown step %d", int(m.Step))
	}
	if m.Cache != nil {
		cfg.Cache = cacheRule{Enabled: true, Cache: *m.Cache}
	}
	if err := setAverage(&cfg, m.Average); err != nil {
		return config{}, err
	}
	if m.Storage < AutoStorage || m.Storage > SparseBlocks {
		return config{}, fmt.Errorf("unknown block storage %d", int(m.Storage))
	}
	return cfg, nil
}

// setAverage puts the average kind k into the plan.
func setAverage(cfg *config, k run.AverageKind) error {
	if k < run.NoAverage || k > run.UniformAverage {
		return fmt.Errorf("unknown average %d", int(k))
	}
	cfg.Averaging, cfg.AverageKind = k != run.NoAverage, k
	return nil
}

// Recommended returns the BCFW we recommend for training, at lambda:
//
//   - gap sampling (Osokin et al. 2016, Alg. 2): blocks with large gaps are
//     visited more often, which pays when the block gaps are non-uniform,
//     as they are on real data;
//   - pairwise steps (BCPFW, Alg. 3): mass moves from the worst corner of
//     the active set to the new one, so the iterate does not zig-zag
//     towards a face of the polytope (linear convergence where BCFW is
//     sublinear);
//   - the gap-based cache (Alg. 5, F = 0.25, nu = 0.01, 10 corners a
//     block): a block step reuses a stored corner when it is good enough,
//     skipping the max oracle;
//   - an exact gap pass every 10 passes, as in the paper's experiments
//     (it refreshes the stale gaps that gap sampling and the cache rely on).
//
// The zero BCFW remains the baseline of Lacoste-Julien et al. (2013) that
// the papers' figures compare against. docs/performance.md gives the
// passes and time each takes to a certified gap on USPS and OCR.
func Recommended(lambda float64) BCFW {
	return BCFW{Lambda: lambda, Sampling: run.GapSampling, Step: Pairwise, Cache: &Cache{F: 0.25, Nu: 0.01, MaxSize: 10}, GapEvery: 10}
}
