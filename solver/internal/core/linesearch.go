package core

// LineSearch returns num/denom clipped to [0, max]. A non-positive
// numerator (no descent) or denominator (a direction of numerically zero
// length, along which the objective cannot change) gives 0.
func LineSearch(num, denom, max float64) float64 {
	if !(num > 0) || !(denom > 0) {
		return 0
	}
	if gamma := num / denom; gamma < max {
		return gamma
	}
	return max
}
