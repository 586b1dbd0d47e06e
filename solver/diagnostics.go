package solver

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

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

// CurvatureBounds returns the block curvature bounds 4 R_i^2 / (lambda n^2)
// with R_i the largest |psi_i(y)| observed so far (zero before any
// observation).
func (s *Solver) CurvatureBounds() []float64 {
	out := make([]float64, s.n)
	scale := 4 / (s.lambda * float64(s.n) * float64(s.n))
	for i, r := range s.rSq {
		out[i] = scale * r
	}
	return out
}

// average maintains the weighted average of the iterates with weights
// proportional to k: xbar(k+1) = k/(k+2) xbar(k) + 2/(k+2) x(k+1)
// (Lacoste-Julien et al. 2013, Alg. 4 and App. C, eq. 14), applied to v and
// ell so that the averaged primal-dual pair stays consistent. The vector is
// stored as c*u so that the shrinkage costs O(1).
type average struct {
	u   []float64
	c   float64
	ell float64
	k   int64
}

func newAverage(d int) *average { return &average{u: make([]float64, d), c: 1} }

// update folds in the iterate (v, ell) reached after step k = a.k.
func (a *average) update(v []float64, ell float64) {
	k := float64(a.k)
	rho, eta := k/(k+2), 2/(k+2)
	a.c *= rho
	if a.c == 0 {
		clear(a.u)
		a.c = 1
	} else if a.c < 1e-150 {
		floats.Scale(a.c, a.u)
		a.c = 1
	}
	floats.AddScaled(a.u, eta/a.c, v)
	a.ell = rho*a.ell + eta*ell
	a.k++
}

// value writes the averaged vector into dst.
func (a *average) value(dst []float64) {
	for j, x := range a.u {
		dst[j] = a.c * x
	}
}
