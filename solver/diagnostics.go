package solver

import (
	"math"

	"github.com/fwstruct/fwstruct/solver/run"
)

// nonUniformity returns chi(g) of the block gaps, chi(C) of the curvature
// bounds C_i = 4 R_i^2 / (lambda n^2) with R_i the largest observed
// |psi_i(y)|, and the predicted improvement chi(g)^3 / chi(C) of gap
// sampling over uniform sampling (Osokin et al. 2016, Thm. 2 and Fig. 1c).
// Blocks whose R_i has not been observed yet are left out of chi(C).
func (s *Solver) nonUniformity(g []float64) (chiG, chiC, speedup float64) {
	chiG = run.Chi(g)
	var curv []float64
	scale := 4 / (s.lambda * float64(s.n) * float64(s.n))
	for _, r := range s.rSq {
		if r > 0 {
			curv = append(curv, scale*r)
		}
	}
	chiC = math.NaN()
	if len(curv) > 0 {
		chiC = run.Chi(curv)
	}
	return chiG, chiC, chiG * chiG * chiG / chiC
}
