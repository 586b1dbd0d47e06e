package solver

import (
	"errors"
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// Mini-batch BCFW on shared memory (Wang, Sadhanala, Dai, Neiswanger, Sra
// and Xing 2016, "Parallel and Distributed Block-Coordinate Frank-Wolfe
// Algorithms", ICML; arXiv 1409.6086, Alg. 1 run synchronously): a step
// draws tau distinct blocks, calls their max oracles in parallel against
// one w (the pure part of a block step: it reads the iterate and writes
// nothing shared), then applies the tau block steps one by one, in the
// order the blocks were drawn, on the solver's goroutine. The trajectory
// therefore depends on the seed and tau only, never on the number of
// workers or on timing.
//
// The update. The paper moves along the combined direction
// sum_{i in S} (s_i - x_i) with one step size, the predefined
// gamma_k or a line search over the combined direction. Here each block of
// the batch makes its own step with the exact line search of its own
// direction at the current iterate, the iterate its predecessors in the
// batch left: the corner s_i is the oracle's answer at the batch's w, so the
// step is the paper's delayed block update (a corner at most tau-1
// updates old, the bounded case of its delay model), and its score
// H_i(s_i; w) is recomputed at the current w before the line search, which
// keeps every step a descent step of the dual whatever the staleness.
// Because FW steps on distinct blocks commute, with the predefined step
// size this is the paper's combined update. The line search per block is
// our choice, not the paper's: it needs no cross terms between the blocks'
// directions and applies unchanged to pairwise and away steps and box
// constraints.
//
// A batch's answers are computed at once and its steps applied one per
// Step (see prefetch), so a mini-batch run keeps every property of the
// loop that BCFW has: evaluations at their scheduled clock, the pass
// budget, split runs and checkpoints continuing bit for bit.
//
// What it combines with: every sampling (Sampler.Distinct draws tau
// distinct blocks), FW, pairwise and away steps, box constraints,
// averaging. It refuses the gap-based cache and multi-plane BCFW (their
// steps decide from the current w whether to call the oracle at all, so a
// prefetched answer would be wasted or their rule changed) and a relative
// approximate oracle (its accuracy condition is relative to the dual state
// at the current w, which the prefetched calls do not see).

// prefetch holds the oracle answers of the mini-batch under way. A batch
// is drawn and its oracles called at once, its block steps are applied one
// per Step: the clock advances by one block step as for BCFW, so the
// evaluation schedule, the pass budget and a run split into several Run
// calls or saved and loaded mid-batch are exactly what they would be for
// any other BCFW run (the answers still to apply are in the checkpoint).
type prefetch struct {
	blocks []int32   // the blocks of the batch, in the order they are applied
	ys     [][]int32 // the oracle's labeling of each
	hs     []float64 // its score H_i(y; w) at the batch's w
	at     int64     // Solver.steps when the answers were computed; -1 after a change of w without a step (SetLambda)
	next   int       // the batch position of the next step
	slot   int       // the batch position of the step under way; -1: none
}

// answer returns the prefetched answer of the step under way (nil when
// there is none) and whether the iterate moved since it was computed (the
// score must then be recomputed at the current w).
func (p *prefetch) answer(steps int64) (y []int32, h float64, stale bool) {
	if p.slot < 0 {
		return nil, 0, false
	}
	return p.ys[p.slot], p.hs[p.slot], steps != p.at
}

// validateBatch checks Config.Batch against the rest of the configuration.
func (cfg *Config) validateBatch() error {
	switch {
	case cfg.Batch < 0:
		return fmt.Errorf("solver: batch must be >= 0 (0 or 1: BCFW), got %d", cfg.Batch)
	case cfg.Batch <= 1:
		return nil
	case cfg.Algorithm != run.BCFW:
		return fmt.Errorf("solver: a mini-batch (batch %d) needs the bcfw solver; %v parallelizes its oracle passes with the workers alone", cfg.Batch, cfg.Algorithm)
	case cfg.Cache.Enabled:
		return errors.New("solver: a mini-batch does not combine with the cache: a cache step decides from the current w whether to call the oracle, so a prefetched call would be wasted")
	case cfg.MultiPlane.Enabled:
		return errors.New("solver: a mini-batch does not combine with multi-plane BCFW: its passes are sequential by design (the workers parallelize its gap passes)")
	}
	return nil
}

// miniBatchStep makes the next block step of the mini-batch under way,
// drawing a new batch and calling its oracles when the last one is used up.
// An oracle error leaves the iterate as it was.
func (s *Solver) miniBatchStep() error {
	p := &s.work.pre
	if p.next >= len(p.blocks) {
		if err := s.prefetch(); err != nil {
			return err
		}
	}
	p.slot = p.next
	err := s.blockStep(int(p.blocks[p.slot]))
	p.slot = -1
	if err != nil {
		return err
	}
	p.next++
	return nil
}

// prefetch draws Config.Batch distinct blocks and calls their oracles in
// parallel on the workers at the current w.
func (s *Solver) prefetch() error {
	p := &s.work.pre
	drawn := s.samp.Distinct(s.rng, s.cfg.Batch, s.work.drawn)
	s.work.drawn = drawn
	m := len(drawn)
	p.blocks = p.blocks[:0]
	for _, i := range drawn {
		p.blocks = append(p.blocks, int32(i))
	}
	for len(p.ys) < m {
		p.ys = append(p.ys, nil)
	}
	p.hs = append(p.hs[:0], make([]float64, m)...)
	w := s.x.w
	err := core.Parallel(m, s.workers, func(_, j int) error {
		var err error
		p.ys[j], p.hs[j], err = s.oracle(drawn[j], w, p.ys[j])
		return err
	})
	p.next, p.at = 0, s.steps
	if err != nil {
		p.blocks = p.blocks[:0]
		return err
	}
	return nil
}

// savedBatch is the rest of the mini-batch under way in a checkpoint.
type savedBatch struct {
	Blocks []int32
	Ys     [][]int32
	Hs     []float64
	At     int64
	Next   int
}

// saveBatch adds the answers still to apply to c.
func (s *Solver) saveBatch(c *checkpoint) {
	p := &s.work.pre
	if p.next >= len(p.blocks) {
		return
	}
	m := len(p.blocks)
	c.Batch = &savedBatch{Blocks: p.blocks, Ys: p.ys[:m], Hs: p.hs[:m], At: p.at, Next: p.next}
}

// restoreBatch reads the mini-batch under way from c, checking it.
func (s *Solver) restoreBatch(c *checkpoint) error {
	b := c.Batch
	if b == nil {
		return nil
	}
	m := len(b.Blocks)
	switch {
	case s.cfg.Batch <= 1:
		return errors.New("a mini-batch under way in a run without one")
	case m > s.cfg.Batch || len(b.Ys) != m || len(b.Hs) != m || b.Next < 0 || b.Next >= m || b.At < -1 || b.At > s.steps:
		return errors.New("the mini-batch under way is malformed")
	}
	for j, i := range b.Blocks {
		if i < 0 || int(i) >= s.n {
			return fmt.Errorf("the mini-batch under way holds block %d of %d", i, s.n)
		}
		if math.IsNaN(b.Hs[j]) || math.IsInf(b.Hs[j], 0) {
			return fmt.Errorf("the mini-batch under way holds the score %v", b.Hs[j])
		}
	}
	p := &s.work.pre
	p.blocks, p.ys, p.hs, p.at, p.next = b.Blocks, b.Ys, b.Hs, b.At, b.Next
	return nil
}
