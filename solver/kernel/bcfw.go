package kernel

import (
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// bcfwStep is one step of kernelized BCFW (Lacoste-Julien et al. 2013,
// Alg. B.1) with the line search of Alg. 4 reconstructed implicitly: the
// scores of block i are a kernel sum over the support vectors, which give
// the max oracle, the block gap
//
//	g_i = lambda <w_i - w_s, w> - ell_i + ell_s = (H_i(y*) - sum_c alpha_i(c) H_i(c))/n
//
// and, with |w_i - w_s|^2 = k(x_i, x_i) |alpha_i - e_{y*}|^2/(lambda n)^2,
// the step gamma = g_i / (lambda |w_i - w_s|^2) clipped to [0, 1].
func (s *Solver) bcfwStep() {
	if s.cfg.Exact {
		s.exactStep()
		return
	}
	i := s.samp.Next(s.rng)
	s.blockScores(i, s.cache != nil)
	s.calls++
	a := s.alpha[i*s.k : (i+1)*s.k]
	yStar, hStar, hBar := blockOracle(a, s.scores, s.in.y[i])
	n := float64(s.n)
	g := (hStar - hBar) / n
	s.setGapEstimate(i, g)
	var gamma float64
	if s.cfg.StepSize == run.Predefined {
		gamma = 2 * n / (float64(s.steps) + 2*n)
	} else {
		var dist float64
		for c, v := range a {
			if c == yStar {
				v--
			}
			dist += v * v
		}
		gamma = core.LineSearch(g, s.diag[i]*dist/(s.lambda*n*n), 1)
	}
	if gamma > 0 {
		s.moveBlock(i, yStar, gamma)
	}
	s.fold()
	s.steps++
}

// blockScores writes the scores of block i at the current iterate into
// s.scores, through the block's cache row when useCache (taking one) and
// its lookahead row (aheadRow).
func (s *Solver) blockScores(i int, useCache bool) {
	var row cacheRow
	cached := false
	if useCache {
		cached = s.cache.holds(i)
		row = s.cache.get(i)
	}
	s.stepScores(i, row, s.aheadRow(i, cached), s.scores)
}

// moveBlock performs alpha_i <- (1-gamma) alpha_i + gamma e_{y*}, keeping
// ell, the support set and the average up to date.
func (s *Solver) moveBlock(i, yStar int, gamma float64) {
	a := s.alpha[i*s.k : (i+1)*s.k]
	y := s.in.y[i]
	if s.avg != nil {
		for c, v := range a {
			s.avg.Sync(int32(i*s.k+c), v)
		}
	}
	before := 1 - a[y]
	for c := range a {
		if gamma == 1 {
			a[c] = 0
		} else {
			a[c] *= 1 - gamma
		}
	}
	a[yStar] += gamma
	s.ell += ((1 - a[y]) - before) / float64(s.n)
	s.sv.set(i, offTruth(a, y))
}

// fold ends a step: the current iterate joins the weighted average.
func (s *Solver) fold() {
	if s.avg != nil {
		s.avg.Fold(s.ell)
	}
}

// setGapEstimate records the new stale gap of block i.
func (s *Solver) setGapEstimate(i int, g float64) {
	s.est.Replace(s.gapEst[i], g)
	s.gapEst[i] = g
	s.samp.SetGap(i, g)
}
