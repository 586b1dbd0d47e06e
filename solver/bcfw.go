package solver

import (
	"math"

	"github.com/fwstruct/fwstruct/oracles"
)

// corner is the FW or away corner of a step: psi_i(y), L_i(y), |psi|^2 and
// H_i(y; w); entry is its position in the block's corner set (-1 if the
// block keeps no set).
type corner struct {
	psi   oracles.SparseVec
	loss  float64
	norm  float64
	h     float64
	entry int
}

// bcfwStep performs one block step of BCFW with the configured sampling,
// step type and cache: Lacoste-Julien et al. (2013) Alg. 4 and Osokin et al.
// (2016) Alg. 2 (gap sampling), Alg. 3 (pairwise), Alg. 4 (away), Alg. 5
// (cache) and Alg. 9 (box constraints).
//
// The block's part of the dual is held either as the dense vector v_i (FW
// steps) or, with pairwise and away steps, as its explicit sparse dual
// variables over the corners of the block; see blockBase and blockDistSq.
func (s *Solver) bcfwStep() {
	i := s.samp.next(s.rng)
	n := float64(s.n)
	var set *cornerSet
	if s.sets != nil {
		set = &s.sets[i]
		s.cornerScores(set)
	}
	// g = base + H_s/n is the block gap in the direction of any corner s
	// (Osokin et al. 2016, eq. 7): lambda <v_i - v_s, w> - ell_i + ell_s.
	base := s.blockBase(i, set)
	fwc, hit := s.cacheLookup(i, set, base)
	if !hit {
		fwc = s.oracleCorner(i, set)
		s.setGapEstimate(i, base+fwc.h/n)
	}
	g := base + fwc.h/n

	switch s.cfg.Step {
	case FWStep:
		s.fwMove(i, set, fwc, g)
	case Pairwise:
		s.pairwiseMove(i, set, fwc, s.awayCorner(set))
	case Away:
		a := s.awayCorner(set)
		if gA := -base - a.h/n; g > gA {
			s.fwMove(i, set, fwc, g)
		} else {
			s.awayMove(i, set, a, gA)
		}
	}
	if set != nil {
		if s.cfg.Cache.Enabled {
			set.evict(s.cfg.Cache.MaxSize)
		} else {
			set.dropInactive()
		}
	}
	if s.avg != nil {
		s.avg.update(s.v, s.ell)
	}
	s.steps++
}

// setGapEstimate records the new stale gap of block i.
func (s *Solver) setGapEstimate(i int, g float64) {
	s.est.replace(s.gapEst[i], g)
	s.gapEst[i] = g
	s.samp.setGap(i, g)
}

// cornerScores computes H_i(y; w) = L_i(y) - <w, psi_i(y)> for every corner
// of the set into work.h.
func (s *Solver) cornerScores(set *cornerSet) {
	h := s.work.h[:0]
	for k := range set.entries {
		psi := set.psi(k)
		h = append(h, set.entries[k].loss-psi.Dot(s.w))
	}
	s.work.h = h
}

// blockBase returns lambda <v_i, w> - ell_i at the current w: from the dense
// v_i, or with explicit duals as -(1/n) sum_c alpha_c H_i(c; w) from the
// corner scores in work.h.
func (s *Solver) blockBase(i int, set *cornerSet) float64 {
	if s.blk != nil {
		return s.lambda*s.blk.dot(i, s.w) - s.ellI[i]
	}
	var sum float64
	for k := range set.entries {
		sum += set.entries[k].alpha * s.work.h[k]
	}
	return -sum / float64(s.n)
}

// blockBaseAt is blockBase at any w, safe for concurrent use.
func (s *Solver) blockBaseAt(i int, w []float64) float64 {
	if s.blk != nil {
		return s.lambda*s.blk.dot(i, w) - s.ellI[i]
	}
	set := &s.sets[i]
	var sum float64
	for k := range set.entries {
		if e := &set.entries[k]; e.alpha > 0 {
			psi := set.psi(k)
			sum += e.alpha * (e.loss - psi.Dot(w))
		}
	}
	return -sum / float64(s.n)
}

