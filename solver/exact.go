package solver

import (
	"errors"
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// validateExact checks the settings exact steps and shrinking combine with.
func (cfg *Config) validateExact() error {
	if cfg.Step != Exact {
		if cfg.Shrinking {
			return errors.New("solver: shrinking needs exact steps (Step Exact)")
		}
		return nil
	}
	switch {
	case cfg.Algorithm != run.BCFW:
		return errors.New("solver: exact steps need the bcfw solver")
	case cfg.StepSize != run.LineSearch:
		return errors.New("solver: exact steps minimize over the whole block; they take no step size rule")
	case cfg.Cache.Enabled || cfg.MultiPlane.Enabled:
		return errors.New("solver: exact steps score every corner of the block; they need no cache and no multi-plane working sets")
	case cfg.Box != nil:
		return errors.New("solver: exact steps solve the unconstrained block problem; they take no box constraints")
	case cfg.miniBatch() || cfg.SimulateWorkers > 1:
		return errors.New("solver: exact steps are sequential: each block's solve reads the w the previous one left (no mini-batch, no delay simulator)")
	case cfg.Shrinking && cfg.Sampling != run.Permutation:
		return fmt.Errorf("solver: shrinking sweeps the unsettled blocks in a random order every pass (liblinear's active set): it needs permutation sampling, not %v", cfg.Sampling)
	}
	return nil
}

// exactStep minimizes the dual exactly over block i, the sequential dual
// method of Keerthi et al. (2008, Sec. 3; liblinear -s 4) for the
// Crammer-Singer multiclass SVM. With H_k = L_i(k) - <w, psi_i(k)> the
// scores of the K corners at the current w, a move d of alpha_i (sum 0)
// changes the dual by (1/n) H^T d - lambda/2 sigma^2 |x_i|^2 |d|^2 (the
// Hessian is isotropic because psi_i(k) = x_i (x) (e_{y_i} - e_k) and
// alpha_i sums to 1), so the exact block solution is the Euclidean
// projection onto the simplex
//
//	alpha_i <- Proj(alpha_i + lambda n / |x_i|^2 H),
//
// computed by sorting (Duchi et al. 2008, Fig. 1; Keerthi et al. 2008,
// Alg. 3). The block gap max_k H_k - alpha_i^T H (over n) of the step,
// measured before it, is the block's stale gap estimate, as for the other
// steps; the step counts as an oracle call (it scores every label).
//
// With Config.Shrinking the step sweeps the active set instead (see
// shrinkStep).
func (s *Solver) exactStep() error {
	if s.cfg.Shrinking {
		return s.shrinkStep()
	}
	i := s.samp.Next(s.rng)
	s.steps++
	s.exactBlock(i)
	s.reuse.stepped(i, nil)
	return nil
}

// exactBlock solves the sub-problem of block i exactly (see exactStep) and
// returns the block gap before the step.
func (s *Solver) exactBlock(i int) float64 {
	n := float64(s.n)
	b := s.store.(*classStore)
	K := b.k
	x := b.m.Input(i)
	yi := b.truth(i)
	act := b.activeClasses(i)
	h := b.h
	for _, k := range act {
		h[k] = 0
	}
	w := s.x.w
	for j, f := range x.Idx {
		xv := x.Val[j]
		row := w[int(f)*K : int(f)*K+K : int(f)*K+K]
		for _, k := range act {
			h[k] += xv * row[k]
		}
	}
	// H_k up to the constant -<w_{y_i}, x_i>, which changes neither the
	// gap nor the projection (alpha_i sums to 1 over the active classes).
	alpha := b.block(i)
	hmax, dot, hmin := math.Inf(-1), 0.0, math.Inf(1)
	for _, k := range act {
		v := h[k]
		if int(k) != yi {
			v++
		}
		h[k] = v
		hmax = max(hmax, v)
		if a := alpha[k]; a > 0 {
			dot += a * v
			hmin = min(hmin, v)
		}
	}
	s.calls++
	g := (hmax - dot) / n
	s.setGapEstimate(i, g)
	if !(g > 0) {
		return g
	}
	z, d := b.z[:len(act)], b.delta
	if b.xsq[i] == 0 { // psi = 0 for every corner: the dual is linear in alpha_i
		for m, k := range act {
			z[m] = 0
			if h[k] == hmax {
				z[m], hmax = 1, math.Inf(1) // the first maximizer only
			}
		}
	} else {
		t := s.lambda * n / b.xsq[i]
		for m, k := range act {
			z[m] = alpha[k] + t*h[k]
		}
		core.ProjectSimplex(z, b.sorted)
	}
	clear(d)
	for m, k := range act {
		d[k] = z[m] - alpha[k]
	}
	if s.cfg.Shrinking {
		b.shrinkClasses(i, hmin, d)
	}
	b.apply(i, d)
	return g
}
