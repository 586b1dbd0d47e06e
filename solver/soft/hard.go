package soft

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// HardObjective returns the objective of a trace point that compares
// across solvers on the hard (LP-relaxed) problem of Meshi's eq. 2:
// HardPrimal when the point has one (the soft solver's points, or points of
// another solver whose HardPrimal a caller filled in with RelaxedPrimal),
// else Primal (on a factorgraph.Relaxed view, the primal of BCFW is
// min_delta g(w, delta); the example-level solver leaves HardPrimal NaN).
// Points of checkpoints written before HardPrimal existed hold zero in both
// Rho and HardPrimal, and count as the others.
func HardObjective(p run.Point) float64 {
	if math.IsNaN(p.HardPrimal) || p.HardPrimal == 0 && p.Rho == 0 {
		return p.Primal
	}
	return p.HardPrimal
}

// RelaxedPrimal returns the LP-relaxed hard primal at the weights w,
//
//	lambda/2 |w|^2 + 1/M sum_m max_{mu in M_L} [Delta . mu + <w, phi mu>] - <w, phi(y^m)>,
//
// which is min over delta of g(w, delta) of Meshi's eq. 2 (LP duality): the
// objective of LP-hard BCFW, at most the soft solver's HardPrimal at the
// same w, and at least the exact structural SVM objective of w. It solves
// one LP per example (r's max oracle) on workers goroutines (0: one) and
// returns the first oracle error.
func RelaxedPrimal(r *factorgraph.Relaxed, lambda float64, w []float64, workers int) (float64, error) {
	n := r.Len()
	if len(w) != r.Dim() {
		return math.NaN(), fmt.Errorf("soft: %d weights for a model of dimension %d", len(w), r.Dim())
	}
	h := make([]float64, n)
	ys := make([][]int32, max(1, workers))
	err := core.Parallel(n, len(ys), func(k, i int) error {
		var err error
		ys[k], h[i], err = r.MaxOracleErr(i, w, ys[k])
		if err != nil {
			return fmt.Errorf("soft: LP of example %d: %w", i, err)
		}
		return nil
	})
	if err != nil {
		return math.NaN(), err
	}
	return lambda/2*floats.Dot(w, w) + floats.Sum(h)/float64(n), nil
}
