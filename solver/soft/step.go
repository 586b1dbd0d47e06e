package soft

import (
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// move is the Frank-Wolfe step on one block (m, alpha), computed by
// direction and applied by apply. Its direction d = s - mu (Alg. 1, lines
// 6, 11) is in work.dir, P = NodePsi(d) in work.psi and, for a factor, the
// marginals A_ci d of every scope position in work.marg.
type move struct {
	i, a  int     // example and node
	s     int     // the Frank-Wolfe vertex: the state of largest score
	num   float64 // theta^T d, M times the block gap (>= 0)
	psiSq float64 // |P|^2
	agree float64 // K: N_i |d|^2 (variable) or sum_i |A_ci d|^2 (factor)
	gamma float64 // the step size of line 7 or 12
	slots bool    // P is held as slot coefficients in work.slots (else in work.psi)
}

// step makes one block step of Meshi et al. (2015), Alg. 1: sample a block
// (line 3), compute its step (lines 4-13) and take it (lines 14-15). The
// block's gap theta^T d / M refreshes its stale estimate.
func (s *Solver) step() {
	b := s.samp.Next(s.rng)
	s.prefetch()
	mv := s.direction(b)
	s.calls++
	s.setGapEstimate(b, mv.num/float64(s.nEx))
	if mv.gamma > 0 {
		s.apply(mv)
	}
	s.steps++
}

// setGapEstimate records the new stale gap of block b.
func (s *Solver) setGapEstimate(b int, g float64) {
	s.est.Replace(s.gapEst[b], g)
	s.gapEst[b] = g
	if s.cfg.Sampling == run.GapSampling {
		s.samp.SetGap(b, g)
	}
}

// psiNormSq computes P = NodePsi(d) of node a of example i and returns
// |P|^2: in the compact form of slot coefficients (nodes.Model.PsiSlotsNorm,
// kept in work.slots; slots is true) when the node's terms span disjoint
// coordinates, which needs no sparse accumulator, else accumulated into
// work.psi.
func (s *Solver) psiNormSq(i, a int, d []float64) (sq float64, slots bool) {
	if _, sq, ok := s.k.PsiSlotsNorm(i, a, d, s.work.slots); ok {
		return sq, true
	}
	s.k.NodePsi(i, a, d, &s.work.acc)
	s.work.acc.Flush(&s.work.psi)
	return s.work.psi.NormSq(), false
}

// direction computes the step of block b at the current iterate without
// taking it: the reparameterized scores theta of lines 5 and 10 (the
// block's gradient, up to 1/M), their maximizer s (lines 6, 11), d = e_s -
// mu, and the step size of lines 7 and 12 (see the package documentation).
// The move it returns is the solver's scratch (work.mv), valid until the
// next call.
func (s *Solver) direction(b int) *move {
	i, a := s.block(b)
	g := s.m.Graph(i)
	n := g.States(a)
	off := s.muOff[i] + g.TableOffset(a)
	mu := s.mu[off : off+n]
	th := s.k.Reparam(i, a, s.w, s.delta[s.deltaOff[i]:s.deltaOff[i+1]], s.work.theta)
	th = th[:len(mu)]
	top := th[0]
	for _, v := range th[1:] {
		top = max(top, v)
	}
	best := 0 // the first maximizer (0 if a score is NaN)
	for y, v := range th {
		if v == top {
			best = y
			break
		}
	}
	var num float64
	d := s.work.dir[:len(mu)]
	for y, v := range mu {
		d[y] = -v
		num += v * (top - th[y]) // every term >= 0
	}
	d[best]++
	mv := &s.work.mv
	*mv = move{i: i, a: a, s: best, num: num}
	if !(mv.num > 0) {
		return mv // mu already sits on a maximizer: gamma = 0
	}
	mv.psiSq, mv.slots = s.psiNormSq(i, a, d)
	if lay := s.k.Layout(i); a < g.NumVars() {
		mv.agree = float64(len(lay.VarDeltas(a))) * normSq(d)
	} else {
		mg := s.work.marg[:lay.FactorDeltaLen(a)]
		lay.MarginalizeScope(a, d, mg)
		mv.agree = normSq(mg)
	}
	mv.gamma = s.stepSize(mv.num, mv.psiSq, mv.agree)
	return mv
}

// stepSize returns the maximizer over [0, 1] of f_rho(mu + gamma d): the
// slope theta^T d / M over the curvature |P|^2/(lambda M^2) + K/(rho M^2)
// (Alg. 1, lines 7 and 12, with the scalings of eq. 3 and 5), computed as
// M theta^T d / (|P|^2/lambda + K/rho), and 1 when f_rho is linear and
// increasing along d.
func (s *Solver) stepSize(num, psiSq, agree float64) float64 {
	curv := psiSq*s.invLambda + agree*s.invRho
	if !(curv > 0) {
		if num > 0 {
			return 1
		}
		return 0
	}
	return core.LineSearch(num*float64(s.nEx), curv, 1)
}

// apply takes the step mv (Alg. 1, line 14) and updates w and delta in
// place (line 15, App. D): w += gamma/(lambda M) P, and for a variable i
// delta_ci -= gamma/(rho M) d in every factor c of i, for a factor c
// delta_ci += gamma/(rho M) A_ci d for every variable i of c.
func (s *Solver) apply(mv *move) {
	g := s.m.Graph(mv.i)
	n := g.States(mv.a)
	off := s.muOff[mv.i] + g.TableOffset(mv.a)
	mu := s.mu[off : off+n]
	d := s.work.dir[:n]
	gamma := mv.gamma
	if gamma == 1 {
		clear(mu)
		mu[mv.s] = 1
	} else {
		for y, v := range d {
			mu[y] += gamma * v
		}
	}
	M := float64(s.nEx)
	if mv.slots {
		s.k.AddPsiSlots(mv.i, mv.a, s.work.slots, gamma/(s.cfg.Lambda*M), s.w)
	} else {
		s.work.psi.AddTo(s.w, gamma/(s.cfg.Lambda*M))
	}
	delta := s.delta[s.deltaOff[mv.i]:s.deltaOff[mv.i+1]]
	scale := gamma / (s.cfg.Rho * M)
	lay := s.k.Layout(mv.i)
	if mv.a < g.NumVars() {
		for _, o := range lay.VarDeltas(mv.a) {
			dd := delta[o:]
			for y, v := range d {
				dd[y] -= scale * v
			}
		}
		return
	}
	mg := s.work.marg[:lay.FactorDeltaLen(mv.a)]
	dd := delta[lay.DeltaOffset(mv.a, 0):]
	dd = dd[:len(mg)]
	for r, x := range mg {
		dd[r] += scale * x
	}
}

func normSq(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return s
}
