package kernel

import (
	"errors"
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// SettledFraction is the threshold of Exact.Shrinking: a block whose exact
// step found a block gap of at most SettledFraction times the mean block
// gap of the last gap pass (see gapScale) leaves the active set.
const SettledFraction = 1e-3

// validateExact checks the settings exact steps and shrinking combine with.
func (cfg *config) validateExact() error {
	switch {
	case cfg.Shrinking && !cfg.Exact:
		return errors.New("kernel: shrinking needs exact steps (the Exact method)")
	case !cfg.Exact:
		return nil
	case cfg.Algorithm != run.BCFW:
		return errors.New("kernel: exact steps need bcfw")
	case cfg.StepSize != run.LineSearch:
		return errors.New("kernel: exact steps minimize over the whole block; they take no step size rule")
	case cfg.Shrinking && cfg.Sampling != run.Permutation:
		return fmt.Errorf("kernel: shrinking sweeps the unsettled blocks in a random order every pass (libsvm's active set): it needs permutation sampling, not %v", cfg.Sampling)
	}
	return nil
}

// exactStep is the exact block step of the kernelized Crammer-Singer dual
// (Keerthi et al. 2008, Sec. 3, kernelized as in Crammer and Singer 2001,
// Sec. 6): with the scores H of block i's classes from the kernel
// expansion, the dual restricted to alpha_i is
// (1/n) H^T d - k(x_i, x_i)/(2 lambda n^2) |d|^2 for a move d, so the
// exact solution is the projection onto the simplex
//
//	alpha_i <- Proj(alpha_i + lambda n / k(x_i, x_i) H).
//
// With Exact.Shrinking the blocks come from the active set (core.ActiveSet)
// instead of the sampler; a block that the step finds settled leaves it
// until the next gap pass, which visits every block, certifies the gap and
// makes every unsettled block active again.
func (s *Solver) exactStep() {
	var i int
	if s.cfg.Shrinking {
		var ok bool
		if i, ok = s.active.Next(s.rng); !ok {
			s.steps++ // every block settled: EarlyCheckDue asks for a gap pass
			return
		}
	} else {
		i = s.samp.Next(s.rng)
	}
	// With shrinking, a block's first visit (most blocks settle at once)
	// takes no cache row: the cache holds the rows of the active set.
	s.blockScores(i, s.cache != nil && (!s.cfg.Shrinking || !math.IsInf(s.gapEst[i], 1)))
	s.calls++
	a := s.alpha[i*s.k : (i+1)*s.k]
	y := s.in.y[i]
	_, hStar, hBar := blockOracle(a, s.scores, y)
	n := float64(s.n)
	g := (hStar - hBar) / n
	s.setGapEstimate(i, g)
	if g > 0 {
		z := s.z
		truth := s.scores[y]
		t := s.lambda * n / s.diag[i]
		for c, v := range s.scores {
			h := v - truth
			if int32(c) != y {
				h++
			}
			z[c] = a[c] + t*h
		}
		if s.diag[i] == 0 || math.IsInf(t, 1) {
			// k(x_i, x_i) = 0: the block's dual is linear, its best corner wins
			yStar, _, _ := blockOracle(a, s.scores, y)
			clear(z)
			z[yStar] = 1
		} else {
			core.ProjectSimplex(z, s.sorted)
		}
		s.setBlock(i, z)
	}
	if s.cfg.Shrinking {
		s.active.Visited(g > SettledFraction*s.gapScale()/n)
	}
	s.fold()
	s.steps++
}

// gapScale is the duality gap that scales "settled": that of the last gap
// pass or, before the first one, the sum of the stale block gaps once every
// block has one (0 during the first sweep: only blocks already optimal
// leave), so that the first sweep needs no gap pass of its own.
func (s *Solver) gapScale() float64 {
	if !math.IsInf(s.globalGap, 1) {
		return s.globalGap
	}
	if e := s.est.Sum(); !math.IsInf(e, 1) {
		return e
	}
	return 0
}

// setBlock sets alpha_i to z, keeping ell, the support set and the average
// up to date.
func (s *Solver) setBlock(i int, z []float64) {
	a := s.alpha[i*s.k : (i+1)*s.k]
	y := s.in.y[i]
	if s.avg != nil {
		for c, v := range a {
			s.avg.Sync(int32(i*s.k+c), v)
		}
	}
	before := 1 - a[y]
	copy(a, z)
	s.ell += ((1 - a[y]) - before) / float64(s.n)
	s.sv.set(i, offTruth(a, y))
}
