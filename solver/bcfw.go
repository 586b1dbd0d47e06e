package solver

import (
	"math"

	"github.com/fwstruct/fwstruct/oracles"
)

// corner is the FW or away corner of a step: psi_i(y), L_i(y), |psi|^2, and
// H_i(y; w); entry is its position in the block's corner set (-1 if the
// block keeps no set).
type corner struct {
	psi   *oracles.SparseVec
	loss  float64
	norm  float64
	h     float64
	entry int
}

// bcfwStep performs one block step of BCFW with the configured sampling,
// step type and cache: Lacoste-Julien et al. (2013) Alg. 4 and Osokin et al.
// (2016) Alg. 2 (gap sampling), Alg. 3 (pairwise), Alg. 4 (away), Alg. 5
// (cache) and Alg. 9 (box constraints).
func (s *Solver) bcfwStep() {
	i := s.samp.next(s.rng)
	n := float64(s.n)
	// g = base + H_s/n is the block gap in the direction of any corner s
	// (Osokin et al. 2016, eq. 7): lambda <v_i - v_s, w> - ell_i + ell_s.
	base := s.lambda*s.blk.dot(i, s.w) - s.ellI[i]

	var set *cornerSet
	if s.sets != nil {
		set = &s.sets[i]
		s.cornerScores(set)
	}
	fwc, hit := s.cacheLookup(i, set, base)
	if !hit {
		fwc = s.oracleCorner(i, set)
		s.gapEst[i] = base + fwc.h/n
		s.samp.setGap(i, s.gapEst[i])
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
			set.evict(s.cfg.Cache.MaxSize, -1)
		} else {
			set.dropInactive()
		}
	}
	if s.avg != nil {
		s.avg.update(s.v, s.ell)
	}
	s.steps++
}

// cornerScores computes H_i(y; w) = L_i(y) - <w, psi_i(y)> for every corner
// of the set into work.h.
func (s *Solver) cornerScores(set *cornerSet) {
	h := s.work.h[:0]
	for k := range set.entries {
		c := set.entries[k].c
		h = append(h, c.Loss-c.Psi.Dot(s.w))
	}
	s.work.h = h
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
	e := &set.entries[best]
	e.lastUse = s.steps
	return corner{psi: &e.c.Psi, loss: e.c.Loss, norm: e.c.NormSq, h: s.work.h[best], entry: best}, true
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
		return corner{psi: &s.work.psi, loss: s.p.Loss(i, y), norm: norm, h: h, entry: -1}
	}
	hash := oracles.HashLabeling(y)
	k := set.find(y, hash)
	if k < 0 {
		c := oracles.NewCorner(s.p, i, y)
		k = set.add(c, s.steps)
		s.work.h = append(s.work.h, h)
		s.observeRadius(i, c.NormSq)
	}
	e := &set.entries[k]
	e.lastUse = s.steps
	return corner{psi: &e.c.Psi, loss: e.c.Loss, norm: e.c.NormSq, h: h, entry: k}
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
	e := &set.entries[best]
	return corner{psi: &e.c.Psi, loss: e.c.Loss, norm: e.c.NormSq, h: s.work.h[best], entry: best}
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
		vis := s.blk.dotSparse(i, c.psi)
		denom := s.lambda * (s.blk.norm[i] - 2*sigma*vis + sigma*sigma*c.norm)
		gamma = lineSearch(g, denom, 1)
	}
	if gamma == 0 {
		return
	}
	s.blk.scaleBy(i, 1-gamma, s.v)
	s.blk.addSparse(i, gamma*sigma, c.psi, c.norm, s.v)
	ellOld := s.ellI[i]
	s.ellI[i] = (1-gamma)*ellOld + gamma*c.loss/n
	s.ell += s.ellI[i] - ellOld
	if s.cfg.Box != nil {
		s.cfg.Box.clipAll(s.w, s.v)
	}
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
	dist := c.norm + a.norm - 2*oracles.SparseDot(c.psi, a.psi, s.work.dense)
	denom := s.lambda * sigma * sigma * math.Max(dist, 0)
	alphaA := set.entries[a.entry].alpha
	gamma := lineSearch(num, denom, alphaA)
	if gamma == 0 {
		return
	}
	s.blk.addSparse(i, gamma*sigma, c.psi, c.norm, s.v)
	s.blk.addSparse(i, -gamma*sigma, a.psi, a.norm, s.v)
	dEll := gamma * (c.loss - a.loss) / n
	s.ellI[i] += dEll
	s.ell += dEll
	if s.cfg.Box != nil {
		s.cfg.Box.clipAt(s.w, s.v, c.psi.Idx)
		s.cfg.Box.clipAt(s.w, s.v, a.psi.Idx)
	}
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
	if alphaA >= 1 {
		return // the block sits on the away corner: the direction is zero
	}
	maxStep := alphaA / (1 - alphaA)
	via := s.blk.dotSparse(i, a.psi)
	denom := s.lambda * (s.blk.norm[i] - 2*sigma*via + sigma*sigma*a.norm)
	gamma := lineSearch(gA, denom, maxStep)
	if gamma == 0 {
		return
	}
	s.blk.scaleBy(i, 1+gamma, s.v)
	s.blk.addSparse(i, -gamma*sigma, a.psi, a.norm, s.v)
	ellOld := s.ellI[i]
	s.ellI[i] = (1+gamma)*ellOld - gamma*a.loss/n
	s.ell += s.ellI[i] - ellOld
	if s.cfg.Box != nil {
		s.cfg.Box.clipAll(s.w, s.v)
	}
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

// lineSearch returns num/denom clipped to [0, max]; a non-positive
// numerator gives 0 and a vanishing denominator with a positive numerator
// gives max.
func lineSearch(num, denom, max float64) float64 {
	if !(num > 0) {
		return 0
	}
	if !(denom > 0) {
		return max
	}
	if gamma := num / denom; gamma < max {
		return gamma
	}
	return max
}
