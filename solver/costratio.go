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
// oracles whose time depends on it, such as graph cuts): the Ratio of
// MeasureOracleCost on up to samples examples (zero means 64), at least 1.
//
// The result depends on the machine and its load: measure once and keep
// the value in the CostRule, so that runs with the cost rule stay
// reproducible.
func MeasureCostRatio(p oracles.Problem, w []float64, samples int) (float64, error) {
	if samples <= 0 {
		samples = 64
	}
	c, err := MeasureOracleCost(p, w, samples)
	if err != nil {
		return 0, err
	}
	if c.Plane == 0 {
		return 0, errors.New("solver: measure cost ratio: every plane the oracle returned is empty, even at w = 0")
	}
	return c.Ratio, nil
}

// OracleCost is the measured time of a max-oracle call and of the
// evaluation <psi_i(y), w> of a plane it returns.
type OracleCost struct {
	// Call is the median time of an oracle call.
	Call time.Duration
	// Plane is the median time of a plane evaluation (zero when every
	// plane the oracle returned was empty, even at w = 0).
	Plane time.Duration
	// Ratio is the cost of an oracle call in plane evaluations: the ratio
	// of the two medians (before their rounding to durations), at least 1.
	Ratio float64
}

// MeasureOracleCost times the max oracle of p at w (nil means w = 0) on
// samples examples spread over the problem (at most n, at least 1) and the
// evaluation of the planes it returns, and returns the medians (so that a
// preempted call does not count). Each example's oracle call and plane are
// timed on their second evaluation, so that the first touch of the
// example's features and of w (page faults, cold caches: 50 times the
// steady call on CoNLL) is not counted. Where the oracle returns the ground
// truth, whose plane is empty, the plane of its answer at w = 0 (a most
// violating labeling) stands in for a typical plane of a working set; when
// every plane is empty even there, Plane is zero and Ratio 1.
func MeasureOracleCost(p oracles.Problem, w []float64, samples int) (OracleCost, error) {
	n, d := p.Len(), p.Dim()
	if n < 1 || d < 1 {
		return OracleCost{}, fmt.Errorf("solver: measure oracle cost: problem has %d examples of dimension %d", n, d)
	}
	if w == nil {
		w = make([]float64, d)
	}
	if len(w) != d {
		return OracleCost{}, fmt.Errorf("solver: measure oracle cost: w has %d entries, the problem dimension %d", len(w), d)
	}
	samples = max(1, min(samples, n))
	oracle := oracles.OracleFunc(p)
	zero := make([]float64, d)
	var y []int32
	var psi oracles.SparseVec
	var tOracle, tPlane, tEmpty []float64 // seconds per call, per example
	var sink float64
	for k := 0; k < samples; k++ {
		i := k * n / samples
		var tCall float64
		for pass := 0; pass < 2; pass++ { // the second call is timed
			t0 := time.Now()
			var err error
			if y, _, err = oracle(i, w, y); err != nil {
				return OracleCost{}, fmt.Errorf("solver: measure oracle cost: %w", err)
			}
			tCall = time.Since(t0).Seconds()
		}
		p.Psi(i, y, &psi)
		if psi.Len() == 0 {
			var err error
			if y, _, err = oracle(i, zero, y); err != nil {
				return OracleCost{}, fmt.Errorf("solver: measure oracle cost: %w", err)
			}
			if p.Psi(i, y, &psi); psi.Len() == 0 {
				tEmpty = append(tEmpty, tCall)
				continue
			}
		}
		tOracle = append(tOracle, tCall)
		sink += psi.Dot(w) // the first touch
		// Repeat the cheap evaluation until it takes a measurable time.
		reps := 1
		for {
			t0 := time.Now()
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
		return OracleCost{Call: seconds(middle(tEmpty)), Ratio: 1}, nil
	}
	c := OracleCost{Call: seconds(middle(tOracle)), Plane: seconds(middle(tPlane))}
	c.Ratio = middle(tOracle) / middle(tPlane)
	if !(c.Ratio >= 1) {
		c.Ratio = 1
	}
	return c, nil
}

// seconds converts seconds to a duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

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
