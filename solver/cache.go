package solver

import (
	"math"

	"github.com/fwstruct/fwstruct/solver/run"
)

// cachePolicy is the gap-based cache of Osokin et al. (2016, Alg. 5): every
// step scores the block's cached corners and uses the best one when its
// block gap passes g_hat >= max(F g_i(k_i), nu/n g(k_0)), calling the max
// oracle otherwise; a block keeps its MaxSize most recently used corners
// (and every corner with dual mass).
type cachePolicy struct{ s *Solver }

func (p cachePolicy) scoring() bool { return true }

func (p cachePolicy) corner(i int, set *cornerSet, base float64, c *corner) (bool, error) {
	if hit, ok := p.s.work.given.decision(); ok {
		// Decided ahead at an earlier w (ahead.go): the best cached
		// corner there, or the oracle's answer there.
		if hit {
			p.s.hit(set, bestCorner(p.s.work.h), c)
			return true, nil
		}
		p.s.misses++
		return false, p.s.oracleCorner(i, set, c, base)
	}
	if p.s.cacheLookup(i, set, base, c) {
		return true, nil
	}
	return false, p.s.oracleCorner(i, set, c, base)
}

func (p cachePolicy) stepped(_ int, set *cornerSet) {
	set.evict(p.s.cfg.Cache.MaxSize)
	p.s.x.fold(p.s.ell)
}

func (p cachePolicy) clock() int64              { return p.s.steps }
func (p cachePolicy) settled() bool             { return true }
func (p cachePolicy) describe(pt *run.Point)    { pt.CacheMean = p.s.meanSetSize() }
func (p cachePolicy) rebase(float64)            {}
func (p cachePolicy) save(*checkpoint)          {}
func (p cachePolicy) restore(*checkpoint) error { return nil }

// fork: the cache keeps no multi-plane state.
func (p cachePolicy) fork(c, _ *checkpoint, _ *Solver) { c.MultiPlane = nil }

// cacheLookup sets c to the best cached corner and reports whether it
// passes the cache-hit test g_hat >= max(F g_i(k_i), nu/n g(k_0)) (Osokin et
// al. 2016, Alg. 5, lines 7-11). The scores of the set are in work.h.
func (s *Solver) cacheLookup(i int, set *cornerSet, base float64, c *corner) bool {
	best := bestCorner(s.work.h)
	n := float64(s.n)
	gHat := base + s.work.h[best]/n
	threshold := math.Max(s.cfg.Cache.F*s.gapEst[i], s.cfg.Cache.Nu/n*s.globalGap)
	if !(gHat >= threshold) {
		s.misses++
		return false
	}
	s.hit(set, best, c)
	return true
}

// hit sets c to corner best of the set, a cache hit.
func (s *Solver) hit(set *cornerSet, best int, c *corner) {
	s.hits++
	set.entries[best].lastUse = s.steps
	*c = s.setCorner(set, best)
}
