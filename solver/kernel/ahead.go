package kernel

import (
	"math/rand/v2"

	"github.com/fwstruct/fwstruct/solver/run"
)

// aheadBlocks is the number of blocks whose kernel rows a step computes at
// once: its own and those of the blocks the next steps are expected to
// visit.
const aheadBlocks = 32

// ahead holds the kernel rows of the blocks the next steps are expected to
// visit, against the support vectors of the time they were computed: one
// kernel block (Kernel.kvRows) for aheadBlocks steps, which reads each
// support vector's input once for all of them, its tiles spread over the
// workers. This is the pure, parallel part of a block step (Lacoste-Julien
// et al. 2013, Alg. B.1: the max oracle of block i is a kernel sum over the
// support vectors); what writes the iterate, the scores at the current
// alpha and the update of alpha_i, stays sequential, step by step in the
// order of the draws (stepScores).
//
// It holds kernel values only, which depend on the inputs and nothing
// else: a row is never stale. A support vector that joined after the rows
// were computed gets its value computed by the step, and the guess of the
// next blocks (upcoming) may be wrong (a gap pass reshuffles the active set
// of shrinking; gap sampling draws from the gaps the steps leave, so it
// guesses nothing): a wrong guess costs time, never a result. Nothing of
// it is saved.
type ahead struct {
	blocks []int32   // the blocks whose rows are held
	sv     []int32   // the support vectors the rows were computed against
	vals   []float64 // len(blocks) rows of len(sv) kernel values
	pos    []int32   // example j -> its position in sv, valid when stamp[j] == gen
	stamp  []uint32
	gen    uint32

	blocksComputed int64 // the rows computed (tests and benchmarks: how well upcoming guesses)
	off            bool  // tests: no lookahead, every value computed by the step
}

// row returns the kernel row of block i, or nil when there is none.
func (a *ahead) row(i int) []float64 {
	for k, b := range a.blocks {
		if int(b) == i {
			return a.vals[k*len(a.sv) : (k+1)*len(a.sv)]
		}
	}
	return nil
}

// at returns the position of support vector j in the rows' list, or -1.
func (a *ahead) at(j int32) int32 {
	if a.stamp[j] != a.gen {
		return -1
	}
	return a.pos[j]
}

// aheadRow returns the kernel row of block i against ahead.sv: the row
// held, or else a new kernel block for i and the blocks the next steps are
// expected to visit (upcoming). It returns nil when cached (the row cache
// holds the row of block i: the step reads it and computes the values it
// lacks one by one) or the lookahead is off.
func (s *Solver) aheadRow(i int, cached bool) []float64 {
	a := &s.ahead
	if r := a.row(i); r != nil {
		return r
	}
	if cached || a.off {
		return nil
	}
	if a.stamp == nil {
		a.pos, a.stamp = make([]int32, s.n), make([]uint32, s.n)
	}
	a.blocks = s.upcoming(i, a.blocks[:0])
	a.sv = append(a.sv[:0], s.sv.list...)
	if a.gen++; a.gen == 0 { // after 2^32 kernel blocks, the stamps start over
		clear(a.stamp)
		a.gen = 1
	}
	for p, j := range a.sv {
		a.pos[j], a.stamp[j] = int32(p), a.gen
	}
	need := len(a.blocks) * len(a.sv)
	if cap(a.vals) < need {
		a.vals = make([]float64, need)
	}
	a.vals = a.vals[:need]
	s.cfg.Kernel.kvRows(s.in, a.sv, s.in, a.blocks, a.vals, s.scratch())
	a.blocksComputed += int64(len(a.blocks))
	return a.vals[:len(a.sv)]
}

// upcoming appends block i, the block of the step under way, and the
// blocks the next steps are expected to visit to dst, up to aheadBlocks in
// all, without changing any state: the rest of the sweep of shrinking's
// active set or of the permutation, or the next uniform draws (from a copy
// of the random state). Blocks whose row the row cache holds are left out
// (their steps read the cache). Gap sampling adds none.
func (s *Solver) upcoming(i int, dst []int32) []int32 {
	dst = append(dst, int32(i))
	add := func(j int32) {
		if !s.cache.holds(int(j)) {
			dst = append(dst, j)
		}
	}
	switch {
	case s.cfg.Shrinking:
		for _, j := range s.active.Active[s.active.Pos:] {
			if len(dst) == aheadBlocks {
				break
			}
			add(j)
		}
	case s.cfg.Sampling == run.Permutation:
		perm, pos, _ := s.samp.State()
		for _, j := range perm[pos:] {
			if len(dst) == aheadBlocks {
				break
			}
			add(j)
		}
	case s.cfg.Sampling == run.Uniform:
		pcg := *s.pcg
		rng := rand.New(&pcg)
		for k := 1; k < aheadBlocks; k++ {
			add(int32(rng.IntN(s.n)))
		}
	}
	return dst
}

// stepScores writes <w, phi(x_i, c)> = 1/(lambda n) sum_{j in sv}
// beta_j(c) k(x_j, x_i) for every class c into dst, at the current alpha,
// summing over the support vectors in their order. A kernel value comes
// from block i's cache row (row, when it holds it), else from its
// lookahead row (pre, aheadRow) or is computed here; the values are the
// same (but for a float32 cache row), so neither the cache nor the
// lookahead changes a result. A value missing from the cache row is
// stored in it.
func (s *Solver) stepScores(i int, row cacheRow, pre []float64, dst []float64) {
	clear(dst)
	kk := s.k
	for _, j := range s.sv.list {
		var kv float64
		ok := false
		if !row.none() {
			if kv, ok = row.at(j); ok {
				s.cache.hits++
			}
		}
		if !ok {
			p := int32(-1)
			if pre != nil {
				p = s.ahead.at(j)
			}
			if p >= 0 {
				kv = pre[p]
			} else {
				kv = s.cfg.Kernel.between(s.in, int(j), s.in, i)
			}
			if !row.none() {
				row.put(j, kv)
				s.cache.misses++
			}
		}
		addTerm(dst, s.alpha[int(j)*kk:int(j+1)*kk], s.in.y[j], kv)
	}
	s.scale(dst)
}
