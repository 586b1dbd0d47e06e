package run

import "math"

// PassesToGap returns the passes of the first trace point whose duality
// gap is at most eps, or NaN when the trace never gets there: the entry
// of a "passes to reach gap eps" table or bar chart of a parameter sweep.
func PassesToGap(trace []Point, eps float64) float64 {
	if p, ok := firstGapBelow(trace, eps); ok {
		return p.Pass
	}
	return math.NaN()
}

// SecondsToGap is PassesToGap on the time axis: the solver seconds of the
// first trace point whose duality gap is at most eps, or NaN.
func SecondsToGap(trace []Point, eps float64) float64 {
	if p, ok := firstGapBelow(trace, eps); ok {
		return p.Seconds
	}
	return math.NaN()
}

// firstGapBelow returns the first trace point whose duality gap is at most
// eps (a NaN gap never is).
func firstGapBelow(trace []Point, eps float64) (Point, bool) {
	for _, p := range trace {
		if p.Gap <= eps {
			return p, true
		}
	}
	return Point{}, false
}

// Chi returns the non-uniformity chi(x) = sqrt(1 + n^2 Var[p]), p = x/|x|_1,
// of a non-negative vector (Osokin et al. 2016, Def. 5), the metric of
// Point.ChiGap, ChiCurvature and ChiGapEstimate; by Lemma 6 it equals
// sqrt(n) |x|_2 / |x|_1. Negative entries count as zero. It lies in
// [1, sqrt(n)], and is NaN for the zero vector.
func Chi(x []float64) float64 {
	var l1, l2 float64
	for _, v := range x {
		if v > 0 {
			l1 += v
			l2 += v * v
		}
	}
	if l1 == 0 {
		return math.NaN()
	}
	return math.Sqrt(float64(len(x))*l2) / l1
}
