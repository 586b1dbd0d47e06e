package solver

import "math"

// Chi returns the non-uniformity chi(x) = sqrt(1 + n^2 Var[p]), p = x/|x|_1,
// of a non-negative vector (Osokin et al. 2016, Def. 5); by Lemma 6 it equals
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

// nonUniformity returns chi(g) of the block gaps, chi(C) of the curvature
// bounds C_i = 4 R_i^2 / (lambda n^2) with R_i the largest observed
// |psi_i(y)|, and the predicted improvement chi(g)^3 / chi(C) of gap
// sampling over uniform sampling (Osokin et al. 2016, Thm. 2 and Fig. 1c).
// Blocks whose R_i has not been observed yet are left out of chi(C).
func (s *Solver) nonUniformity(g []float64) (chiG, chiC, speedup float64) {
	chiG = Chi(g)
	var curv []float64
	scale := 4 / (s.lambda * float64(s.n) * float64(s.n))
	for _, r := range s.rSq {
		if r > 0 {
			curv = append(curv, scale*r)
		}
	}
	chiC = math.NaN()
	if len(curv) > 0 {
		chiC = Chi(curv)
	}
	return chiG, chiC, chiG * chiG * chiG / chiC
}
