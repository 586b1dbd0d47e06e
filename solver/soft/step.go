package soft

import "github.com/fwstruct/fwstruct/solver/internal/core"

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
		s.apply(&mv)
	}
	s.steps++
}

// setGapEstimate records the new stale gap of block b.
func (s *Solver) setGapEstimate(b int, g float64) {
	s.est.Replace(s.gapEst[b], g)
	s.gapEst[b] = g
	s.samp.SetGap(b, g)
}

// direction computes the step of block b at the current iterate without
// taking it: the reparameterized scores theta of lines 5 and 10 (the
// block's gradient, up to 1/M), their maximizer s (lines 6, 11), d = e_s -
// mu, and the step size of lines 7 and 12 (see the package documentation).
func (s *Solver) direction(b int) move {
	i, a := s.block(b)
	g := s.m.Graph(i)
	n := g.States(a)
	off := s.muOff[i] + g.TableOffset(a)
	mu := s.mu[off : off+n]
	th := s.m.Reparam(i, a, s.w, s.delta[s.deltaOff[i]:s.deltaOff[i+1]], s.work.theta)
	best := 0
	for y := range th {
		if th[y] > th[best] {
			best = y
		}
	}
	mv := move{i: i, a: a, s: best}
	d := s.work.dir[:n]
	for y, v := range mu {
		d[y] = -v
		mv.num += v * (th[best] - th[y]) // every term >= 0
	}
	d[best]++
	if !(mv.num > 0) {
		return mv // mu already sits on a maximizer: gamma = 0
	}
	s.m.NodePsi(i, a, d, &s.work.acc)
	s.work.acc.Flush(&s.work.psi)
	mv.psiSq = s.work.psi.NormSq()
	if a < g.NumVars() {
		nodes, _ := g.VarFactors(a)
		mv.agree = float64(len(nodes)) * normSq(d)
	} else {
		k := 0
		for j, v := range g.Scope(a) {
			c := g.Card(int(v))
			mg := s.work.marg[k : k+c]
			g.Marginalize(a, j, d, mg)
			mv.agree += normSq(mg)
			k += c
		}
	}
	mv.gamma = s.stepSize(mv.num, mv.psiSq, mv.agree)
	return mv
}

// stepSize returns the maximizer over [0, 1] of f_rho(mu + gamma d): the
// slope theta^T d / M over the curvature |P|^2/(lambda M^2) + K/(rho M^2)
// (Alg. 1, lines 7 and 12, with the scalings of eq. 3 and 5), and 1 when
// f_rho is linear and increasing along d.
func (s *Solver) stepSize(num, psiSq, agree float64) float64 {
	M := float64(s.nEx)
	slope := num / M
	curv := psiSq/(s.cfg.Lambda*M*M) + agree/(s.cfg.Rho*M*M)
	if !(curv > 0) {
		if slope > 0 {
			return 1
		}
		return 0
	}
	return core.LineSearch(slope, curv, 1)
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
	s.work.psi.AddTo(s.w, gamma/(s.cfg.Lambda*M))
	delta := s.delta[s.deltaOff[mv.i]:s.deltaOff[mv.i+1]]
	scale := gamma / (s.cfg.Rho * M)
	if mv.a < g.NumVars() {
		nodes, pos := g.VarFactors(mv.a)
		for k, c := range nodes {
			dd := delta[g.DeltaOffset(int(c), int(pos[k])):]
			for y, v := range d {
				dd[y] -= scale * v
			}
		}
		return
	}
	k := 0
	for j, v := range g.Scope(mv.a) {
		c := g.Card(int(v))
		dd := delta[g.DeltaOffset(mv.a, j):]
		for y, x := range s.work.marg[k : k+c] {
			dd[y] += scale * x
		}
		k += c
	}
}

func normSq(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return s
}