// blockDistSq returns |v_i - v_c|^2 with v_c = psi_c/(lambda n): from the
// dense v_i, or with explicit duals from the Gram matrix as
// sigma^2 (alpha^T G alpha - 2 (G alpha)_c + G_cc).
func (s *Solver) blockDistSq(i int, set *cornerSet, c corner) float64 {
	sigma := 1 / (s.lambda * float64(s.n))
	if s.blk != nil {
		return s.blk.norm[i] - 2*sigma*s.blk.dotSparse(i, &c.psi) + sigma*sigma*c.norm
	}
	var aga, gac float64
	for a := range set.entries {
		alpha := set.entries[a].alpha
		if alpha == 0 {
			continue
		}
		gac += alpha * set.g(a, c.entry)
		for b := range set.entries {
			aga += alpha * set.entries[b].alpha * set.g(a, b)
		}
	}
	return sigma * sigma * (aga - 2*gac + set.g(c.entry, c.entry))
}

// cacheLookup returns the best cached corner and whether it passes the
// cache-hit test g_hat >= max(F g_i(k_i), nu/n g(k_0)) (Osokin et al. 2016,
// Alg. 5, lines 7-11).
func (s *Solver) cacheLookup(i int, set *cornerSet, base float64) (corner, bool) {
	if !s.cfg.Cache.Enabled {
		return corner{}, false
	}
	best := 0
	for k, h := range s.work.h {
		if h > s.work.h[best] {
			best = k
		}
	}
	n := float64(s.n)
	gHat := base + s.work.h[best]/n
	threshold := math.Max(s.cfg.Cache.F*s.gapEst[i], s.cfg.Cache.Nu/n*s.globalGap)
	if !(gHat >= threshold) {
		s.misses++
		return corner{}, false
	}
	s.hits++
	set.entries[best].lastUse = s.steps
	return s.setCorner(set, best), true
}

// setCorner returns entry k of the set as a corner with its score.
func (s *Solver) setCorner(set *cornerSet, k int) corner {
	e := &set.entries[k]
	return corner{psi: set.psi(k), loss: e.loss, norm: e.normSq, h: s.work.h[k], entry: k}
}

// oracleCorner calls the max oracle and returns its corner, inserting it
// into the block's set when there is one.
func (s *Solver) oracleCorner(i int, set *cornerSet) corner {
	var h float64
	s.work.y, h = s.p.MaxOracle(i, s.w, s.work.y)
	s.calls++
	y := s.work.y
	if set == nil {
		s.p.Psi(i, y, &s.work.psi)
		norm := s.work.psi.NormSq()
		s.observeRadius(i, norm)
		return corner{psi: s.work.psi, loss: s.p.Loss(i, y), norm: norm, h: h, entry: -1}
	}
	k := set.find(y, oracles.HashLabeling(y))
	if k < 0 {
		s.p.Psi(i, y, &s.work.psi)
		k = set.add(y, &s.work.psi, s.p.Loss(i, y), s.steps, s.work.dense)
		s.work.h = append(s.work.h, h)
		s.observeRadius(i, set.entries[k].normSq)
	}
	set.entries[k].lastUse = s.steps
	c := s.setCorner(set, k)
	c.h = h
	return c
}

func (s *Solver) observeRadius(i int, normSq float64) {
	if normSq > s.rSq[i] {
		s.rSq[i] = normSq
	}
}

// awayCorner returns the active corner with the smallest H_i(y; w)
// (Osokin et al. 2016, Alg. 3, line 8).
func (s *Solver) awayCorner(set *cornerSet) corner {
	best := -1
	for k := range set.entries {
		if set.entries[k].alpha > 0 && (best < 0 || s.work.h[k] < s.work.h[best]) {
			best = k
		}
	}
	return s.setCorner(set, best)
}

// moveBlock sets v_i <- scale v_i + ca psi_a + cb psi_b (b may be the zero
// corner) in the block's representation and applies the same change to v,
// and to w = [v] on the box. With explicit duals it reads the masses before
// the move, so the caller updates them afterwards.
func (s *Solver) moveBlock(i int, set *cornerSet, scale float64, a corner, ca float64, b corner, cb float64) {
	box := s.cfg.Box
	if s.blk != nil {
		s.blk.scaleBy(i, scale, s.v)
		s.blk.addSparse(i, ca, &a.psi, a.norm, s.v)
		s.blk.addSparse(i, cb, &b.psi, b.norm, s.v)
		if box != nil {
			if scale != 1 {
				box.clipAll(s.w, s.v)
			} else {
				box.clipAt(s.w, s.v, a.psi.Idx)
				box.clipAt(s.w, s.v, b.psi.Idx)
			}
		}
		return
	}
	if scale != 1 {
		f := (scale - 1) / (s.lambda * float64(s.n))
		for k := range set.entries {
			if alpha := set.entries[k].alpha; alpha > 0 {
				psi := set.psi(k)
				psi.AddTo(s.v, f*alpha)
				if box != nil {
					box.clipAt(s.w, s.v, psi.Idx)
				}
			}
		}
	}
	a.psi.AddTo(s.v, ca)
	b.psi.AddTo(s.v, cb)
	if box != nil {
		box.clipAt(s.w, s.v, a.psi.Idx)
		box.clipAt(s.w, s.v, b.psi.Idx)
	}
}

