package core

import (
	"math/rand/v2"

	"github.com/fwstruct/fwstruct/solver/run"
)

// Distinct draws tau distinct blocks, none of them in exclude, into dst[:0]
// and returns it: the blocks of one mini-batch step (Wang et al. 2016,
// Alg. 1: the server keeps the updates of distinct blocks), exclude being
// the blocks of a batch still under way. It draws as the sampler's kind
// allows: uniform sampling without replacement; the next entries of the
// permutation order (an entry that repeats a block of the batch or of
// exclude is skipped); for gap sampling, unvisited blocks first, then
// proportionally to the gaps without replacement (the weights of the
// drawn and excluded blocks are zeroed while the batch is drawn and
// restored after). tau is capped at n - len(exclude). With tau = 1 and
// nothing excluded it is exactly Next.
func (s *Sampler) Distinct(rng *rand.Rand, tau int, exclude []int, dst []int) []int {
	dst = dst[:0]
	tau = max(1, min(tau, s.n-len(exclude)))
	if tau == 1 && len(exclude) == 0 {
		return append(dst, s.Next(rng))
	}
	in := func(i int) bool {
		for _, j := range dst {
			if j == i {
				return true
			}
		}
		for _, j := range exclude {
			if j == i {
				return true
			}
		}
		return false
	}
	if s.kind == run.GapSampling {
		var saved []float64
		for _, i := range exclude {
			if leaf := s.tree.size + i; s.tree.node[leaf] > 0 {
				saved = append(saved, float64(i), s.tree.node[leaf])
				s.tree.Set(i, 0)
			}
		}
		for len(dst) < tau {
			var i int
			if len(s.unvisited) == 0 && s.tree.Total() <= 0 {
				// every remaining weight is zero: uniformly among the rest.
				for i = rng.IntN(s.n); in(i); i = rng.IntN(s.n) {
				}
			} else {
				i = s.Next(rng)
			}
			if leaf := s.tree.size + i; s.tree.node[leaf] > 0 {
				saved = append(saved, float64(i), s.tree.node[leaf])
				s.tree.Set(i, 0)
			}
			dst = append(dst, i)
		}
		for k := 0; k < len(saved); k += 2 {
			s.tree.Set(int(saved[k]), saved[k+1])
		}
		return dst
	}
	for len(dst) < tau {
		if i := s.Next(rng); !in(i) {
			dst = append(dst, i)
		}
	}
	return dst
}
