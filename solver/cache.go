package solver

import "math"

// cacheLookup sets c to the best cached corner and reports whether it
// passes the cache-hit test g_hat >= max(F g_i(k_i), nu/n g(k_0)) (Osokin et
// al. 2016, Alg. 5, lines 7-11). The scores of the set are in work.h.
func (s *Solver) cacheLookup(i int, set *cornerSet, base float64, c *corner) bool {
	if !s.cfg.Cache.Enabled {
		return false
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
		return false
	}
	s.hits++
	set.entries[best].lastUse = s.steps
	*c = s.setCorner(set, best)
	return true
}