// fwMove performs the Frank-Wolfe step v_i <- (1-gamma) v_i + gamma v_s with
// the block gap g as numerator of the line search.
func (s *Solver) fwMove(i int, set *cornerSet, c corner, g float64) {
	n := float64(s.n)
	sigma := 1 / (s.lambda * n) // v_s = sigma psi_s
	var gamma float64
	if s.cfg.StepSize == Predefined {
		gamma = 2 * n / (float64(s.steps) + 2*n)
	} else {
		gamma = lineSearch(g, s.lambda*s.blockDistSq(i, set, c), 1)
	}
	if gamma == 0 {
		return
	}
	s.moveBlock(i, set, 1-gamma, c, gamma*sigma, corner{}, 0)
	ellOld := s.ellI[i]
	s.ellI[i] = (1-gamma)*ellOld + gamma*c.loss/n
	s.ell += s.ellI[i] - ellOld
	if s.cfg.explicitDuals() {
		for k := range set.entries {
			e := &set.entries[k]
			if gamma == 1 {
				e.alpha = 0
			} else {
				e.alpha *= 1 - gamma
			}
		}
		set.entries[c.entry].alpha += gamma
	}
}

// pairwiseMove moves mass from the away corner a to the FW corner c
// (Osokin et al. 2016, Alg. 3, lines 10-21).
func (s *Solver) pairwiseMove(i int, set *cornerSet, c, a corner) {
	if c.entry == a.entry {
		return
	}
	n := float64(s.n)
	sigma := 1 / (s.lambda * n)
	num := (c.h - a.h) / n // lambda <v_a - v_s, w> + ell_s - ell_a
	dist := set.g(c.entry, c.entry) + set.g(a.entry, a.entry) - 2*set.g(c.entry, a.entry)
	denom := s.lambda * sigma * sigma * math.Max(dist, 0)
	alphaA := set.entries[a.entry].alpha
	gamma := lineSearch(num, denom, alphaA)
	if gamma == 0 {
		return
	}
	s.moveBlock(i, set, 1, c, gamma*sigma, a, -gamma*sigma)
	dEll := gamma * (c.loss - a.loss) / n
	s.ellI[i] += dEll
	s.ell += dEll
	set.entries[c.entry].alpha += gamma
	if gamma == alphaA {
		set.entries[a.entry].alpha = 0 // drop step
		s.drops++
	} else {
		set.entries[a.entry].alpha = alphaA - gamma
	}
}

// awayMove performs the away step v_i <- (1+gamma) v_i - gamma v_a
// (Osokin et al. 2016, Alg. 4, lines 19-22) with gA as numerator.
func (s *Solver) awayMove(i int, set *cornerSet, a corner, gA float64) {
	n := float64(s.n)
	sigma := 1 / (s.lambda * n)
	alphaA := set.entries[a.entry].alpha
	if set.active() == 1 || alphaA >= 1 {
		return // the block sits on the away corner: the direction is zero
	}
	maxStep := alphaA / (1 - alphaA)
	gamma := lineSearch(gA, s.lambda*s.blockDistSq(i, set, a), maxStep)
	if gamma == 0 {
		return
	}
	s.moveBlock(i, set, 1+gamma, a, -gamma*sigma, corner{}, 0)
	ellOld := s.ellI[i]
	s.ellI[i] = (1+gamma)*ellOld - gamma*a.loss/n
	s.ell += s.ellI[i] - ellOld
	for k := range set.entries {
		set.entries[k].alpha *= 1 + gamma
	}
	if gamma == maxStep {
		set.entries[a.entry].alpha = 0 // drop step
		s.drops++
	} else {
		set.entries[a.entry].alpha -= gamma
	}
}

// lineSearch returns num/denom clipped to [0, max]. A non-positive
// numerator (no descent) or denominator (a direction of numerically zero
// length, along which the objective cannot change) gives 0.
func lineSearch(num, denom, max float64) float64 {
	if !(num > 0) || !(denom > 0) {
		return 0
	}
	if gamma := num / denom; gamma < max {
		return gamma
	}
	return max
}
