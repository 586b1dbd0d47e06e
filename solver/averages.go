package solver

import (
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// resetAverages starts the averages of the iterates afresh (at New and
// when SetLambda changes the problem): with the plan's Averaging, one average
// (of its AverageKind) of every step's iterate, or for multi-plane BCFW one of the exact
// steps' and, when it makes approximate passes, one of the approximate
// steps' (Shah et al. 2015, Sec. 3.5). Without averaging there is none.
func (s *Solver) resetAverages() {
	s.avg, s.avgApprox, s.x.avgs = nil, nil, nil
	if !s.cfg.Averaging {
		return
	}
	s.avg = core.NewAverage(s.d, s.cfg.AverageKind)
	s.x.avgs = []*core.Average{s.avg}
	if s.cfg.MultiPlane.approximate() { // BCFW only (validate)
		s.avgApprox = core.NewAverage(s.d, run.WeightedAverage)
		s.x.avgs = append(s.x.avgs, s.avgApprox)
	}
}

// averageOf writes the v of average a into dst and returns its ell; an
// average of no iterate yet is the current iterate.
func (s *Solver) averageOf(a *core.Average, dst []float64) float64 {
	a.Value(s.x.v, dst)
	if a.K == 0 {
		return s.ell
	}
	return a.Ell
}

// averagedPoint writes into dst the v of the averaged iterate the solver
// reports and returns its ell: the average of the iterates, or for
// multi-plane BCFW the point of the segment between the average of the
// exact steps and that of the approximate steps with the best dual
// (Sec. 3.5; see bestInterpolation). Both averages are convex combinations
// of dual-feasible points, so every point of the segment is dual feasible
// and its dual a lower bound of the optimum.
func (s *Solver) averagedPoint(dst []float64) float64 {
	ell := s.averageOf(s.avg, dst)
	if s.avgApprox == nil || s.avgApprox.K == 0 {
		return ell // no approximate step yet: the average of the exact steps
	}
	if s.work.vAvg == nil {
		s.work.vAvg = make([]float64, s.d)
	}
	v2 := s.work.vAvg
	ell2 := s.averageOf(s.avgApprox, v2)
	gamma := bestInterpolation(s.lambda, s.box, dst, v2, ell, ell2)
	if gamma == 0 {
		return ell
	}
	for j, a := range dst {
		dst[j] = a + gamma*(v2[j]-a)
	}
	return ell + gamma*(ell2-ell)
}

// bestInterpolation returns the gamma in [0, 1] that maximizes the dual at
// (v(gamma), ell(gamma)) = (1-gamma) (v1, ell1) + gamma (v2, ell2).
//
// The dual (Osokin et al. 2016, eq. 52) is D(v, ell) = ell + lambda
// min_{w in box} (|w|^2/2 - <v, w>), concave in (v, ell), with gradient
// (-lambda [v], 1) where [v] is v clipped to the box. Along the segment,
// with Delta = v2 - v1,
//
//	D'(gamma) = (ell2 - ell1) - lambda <[v1 + gamma Delta], Delta>,
//
// continuous and non-increasing, so the best gamma is 0 when D'(0) <= 0, 1
// when D'(1) >= 0, and the root of D' otherwise. Without a box, [v] = v and
// D' is affine:
//
//	gamma = ((ell2 - ell1) - lambda <v1, Delta>) / (lambda |Delta|^2),
//
// clipped to [0, 1] (the line search of a Frank-Wolfe step, Alg. 1 line 5
// of Shah et al. 2015). With a box, D' is piecewise affine and its root is
// found by bisection to machine precision (64 halvings, O(64 d)).
func bestInterpolation(lambda float64, box *Box, v1, v2 []float64, ell1, ell2 float64) float64 {
	dEll := ell2 - ell1
	if box == nil {
		var vd, dd float64
		for j, a := range v1 {
			delta := v2[j] - a
			vd += a * delta
			dd += delta * delta
		}
		if dd == 0 {
			if dEll > 0 {
				return 1
			}
			return 0
		}
		return core.LineSearch(dEll-lambda*vd, lambda*dd, 1)
	}
	slope := func(gamma float64) float64 {
		var s float64
		for j, a := range v1 {
			delta := v2[j] - a
			s += box.clip(j, a+gamma*delta) * delta
		}
		return dEll - lambda*s
	}
	if !(slope(0) > 0) {
		return 0
	}
	if slope(1) >= 0 {
		return 1
	}
	lo, hi := 0.0, 1.0
	for k := 0; k < 64 && hi-lo > 0; k++ {
		mid := lo + (hi-lo)/2
		if mid == lo || mid == hi {
			break
		}
		if slope(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}
