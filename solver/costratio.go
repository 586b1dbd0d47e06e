package solver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/run"
)

// MeasureCostRatio estimates CostRule.Ratio for the cost rule of
// multi-plane BCFW: how many plane evaluations <psi_i(y), w> one max-oracle
// call of p costs at w (nil means w = 0; a trained w is more telling for
// oracles whose time depends on it, such as graph cuts). It times the
// oracle on up to samples examples spread over the problem (zero means 64)
// and the evaluation of the planes it returns, and returns the ratio of the
// median times, at least 1 (medians, so that a preempted call does not
// count). Where the oracle returns the ground truth, whose
// plane is empty, the plane of its answer at w = 0 (a most violating
// labeling) stands in for a typical plane of a working set.
//
// The result depends on the machine and its load: measure once and keep
// the value in the CostRule, so that runs with the cost rule stay
// reproducible.
func MeasureCostRatio(p oracles.Problem, w []float64, samples int) (float64, error) {
	n, d := p.Len(), p.Dim()
	if n < 1 || d < 1 {
		return 0, fmt.Errorf("solver: measure cost ratio: problem has %d examples of dimension %d", n, d)
	}
	if w == nil {
		w = make([]float64, d)
	}
	if len(w) != d {
		return 0, fmt.Errorf("solver: measure cost ratio: w has %d entries, the problem dimension %d", len(w), d)
	}
	if samples <= 0 {
		samples = 64
	}
	samples = min(samples, n)
	oracle := oracles.OracleFunc(p)
	zero := make([]float64, d)
	var y []int32
	var psi oracles.SparseVec
	var tOracle, tPlane []float64 // seconds per call, per example
	var sink float64
	for k := 0; k < samples; k++ {
		i := k * n / samples
		t0 := time.Now()
		var err error
		if y, _, err = oracle(i, w, y); err != nil {
			return 0, fmt.Errorf("solver: measure cost ratio: %w", err)
		}
		tCall := time.Since(t0).Seconds()
		p.Psi(i, y, &psi)
		if psi.Len() == 0 {
			if y, _, err = oracle(i, zero, y); err != nil {
				return 0, fmt.Errorf("solver: measure cost ratio: %w", err)
			}
			if p.Psi(i, y, &psi); psi.Len() == 0 {
				continue
			}
		}
		tOracle = append(tOracle, tCall)
		// Repeat the cheap evaluation until it takes a measurable time.
		reps := 1
		for {
			t0 = time.Now()
			for r := 0; r < reps; r++ {
				sink += psi.Dot(w)
			}
			if el := time.Since(t0); el >= 20*time.Microsecond || reps >= 1<<16 {
				tPlane = append(tPlane, el.Seconds()/float64(reps))
				break
			}
			reps *= 4
		}
	}
	_ = sink
	if len(tPlane) == 0 {
		return 0, errors.New("solver: measure cost ratio: every plane the oracle returned is empty, even at w = 0")
	}
	ratio := middle(tOracle) / middle(tPlane)
	if !(ratio >= 1) {
		ratio = 1
	}
	return ratio, nil
}

// middle returns the median of x (x is reordered).
func middle(x []float64) float64 {
	sort.Float64s(x)
	return x[len(x)/2]
}

// MeasureUpdateCost estimates CostRule.Update for the cost rule of
// multi-plane BCFW mp on problem p: the time of a step's update (line
// search, iterate and block updates) in plane evaluations. It runs passes
// exact passes of mp
// (zero means 3) to fill the working sets, then times n approximate steps,
// each against the scoring of its block's working set alone, and
// returns the ratio of the median update time (step minus scoring) to the
// median time of a plane evaluation in the scoring, at least 1. As with
// MeasureCostRatio, measure once and keep the value in the CostRule.
//
// BenchmarkMultiPlaneRules compares the time rule with the cost rule,
// with and without this estimate, and BenchmarkMultiPlaneStep the cost
// model with the measured steps; their figures are in docs/performance.md
// ("Multi-plane BCFW: the time and the cost rule").
func MeasureUpdateCost(p oracles.Problem, mp MultiPlane, passes int) (float64, error) {
	cfg, err := mp.plan()
	if err != nil {
		return 0, fmt.Errorf("solver: measure update cost: %w", err)
	}
	return measureUpdateCost(p, cfg, passes)
}

// measureUpdateCost is MeasureUpdateCost on the plan cfg of a multi-plane
// BCFW.
func measureUpdateCost(p oracles.Problem, cfg config, passes int) (float64, error) {
	if !cfg.MultiPlane.Enabled {
		return 0, errors.New("solver: measure update cost: the configuration has no multi-plane settings")
	}
	if passes <= 0 {
		passes = 3
	}
	cfg.MultiPlane.Rule, cfg.MultiPlane.CostRatio, cfg.MultiPlane.M = ruleTime, 0, -1 // exact passes only
	cfg.GapEvery, cfg.TraceEvery = math.Inf(1), 0
	s, err := newSolver(p, cfg)
	if err != nil {
		return 0, fmt.Errorf("solver: measure update cost: %w", err)
	}
	if _, err := s.Run(context.Background(), run.Stop{Passes: float64(passes)}); err != nil {
		return 0, fmt.Errorf("solver: measure update cost: %w", err)
	}
	m, ok := s.reuse.(*multiPlane)
	if !ok || s.sets == nil {
		return 0, errors.New("solver: measure update cost: the configuration keeps no working sets")
	}
	var tUpdate, tPlane []float64
	for k := 0; k < s.n; k++ {
		m.approx, m.pos = true, 0 // approximate steps, never ending a pass
		t0 := time.Now()
		if err := s.bcfwStep(); err != nil {
			return 0, fmt.Errorf("solver: measure update cost: %w", err)
		}
		tStep := time.Since(t0).Seconds()
		perm, pos, _ := s.samp.State() // permutation sampling: the block just stepped
		i := perm[pos-1]
		t0 = time.Now()
		h := s.cornerScores(&s.sets[i])
		tScore := time.Since(t0).Seconds()
		planes := len(h)
		tUpdate = append(tUpdate, tStep-tScore)
		tPlane = append(tPlane, tScore/float64(planes))
	}
	cost := middle(tUpdate) / middle(tPlane)
	if !(cost >= 1) {
		cost = 1
	}
	return cost, nil
}
