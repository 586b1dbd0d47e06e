package solver

import (
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/fwstruct/fwstruct/oracles"
)

// DefaultCPCache is the default size of the constraint cache of the
// cutting-plane method (CuttingPlane.Cache): the labelings an example keeps,
// SVM^struct's default.
const DefaultCPCache = 5

// cpCachedTol is the tolerance of the QP after a plane from the cache,
// relative to the plane's gap g_c: a cached plane is a cheap cut that
// others follow, so the QP is solved loosely in between (the Frank-Wolfe
// step towards the plane, which gives the progress, is made in full), and
// to CuttingPlane.Tol once the cache has no more planes to give.
const cpCachedTol = 0.1

// maxCachedPlanes bounds the planes one iteration takes from the constraint
// cache (a safeguard: each of them raises the dual by a finite amount, so
// the chain ends by itself).
const maxCachedPlanes = 1000

// cpCacheScratch is what the cached passes of the constraint cache reuse.
type cpCacheScratch struct {
	best []int     // the most violated cached labeling of every example (-1: the ground truth)
	h    []float64 // its H_i(y; w)
}

// cacheLabelings puts the labelings of an oracle pass into the examples'
// constraint caches: every labeling other than the ground truth enters its
// example's cache (unless held already) as the most recently used, and the
// least recently used ones leave a cache beyond CuttingPlane.Cache labelings.
func (s *Solver) cacheLabelings(p *batchPass) {
	use := int64(s.cp.m())
	for i := range s.sets {
		y := p.ys[i]
		if p.psis[i].Len() == 0 && p.loss[i] == 0 {
			continue // the ground truth (or a labeling with its psi and loss): the starting vertex has it
		}
		set := &s.sets[i]
		k := set.find(y, oracles.HashLabeling(y))
		if k < 0 {
			k = set.add(y, &p.psis[i], p.loss[i], use, s.work.dense)
		}
		set.entries[k].lastUse = use
		set.evict(s.cfg.CPCache)
	}
}

// cachedPlanes adds planes from the constraint cache after an iteration's
// oracle pass, as SVM^struct's 1-slack algorithm with its constraint
// cache does (Joachims, Finley and Yu 2009, Alg. 3, the separation oracle
// replaced by the cache while the cache finds a violated enough joint
// constraint). The cached vertex at w takes for every example its most
// violated cached labeling (the ground truth when none is violated); its
// Frank-Wolfe gap
//
//	g_c = lambda <v, w> - ell + 1/n sum_i max_{y in cache_i} H_i(y; w)
//
// is the violation of the joint constraint in excess of the slack (the
// QP's planes are solved to CPTol). While g_c exceeds a tenth of the gap
// of the last oracle pass (SVM^struct's epsilon estimate / 10) and the
// rounding error of its terms, the cached
// plane joins the working set and the QP is solved again, without an
// oracle call. The caller sets w from the planes afterwards; v holds w
// on entry (the solver's w, which has no box) and on return.
//
// A cached plane is a vertex of the dual domain like any other, so the
// optimum does not change, and since no gap is claimed from the cache (the
// certificates come from the oracle passes only), nor does the
// certificate.
func (s *Solver) cachedPlanes(v []float64, lastGap float64) error {
	c, cc := s.cp, &s.cpCache
	if cc.best == nil {
		cc.best, cc.h = make([]int, s.n), make([]float64, s.n)
	}
	n := float64(s.n)
	threshold := lastGap / 10
	added := false
	defer func() {
		if added { // the iteration ends with the QP solved as CPTol asks
			c.solve(s.lambda, s.cfg.CPTol*math.Max(lastGap, 0), 1000+100*c.m())
			c.retire()
			s.ell = c.weights(s.lambda, v)
		}
	}()
	for k := 0; k < maxCachedPlanes; k++ {
		err := s.parallel(func(_ *workerScratch, i int) error {
			set := &s.sets[i]
			best, bh := -1, 0.0
			for e := range set.entries {
				psi := set.psi(e)
				if h := set.entries[e].loss - psi.Dot(v); h > bh {
					best, bh = e, h
				}
			}
			cc.best[i], cc.h[i] = best, bh
			return nil
		})
		if err != nil {
			return err
		}
		reg, sumH := s.lambda*floats.Dot(v, v), floats.Sum(cc.h)/n
		gc := reg - s.ell + sumH
		// A gap within the rounding error of its terms is no violation.
		if !(gc > threshold) || !(gc > 1e-12*(reg+math.Abs(s.ell)+sumH)) {
			return nil
		}
		u := make([]float64, s.d)
		var ell float64
		use := int64(c.m())
		for i, best := range cc.best {
			if best < 0 {
				continue
			}
			set := &s.sets[i]
			psi := set.psi(best)
			psi.AddTo(u, 1/n)
			ell += set.entries[best].loss / n
			set.entries[best].lastUse = use
		}
		c.add(u, ell)
		c.solve(s.lambda, cpCachedTol*gc, 1000+100*c.m())
		c.retire()
		s.ell = c.weights(s.lambda, v)
		s.hits++
		added = true
	}
	return nil
}
