package solver

import (
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/oracles"
)

// SetLambda changes the regularization parameter to newLambda.
//
// A decrease keeps w, as in Osokin et al. (2016), Proposition 1: with
// rho = newLambda/lambda, the dual variables become alpha_i(y) := rho
// alpha_i(y) for y != y_i and alpha_i(y_i) := 1 - sum_{y != y_i} alpha_i(y),
// so that w and every w_i stay the same, ell_i := rho ell_i, and every block
// gap grows exactly by (1-rho) delta_i with
// delta_i = ell_i - lambda <w, w_i> (eq. 11): the stale estimates, the
// global gap and the exact block gaps of the last pass are updated by that
// identity, so exact gaps stay exact. It is the warm start of the
// regularization path (Alg. 7, lines 13-21) and of warm-started grid search.
//
// It requires L_i(y_i) = 0 for every example, resets the weighted average
// and restarts the schedule of gap passes.
//
// An increase keeps the dual variables alpha instead, which stay feasible
// for every lambda (the dual's domain, a product of simplices, does not
// depend on it): every w_i = A alpha_[i] / (lambda n) and w scale by
// lambda/newLambda and ell stays, so the dual objective at alpha is that
// of the new problem. The stale block gaps no longer hold: the algorithms
// with block gaps (BCFW and its variants) make an exact gap pass at once,
// counted as n oracle calls and recorded in the trace, which refreshes
// them; the batch methods evaluate at their next step. SSG, which has no
// dual variables, keeps w.
func (s *Solver) SetLambda(newLambda float64) error {
	if !(newLambda > 0) || math.IsInf(newLambda, 1) {
		return fmt.Errorf("solver: lambda must be positive and finite, got %v", newLambda)
	}
	if f, ok := s.alg.(interface{ fixedLambda() error }); ok {
		return f.fixedLambda()
	}
	if newLambda > s.lambda {
		return s.raiseLambda(newLambda)
	}
	if err := CheckZeroTruthLoss(s.p); err != nil {
		return err
	}
	rho := newLambda / s.lambda
	if rho == 1 {
		return nil
	}
	dualBefore := s.dual(s.x.v, s.x.w, s.ell)
	s.alg.rescale(rho)
	s.ell *= rho
	s.resetAverages()
	s.noteEvent(fmt.Sprintf("lambda %g -> %g", s.lambda, newLambda))
	s.lambda = newLambda
	s.cfg.Lambda = newLambda
	s.reuse.rebase(s.dual(s.x.v, s.x.w, s.ell) - dualBefore)
	// The trace's last point describes the same w at the old lambda: the
	// next Run (or Current) records the iterate at the new one.
	s.loop.LastEval, s.evalAt = -1, -1
	s.loop.Reschedule(s.clock())
	return nil
}

// raiseLambda is SetLambda's increase: the dual variables stay, the
// vectors A alpha / lambda scale by f = lambda/newLambda.
func (s *Solver) raiseLambda(newLambda float64) error {
	f := s.lambda / newLambda
	dualBefore := s.dual(s.x.v, s.x.w, s.ell)
	s.noteEvent(fmt.Sprintf("lambda %g -> %g", s.lambda, newLambda))
	s.lambda, s.cfg.Lambda = newLambda, newLambda
	s.alg.raise(f)
	s.resetAverages()
	if s.alg.dual() {
		s.reuse.rebase(s.dual(s.x.v, s.x.w, s.ell) - dualBefore)
	}
	s.loop.LastEval, s.evalAt = -1, -1
	s.loop.Reschedule(s.clock())
	if s.alg.blocks() {
		// The block gaps of the new problem, for the sampler, the cache
		// and the stopping test: an exact gap pass, counted.
		if err := s.record(true); err != nil {
			return fmt.Errorf("solver: SetLambda: the gap pass at lambda %g: %w", newLambda, err)
		}
		s.loop.LastEval, s.evalAt = s.steps, s.steps
		s.loop.Reschedule(s.clock())
	}
	return nil
}

// rescaleDuals applies alpha(y) *= rho for y != y_i and puts the freed mass
// on the ground truth, adding it to the active set if needed (Alg. 7, lines
// 17-21).
func (s *Solver) rescaleDuals(i int, rho float64) {
	set := &s.sets[i]
	truth := s.p.Truth(i)
	k := set.find(truth, oracles.HashLabeling(truth))
	if k < 0 {
		k = set.addTruth(s.p, i, s.steps, s.work.dense)
	}
	var other float64
	for m := range set.entries {
		if m != k {
			set.entries[m].alpha *= rho
			other += set.entries[m].alpha
		}
	}
	set.entries[k].alpha = 1 - other
}

// CheckZeroTruthLoss returns an error unless L_i(y_i) = 0 for every example
// (the assumption of Osokin et al. 2016, Proposition 1).
func CheckZeroTruthLoss(p interface {
	Len() int
	Truth(int) []int32
	Loss(int, []int32) float64
}) error {
	for i := 0; i < p.Len(); i++ {
		if l := p.Loss(i, p.Truth(i)); l != 0 {
			return fmt.Errorf("solver: example %d has loss %v on its ground truth; the regularization path needs L_i(y_i) = 0 (Osokin et al. 2016, Prop. 1)", i, l)
		}
	}
	return nil
}
