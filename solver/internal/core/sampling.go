package core

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/fwstruct/fwstruct/solver/run"
)

// Sampler picks the block of the next step.
type Sampler struct {
	kind run.Sampling
	n    int

	// Permutation: the current order and the position in it.
	perm []int32
	pos  int

	// ExamplePermutation: group g holds the blocks groups[g] to
	// groups[g+1]-1; order is the scratch of the groups' order.
	groups []int32
	order  []int32

	// Gap sampling (Osokin et al. 2016, Alg. 2): blocks not yet visited have
	// an infinite gap estimate and are drawn first, uniformly (or, with
	// inOrder, in index order: then unvisited is kept in decreasing order
	// and drawn from its end); the others are drawn proportionally to their
	// last block gap through a sum tree.
	unvisited []int32
	inOrder   bool
	tree      SumTree
}

// NewSampler returns a sampler of the given kind over n blocks.
// run.ExamplePermutation visits the blocks of a group (SetGroups) one after
// another: the groups in a fresh random order every pass, the blocks of
// each in a fresh random order; without groups it is run.Permutation.
func NewSampler(kind run.Sampling, n int) *Sampler {
	s := &Sampler{kind: kind, n: n}
	switch kind {
	case run.Permutation, run.ExamplePermutation:
		s.perm = make([]int32, n)
		for i := range s.perm {
			s.perm[i] = int32(i)
		}
		s.pos = n // shuffle on first use
	case run.GapSampling:
		s.unvisited = make([]int32, n)
		for i := range s.unvisited {
			s.unvisited[i] = int32(i)
		}
		s.tree = NewSumTree(n)
	}
	return s
}

// Next draws a block.
func (s *Sampler) Next(rng *rand.Rand) int {
	switch s.kind {
	case run.Permutation, run.ExamplePermutation:
		if s.pos >= s.n {
			s.shuffle(rng)
			s.pos = 0
		}
		i := s.perm[s.pos]
		s.pos++
		return int(i)
	case run.GapSampling:
		if m := len(s.unvisited); m > 0 {
			i := s.unvisited[m-1] // inOrder: the smallest
			if !s.inOrder {
				k := rng.IntN(m)
				i, s.unvisited[k] = s.unvisited[k], i
			}
			s.unvisited = s.unvisited[:m-1]
			return int(i)
		}
		if s.tree.Total() > 0 {
			return s.tree.Sample(rng.Float64())
		}
		return rng.IntN(s.n)
	}
	return rng.IntN(s.n)
}

// DrawUnvisitedInOrder makes a gap sampler draw the blocks that have no
// gap estimate yet (+Inf) in increasing index order, without a random
// draw, instead of uniformly at random: the first pass then visits the
// blocks in the order of the data, as the reference code of Osokin et
// al. (gapBCFW) does (its weighted draw over infinite weights picks the
// first infinite one). Alg. 2 draws proportionally to g_i = +Inf, which
// leaves the order among such blocks open. It must be called before the
// first draw; other samplers ignore it.
func (s *Sampler) DrawUnvisitedInOrder() {
	if s.kind != run.GapSampling {
		return
	}
	s.inOrder = true
	s.sortUnvisited()
}

// sortUnvisited puts the unvisited blocks in decreasing order (inOrder
// only), so that Next draws the smallest from the end.
func (s *Sampler) sortUnvisited() {
	if s.inOrder {
		slices.SortFunc(s.unvisited, func(a, b int32) int { return cmp.Compare(b, a) })
	}
}

// SetGroups makes a run.ExamplePermutation sampler keep the blocks of a group
// together: group g holds the blocks off[g] to off[g+1]-1 (off increasing
// from 0 to n). It must be called before the first draw.
func (s *Sampler) SetGroups(off []int32) error {
	if len(off) < 2 || off[0] != 0 || int(off[len(off)-1]) != s.n {
		return fmt.Errorf("groups of blocks: offsets must run from 0 to %d", s.n)
	}
	for g := 1; g < len(off); g++ {
		if off[g] <= off[g-1] {
			return fmt.Errorf("groups of blocks: group %d is empty or out of order", g-1)
		}
	}
	s.groups = append([]int32(nil), off...)
	s.order = make([]int32, len(off)-1)
	return nil
}

// shuffle draws the order of the next pass: a random permutation of the
// blocks, or for run.ExamplePermutation with groups, the groups in a random
// order, each group's blocks in a random order.
func (s *Sampler) shuffle(rng *rand.Rand) {
	if s.kind != run.ExamplePermutation || s.groups == nil {
		rng.Shuffle(s.n, func(a, b int) { s.perm[a], s.perm[b] = s.perm[b], s.perm[a] })
		return
	}
	for g := range s.order {
		s.order[g] = int32(g)
	}
	rng.Shuffle(len(s.order), func(a, b int) { s.order[a], s.order[b] = s.order[b], s.order[a] })
	k := 0
	for _, g := range s.order {
		lo, hi := s.groups[g], s.groups[g+1]
		p := s.perm[k : k+int(hi-lo)]
		for j := range p {
			p[j] = lo + int32(j)
		}
		rng.Shuffle(len(p), func(a, b int) { p[a], p[b] = p[b], p[a] })
		k += len(p)
	}
}

