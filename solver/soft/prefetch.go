package soft

import (
	"math/rand/v2"

	"github.com/fwstruct/fwstruct/solver/run"
)

// lookahead knows the blocks the sampler draws next when the draws do not
// depend on the state (uniform sampling: one IntN of the generator each),
// so that steps can read those blocks' state early. A pass of Alg. 1
// visits random blocks spread over megabytes of state, and without it most
// of a step's time is memory latency, one dependent cache miss after
// another. Every aheadBatch steps, prefetch reads the state of the blocks
// of steps aheadBatch+1 to 2*aheadBatch ahead, all at once: their misses
// overlap with each other (memory-level parallelism) and are served before
// those steps. The draws come from a copy of the generator: the lookahead
// never changes the trajectory.
type lookahead struct {
	on   bool
	pcg  rand.PCG
	rng  *rand.Rand
	left int     // steps until the next batch (ExamplePermutation: the next example)
	sink float64 // keeps the early reads

	byExample bool // ExamplePermutation: read the next example's state
}

// aheadBatch is the number of blocks read early at once.
const aheadBatch = 8

// initLookahead enables the lookahead for the sampling kinds it can
// predict.
func (s *Solver) initLookahead() {
	s.ahead.on = s.cfg.Sampling == run.Uniform
	s.ahead.byExample = s.cfg.Sampling == run.ExamplePermutation
	s.ahead.rng = rand.New(&s.ahead.pcg)
}

// prefetch is called after every draw of the sampler. Under uniform
// sampling, every aheadBatch calls it reads the state of the blocks of the
// next batch but one; under ExamplePermutation, when the draw enters a new
// example, it reads the whole state of the example after it.
func (s *Solver) prefetch() {
	if s.ahead.byExample {
		s.prefetchNextExample()
		return
	}
	if !s.ahead.on {
		return
	}
	if s.ahead.left > 0 {
		s.ahead.left--
		return
	}
	s.ahead.left = aheadBatch - 1
	s.ahead.pcg = *s.pcg
	var v float64
	for k := 0; k < 2*aheadBatch; k++ {
		b := s.ahead.rng.IntN(s.blocks)
		if k >= aheadBatch {
			v += s.touch(b)
		}
	}
	s.ahead.sink += v
}

// touch reads the state of block b that a step on it reads: its stale
// gap, its marginals, its example's agreement variables and the model's
// data of the node (nodes.Model.Prefetch).
func (s *Solver) touch(b int) float64 {
	i, a := s.block(b)
	g, lay := s.m.Graph(i), s.k.Layout(i)
	v := s.gapEst[b] + s.mu[s.muOff[i]+g.TableOffset(a)]
	delta := s.delta[s.deltaOff[i]:s.deltaOff[i+1]]
	if a < g.NumVars() {
		for _, o := range lay.VarDeltas(a) {
			v += delta[o]
		}
	} else {
		for j := range g.Scope(a) {
			v += delta[lay.DeltaOffset(a, j)]
		}
	}
	return v + s.k.Prefetch(i, a)
}

// prefetchNextExample reads, when the last draw entered a new example, the
// state of the example that follows it in the order of the pass (its
// marginals, agreement variables, block gaps and data), so that its cache
// misses overlap with each other and are served while the steps of the
// current example run. At the end of a pass the next order is not drawn
// yet, and nothing is read.
func (s *Solver) prefetchNextExample() {
	if s.ahead.left > 0 {
		s.ahead.left-- // still within the example
		return
	}
	perm, pos, _ := s.samp.State()
	i := s.blockEx[perm[pos-1]]
	n := int(s.blockOff[i+1] - s.blockOff[i])
	s.ahead.left = n - 1
	next := pos - 1 + n
	if next >= len(perm) {
		return
	}
	j := int(s.blockEx[perm[next]])
	var v float64
	for _, part := range [][]float64{
		s.mu[s.muOff[j]:s.muOff[j+1]],
		s.delta[s.deltaOff[j]:s.deltaOff[j+1]],
		s.gapEst[s.blockOff[j]:s.blockOff[j+1]],
	} {
		for k := 0; k < len(part); k += 8 { // a value per cache line
			v += part[k]
		}
	}
	s.ahead.sink += v + s.k.PrefetchExample(j)
}

// syncLookahead sets, after the sampler's order was restored from a
// checkpoint, how many blocks of the current example are still to come,
// so that prefetchNextExample knows where the next example starts.
func (s *Solver) syncLookahead() {
	s.ahead.left = 0
	perm, pos, _ := s.samp.State()
	if !s.ahead.byExample || pos < 1 || pos > len(perm) {
		return
	}
	i := s.blockEx[perm[pos-1]]
	k := pos - 1 // the first position of example i in the order
	for k > 0 && s.blockEx[perm[k-1]] == i {
		k--
	}
	s.ahead.left = k + int(s.blockOff[i+1]-s.blockOff[i]) - pos
}
