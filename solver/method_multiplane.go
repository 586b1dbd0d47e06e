package solver

import (
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/run"
)

// MultiPlane is multi-plane BCFW (MP-BCFW; Shah, Kolmogorov and Lampert
// 2015, Alg. 3). Every block keeps a working set W_i of planes (corners)
// returned by its oracle; an outer iteration is one exact pass (a BCFW step
// with the max oracle on every block, in a fresh random order, whose plane
// joins W_i) followed by up to M approximate passes (BCFW steps with the
// best plane of W_i, H~_i(w) = max over W_i, and no oracle call), as many
// as the pass rule allows (Sec. 3.4). A plane is used when an exact or an
// approximate oracle call returns it; when |W_i| > N the plane unused for
// longest is dropped, and after every outer iteration the planes unused
// during its last T outer iterations are.
//
// Only exact steps count as oracle calls and passes, and the evaluation
// schedule (GapEvery, TraceEvery) counts exact steps; an outer iteration's
// last exact step is counted when the iteration ends, so an evaluation due
// after k passes describes the iterate after the approximate passes of the
// k-th iteration, and a run's pass budget ends after them.
//
// BCFW's gap-based Cache also reuses old planes, but step by step: every
// step decides from its gap estimate whether a cached corner is good
// enough. MP-BCFW separates the two kinds of steps into whole passes and
// lets the measured progress per unit of expense decide how many
// approximate passes to make. Pairwise and away steps and box constraints
// combine with it (corners with dual mass are never dropped from W_i, so a
// block may then hold more than N).
type MultiPlane struct {
	// Lambda is the regularization parameter (> 0).
	Lambda float64 `json:"lambda"`
	// N bounds the number of planes of a working set; zero means 1000, a
	// negative N keeps none (no working sets, hence no approximate passes).
	N int `json:"n,omitempty"`
	// T is the number of outer iterations a plane stays in its working set
	// without being used; zero means 10, a negative T keeps planes until N
	// drops them.
	T int `json:"t,omitempty"`
	// M bounds the approximate passes of an outer iteration; zero means
	// 1000, a negative M makes none. N < 0 and M < 0 (the paper's N = M =
	// 0) is exactly BCFW with permutation sampling.
	M int `json:"m,omitempty"`
	// Cost, when set, makes the pass rule measure expense with a
	// deterministic cost model (runs with equal seeds are then identical);
	// nil measures solver time, as the paper does (it adapts to the
	// machine, but runs are not reproducible).
	Cost *CostRule `json:"cost,omitempty"`
	// Step is FWStep (zero), Pairwise or Away; the pass rule measures the
	// dual increase of line searches, so there is no predefined step size.
	Step Step `json:"step"`
	// Averaging keeps two weighted averages, of the iterates after the
	// exact and after the approximate steps, and the trace reports their
	// interpolation with the best dual (Sec. 3.5).
	Averaging bool `json:"averaging,omitempty"`
	// Box bounds w coordinate-wise (nil: none).
	Box *Box `json:"box,omitempty"`
	// GapEvery is the number of passes (exact steps / n) between two exact
	// duality-gap passes; zero means 10 and a negative value never.
	GapEvery float64 `json:"gap_every,omitempty"`
	// TraceEvery adds observe-only evaluations every TraceEvery passes
	// (zero: none).
	TraceEvery float64 `json:"trace_every,omitempty"`
	// Seed seeds the permutations; with a Cost rule, runs with equal seeds
	// are identical.
	Seed uint64 `json:"seed"`
}

// CostRule is the deterministic expense of multi-plane BCFW's pass rule, in
// units of one plane evaluation <psi, w>: an exact step costs Ratio +
// Update (the oracle call and the update), an approximate step on block i
// costs |W_i| + Update (scoring the working set and the update).
type CostRule struct {
	// Ratio is the cost of an exact oracle call in plane evaluations (> 0;
	// MeasureCostRatio estimates it once for a problem).
	Ratio float64 `json:"ratio"`
	// Update is the cost of a step's update (the line search, the
	// iterate's and the block's updates) in plane evaluations; zero means
	// 1. A dense block update costs O(d) where a plane evaluation costs the
	// nonzeros of psi, so it is often many planes (MeasureUpdateCost
	// estimates it).
	Update float64 `json:"update,omitempty"`
}

// Name returns "mp-bcfw".
func (MultiPlane) Name() string { return "mp-bcfw" }

// New returns the solver of m on p at w = 0 (see BCFW.New). Of the
// executions, only a mini-batch can run it: its batches end with the
// passes.
func (m MultiPlane) New(p oracles.Problem, opts ...run.Option) (run.Solver, error) {
	return build(m, p, opts)
}

// WithLambda returns m at lambda.
func (m MultiPlane) WithLambda(lambda float64) run.Method { m.Lambda = lambda; return m }

func (m MultiPlane) plan() (config, error) {
	if err := checkSchedule(m.GapEvery, m.TraceEvery); err != nil {
		return config{}, err
	}
	switch m.Step {
	case FWStep, Pairwise, Away:
	case FWPredefined:
		return config{}, fmt.Errorf("multi-plane BCFW needs line search (its pass rule measures the dual increase of the steps): step fw, pairwise or away, not %v", m.Step)
	default:
		return config{}, fmt.Errorf("unknown step %d", int(m.Step))
	}
	cfg := config{Lambda: m.Lambda, Algorithm: run.BCFW, Sampling: run.Permutation, Step: m.Step, Box: m.Box,
		GapEvery: never(m.GapEvery), TraceEvery: m.TraceEvery, Seed: m.Seed,
		MultiPlane: mpConfig{Enabled: true, N: m.N, T: m.T, M: m.M}}
	if m.Averaging {
		cfg.Averaging, cfg.AverageKind = true, run.WeightedAverage
	}
	if c := m.Cost; c != nil {
		if !(c.Ratio > 0) || math.IsInf(c.Ratio, 1) {
			return config{}, fmt.Errorf("the cost rule needs a cost ratio (the cost of an oracle call in plane evaluations; MeasureCostRatio estimates it) > 0 and finite, got %v", c.Ratio)
		}
		cfg.MultiPlane.Rule, cfg.MultiPlane.CostRatio, cfg.MultiPlane.UpdateCost = ruleCost, c.Ratio, c.Update
	}
	return cfg, nil
}

// String describes the settings as the paper writes them (zero values as
// their defaults): N and M of 0 for none, T = inf for planes kept until N
// drops them, the rule with its cost ratio, e.g.
// "N=1000 T=10 M=1000 rule cost 57".
func (m MultiPlane) String() string {
	cfg, err := m.plan()
	if err != nil {
		return fmt.Sprintf("MultiPlane(%v)", err)
	}
	return cfg.withDefaults().MultiPlane.String()
}