// SetGap records the new gap estimate of block i (gap sampling only).
func (s *Sampler) SetGap(i int, g float64) {
	if s.kind != run.GapSampling {
		return
	}
	s.tree.Set(i, samplingWeight(g))
}

// Refresh replaces every estimate at once, after an exact gap pass.
func (s *Sampler) Refresh(gaps []float64) {
	if s.kind != run.GapSampling {
		return
	}
	s.unvisited = s.unvisited[:0]
	for i, g := range gaps {
		if math.IsInf(g, 1) {
			s.unvisited = append(s.unvisited, int32(i))
		}
	}
	s.sortUnvisited()
	s.tree.Rebuild(gaps)
}

// samplingWeight maps a block gap to a sampling weight: numerically negative
// gaps count as zero, unvisited blocks are handled outside the tree.
func samplingWeight(g float64) float64 {
	if !(g > 0) || math.IsInf(g, 1) {
		return 0
	}
	return g
}

// SumTree is a complete binary tree over n non-negative weights whose inner
// nodes hold the sums of their leaves: O(log n) updates and draws
// proportional to the weights.
type SumTree struct {
	size int       // number of leaves, a power of two >= n
	node []float64 // node[1] is the root; leaves at node[size+i]
}

// NewSumTree returns a tree of n zero weights.
func NewSumTree(n int) SumTree {
	size := 1
	for size < n {
		size *= 2
	}
	return SumTree{size: size, node: make([]float64, 2*size)}
}

// Total returns the sum of the weights.
func (t *SumTree) Total() float64 { return t.node[1] }

// Set sets the weight of leaf i.
func (t *SumTree) Set(i int, w float64) {
	k := t.size + i
	t.node[k] = w
	for k > 1 {
		k /= 2
		t.node[k] = t.node[2*k] + t.node[2*k+1]
	}
}

// Rebuild sets every weight from the gaps at once.
func (t *SumTree) Rebuild(gaps []float64) {
	clear(t.node)
	for i, g := range gaps {
		t.node[t.size+i] = samplingWeight(g)
	}
	for k := t.size - 1; k >= 1; k-- {
		t.node[k] = t.node[2*k] + t.node[2*k+1]
	}
}

// Sample returns a leaf drawn with probability proportional to its weight,
// given u uniform in [0, 1). It never returns a zero-weight leaf while the
// total is positive.
func (t *SumTree) Sample(u float64) int {
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

// EstimateSum maintains sum_i gapEst[i] under point updates: the finite
// part as a running sum and the number of infinite (unvisited) entries.
// Reset recomputes it exactly, which the solver does at every gap pass.
type EstimateSum struct {
	Finite float64 // the sum of the finite entries
	Inf    int     // the number of infinite entries
}

func (e *EstimateSum) Reset(g []float64) {
	e.Finite, e.Inf = 0, 0
	for _, v := range g {
		if math.IsInf(v, 1) {
			e.Inf++
		} else {
			e.Finite += v
		}
	}
}

// Replace accounts for an entry changing from old to new.
func (e *EstimateSum) Replace(old, new float64) {
	if math.IsInf(old, 1) {
		e.Inf--
	} else {
		e.Finite -= old
	}
	if math.IsInf(new, 1) {
		e.Inf++
	} else {
		e.Finite += new
	}
}

// Sum returns the sum, +Inf while an entry is infinite.
func (e *EstimateSum) Sum() float64 {
	if e.Inf > 0 {
		return math.Inf(1)
	}
	return e.Finite
}

// State returns what a checkpoint must keep of the sampler (the
// permutation and the position in it, or the unvisited blocks); the slices
// are the sampler's own.
func (s *Sampler) State() (perm []int32, pos int, unvisited []int32) {
	return s.perm, s.pos, s.unvisited
}

// Restore sets the sampler's state from a checkpoint, checking it; gaps are
// the block gap estimates (gap sampling).
func (s *Sampler) Restore(perm []int32, pos int, unvisited []int32, gaps []float64) error {
	switch s.kind {
	case run.Permutation, run.ExamplePermutation:
		if len(perm) != s.n {
			return fmt.Errorf("the sampling order has %d entries, want %d", len(perm), s.n)
		}
		seen := make([]bool, s.n)
		for _, i := range perm {
			if i < 0 || int(i) >= s.n || seen[i] {
				return errors.New("the sampling order is not a permutation")
			}
			seen[i] = true
		}
		if pos < 0 || pos > s.n {
			return fmt.Errorf("position %d in a permutation of %d", pos, s.n)
		}
		copy(s.perm, perm)
		s.pos = pos
	case run.GapSampling:
		seen := make([]bool, s.n)
		for _, i := range unvisited {
			if i < 0 || int(i) >= s.n || seen[i] {
				return errors.New("bad list of unvisited blocks")
			}
			seen[i] = true
		}
		if len(gaps) != s.n {
			return fmt.Errorf("%d gap estimates for %d blocks", len(gaps), s.n)
		}
		s.tree.Rebuild(gaps)
		s.unvisited = append(s.unvisited[:0], unvisited...)
		s.sortUnvisited()
	}
	return nil
}
