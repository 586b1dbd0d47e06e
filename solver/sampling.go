package solver

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// sampler picks the block of the next BCFW step.
type sampler struct {
	kind Sampling
	n    int

	// Permutation: the current order and the position in it.
	perm []int32
	pos  int

	// Gap sampling (Osokin et al. 2016, Alg. 2): blocks not yet visited have
	// an infinite gap estimate and are drawn first, uniformly; the others are
	// drawn proportionally to their last block gap through a sum tree.
	unvisited []int32
	tree      sumTree
}

func newSampler(kind Sampling, n int) *sampler {
	s := &sampler{kind: kind, n: n}
	switch kind {
	case Permutation:
		s.perm = make([]int32, n)
		for i := range s.perm {
			s.perm[i] = int32(i)
		}
		s.pos = n // shuffle on first use
	case GapSampling:
		s.unvisited = make([]int32, n)
		for i := range s.unvisited {
			s.unvisited[i] = int32(i)
		}
		s.tree = newSumTree(n)
	}
	return s
}

// next draws a block.
func (s *sampler) next(rng *rand.Rand) int {
	switch s.kind {
	case Permutation:
		if s.pos >= s.n {
			rng.Shuffle(s.n, func(a, b int) { s.perm[a], s.perm[b] = s.perm[b], s.perm[a] })
			s.pos = 0
		}
		i := s.perm[s.pos]
		s.pos++
		return int(i)
	case GapSampling:
		if m := len(s.unvisited); m > 0 {
			k := rng.IntN(m)
			i := s.unvisited[k]
			s.unvisited[k] = s.unvisited[m-1]
			s.unvisited = s.unvisited[:m-1]
			return int(i)
		}
		if s.tree.total() > 0 {
			return s.tree.sample(rng.Float64())
		}
		return rng.IntN(s.n)
	}
	return rng.IntN(s.n)
}

// setGap records the new gap estimate of block i (gap sampling only).
func (s *sampler) setGap(i int, g float64) {
	if s.kind != GapSampling {
		return
	}
	s.tree.set(i, samplingWeight(g))
}

// refresh replaces every estimate at once, after an exact gap pass.
func (s *sampler) refresh(gaps []float64) {
	if s.kind != GapSampling {
		return
	}
	s.unvisited = s.unvisited[:0]
	for i, g := range gaps {
		if math.IsInf(g, 1) {
			s.unvisited = append(s.unvisited, int32(i))
		}
	}
	s.tree.rebuild(gaps)
}

// samplingWeight maps a block gap to a sampling weight: numerically negative
// gaps count as zero, unvisited blocks are handled outside the tree.
func samplingWeight(g float64) float64 {
	if !(g > 0) || math.IsInf(g, 1) {
		return 0
	}
	return g
}

// sumTree is a complete binary tree over n non-negative weights whose inner
// nodes hold the sums of their leaves: O(log n) updates and draws
// proportional to the weights.
type sumTree struct {
	size int       // number of leaves, a power of two >= n
	node []float64 // node[1] is the root; leaves at node[size+i]
}

func newSumTree(n int) sumTree {
	size := 1
	for size < n {
		size *= 2
	}
	return sumTree{size: size, node: make([]float64, 2*size)}
}

func (t *sumTree) total() float64 { return t.node[1] }

func (t *sumTree) set(i int, w float64) {
	k := t.size + i
	t.node[k] = w
	for k > 1 {
		k /= 2
		t.node[k] = t.node[2*k] + t.node[2*k+1]
	}
}

func (t *sumTree) rebuild(gaps []float64) {
	clear(t.node)
	for i, g := range gaps {
		t.node[t.size+i] = samplingWeight(g)
	}
	for k := t.size - 1; k >= 1; k-- {
		t.node[k] = t.node[2*k] + t.node[2*k+1]
	}
}

// sample returns a leaf drawn with probability proportional to its weight,
// given u uniform in [0, 1). It never returns a zero-weight leaf while the
// total is positive.
func (t *sumTree) sample(u float64) int {
	x := u * t.node[1]
	k := 1
	for k < t.size {
		left, right := t.node[2*k], t.node[2*k+1]
		if (x < left && left > 0) || right <= 0 {
			k = 2 * k
		} else {
			x -= left
			k = 2*k + 1
		}
	}
	return k - t.size
}

// estimateSum maintains sum_i gapEst[i] under point updates: the finite
// part as a running sum and the number of infinite (unvisited) entries.
// reset recomputes it exactly, which the solver does at every gap pass.
type estimateSum struct {
	finite float64
	inf    int
}

func (e *estimateSum) reset(g []float64) {
	e.finite, e.inf = 0, 0
	for _, v := range g {
		if math.IsInf(v, 1) {
			e.inf++
		} else {
			e.finite += v
		}
	}
}

// replace accounts for an entry changing from old to new.
func (e *estimateSum) replace(old, new float64) {
	if math.IsInf(old, 1) {
		e.inf--
	} else {
		e.finite -= old
	}
	if math.IsInf(new, 1) {
		e.inf++
	} else {
		e.finite += new
	}
}

func (e *estimateSum) sum() float64 {
	if e.inf > 0 {
		return math.Inf(1)
	}
	return e.finite
}

// restore sets the sampler's state from a checkpoint, checking it.
func (s *sampler) restore(c *checkpoint, gapEst []float64) error {
	switch s.kind {
	case Permutation:
		if err := needLen("permutation", len(c.Perm), s.n); err != nil {
			return err
		}
		seen := make([]bool, s.n)
		for _, i := range c.Perm {
			if i < 0 || int(i) >= s.n || seen[i] {
				return errors.New("solver: load: corrupt checkpoint: the sampling order is not a permutation")
			}
			seen[i] = true
		}
		if c.PermPos < 0 || c.PermPos > s.n {
			return fmt.Errorf("solver: load: corrupt checkpoint: position %d in a permutation of %d", c.PermPos, s.n)
		}
		copy(s.perm, c.Perm)
		s.pos = c.PermPos
	case GapSampling:
		seen := make([]bool, s.n)
		for _, i := range c.Unvisited {
			if i < 0 || int(i) >= s.n || seen[i] {
				return errors.New("solver: load: corrupt checkpoint: bad list of unvisited blocks")
			}
			seen[i] = true
		}
		s.tree.rebuild(gapEst)
		s.unvisited = append(s.unvisited[:0], c.Unvisited...)
	}
	return nil
}
