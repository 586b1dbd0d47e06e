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
