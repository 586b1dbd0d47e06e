package solver

import (
	"errors"
	"fmt"
	"math"
	"slices"

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
// averaging, and the gap-based cache (Osokin et al. 2016, Alg. 5): the
// cache rule is evaluated for every block of the batch at the batch's w
// (cacheWouldHit); the blocks it expects to miss get their oracle calls in
// parallel, the others none, and their steps apply the cache rule again
// at their own iterate. It refuses multi-plane BCFW (Shah et al. 2015:
// its exact and approximate passes are sequential by design, and what
// dominates there is the approximate passes, which call no oracle; the
// workers still parallelize its gap passes), the batch algorithms (FW and
// the cutting plane call every block's oracle against one w already: the
// workers parallelize them) and SSG, and a relative approximate oracle
// (its accuracy condition is relative to the dual state at the current w,
// which prefetched calls do not see).

// prefetch is the queue of oracle answers waiting for their block step:
// the rest of the mini-batch under way, or the answers in flight of the
// delay simulator (delay.go). Entries next to len(blocks)-1 are pending; a
// step applies the entry at next. The clock advances by one block step per
// Step as for BCFW, so the evaluation schedule, the pass budget and a run
// split into several Run calls or saved and loaded mid-queue are exactly
// what they would be for any other BCFW run (the queue is in the
// checkpoint).
type prefetch struct {
	blocks []int32   // the blocks of the entries, in the order they are applied
	ys     [][]int32 // the oracle's labeling of each
	hs     []float64 // its score H_i(y; w) at the w the oracle saw
	ats    []int64   // Solver.steps when each was computed; -1 after a change of w without a step (SetLambda)
	cached []bool    // the entry has no answer: the cache rule at its w expected a hit (cacheWouldHit)
	next   int       // the position of the next step's entry
	slot   int       // the position of the step under way; -1: none
}

// answer returns the prefetched answer of the step under way (nil when
// there is none) and whether the iterate moved since it was computed (the
// score must then be recomputed at the current w).
func (p *prefetch) answer(steps int64) (y []int32, h float64, stale bool) {
	if p.slot < 0 || p.cached[p.slot] {
		return nil, 0, false
	}
	return p.ys[p.slot], p.hs[p.slot], steps != p.ats[p.slot]
}

// answered reports whether the step under way has a prefetched answer.
func (p *prefetch) answered() bool { return p.slot >= 0 && !p.cached[p.slot] }

// pending returns the number of entries waiting.
func (p *prefetch) pending() int { return len(p.blocks) - p.next }

// compact drops the entries already applied, keeping the buffers.
func (p *prefetch) compact() {
	if p.next == 0 {
		return
	}
	m := copy(p.blocks, p.blocks[p.next:])
	for j := 0; j < m; j++ {
		p.ys[j], p.ys[p.next+j] = p.ys[p.next+j], p.ys[j]
	}
	copy(p.hs, p.hs[p.next:])
	copy(p.ats, p.ats[p.next:])
	copy(p.cached, p.cached[p.next:])
	p.blocks, p.hs, p.ats, p.cached = p.blocks[:m], p.hs[:m], p.ats[:m], p.cached[:m]
	p.next = 0
}

// push appends an entry for block i and returns its position, growing the
// labeling buffers.
func (p *prefetch) push(i int, at int64) int {
	j := len(p.blocks)
	p.blocks = append(p.blocks, int32(i))
	if len(p.ys) <= j {
		p.ys = append(p.ys, nil)
	}
	p.hs = append(p.hs, 0)
	p.ats = append(p.ats, at)
	p.cached = append(p.cached, false)
	return j
}

// invalidate marks every pending score stale (w moved without a step).
func (p *prefetch) invalidate() {
	for j := range p.ats {
		p.ats[j] = -1
	}
}

// validateBatch checks Config.Batch and Config.SimulateWorkers against the
// rest of the configuration.
func (cfg *Config) validateBatch() error {
	what := fmt.Sprintf("a mini-batch (batch %d)", cfg.Batch)
	switch {
	case cfg.Batch < 0:
		return fmt.Errorf("solver: batch must be >= 0 (0 or 1: BCFW), got %d", cfg.Batch)
	case cfg.SimulateWorkers < 0:
		return fmt.Errorf("solver: simulated workers must be >= 0 (0 or 1: BCFW), got %d", cfg.SimulateWorkers)
	case (cfg.Batch > 1 && cfg.SimulateWorkers > 0) || (cfg.Async && (cfg.Batch > 1 || cfg.SimulateWorkers > 0)):
		return errors.New("solver: a mini-batch, the delay simulator and the asynchronous execution are three executions of BCFW; choose one")
	case cfg.Batch <= 1 && cfg.SimulateWorkers == 0 && !cfg.Async:
		return nil
	case cfg.SimulateWorkers > 0:
		what = fmt.Sprintf("the delay simulator (%d workers)", cfg.SimulateWorkers)
	case cfg.Async:
		what = "the asynchronous execution"
	}
	switch {
	case cfg.Step == Exact:
		return fmt.Errorf("solver: %s does not combine with exact steps, which are sequential: each block's solve reads the w the previous one left", what)
	case cfg.Algorithm != run.BCFW:
		return fmt.Errorf("solver: %s needs the bcfw solver; %v parallelizes its oracle passes with the workers alone", what, cfg.Algorithm)
	case cfg.MultiPlane.Enabled:
		return fmt.Errorf("solver: %s does not combine with multi-plane BCFW: its passes are sequential by design (the workers parallelize its gap passes)", what)
	}
	return nil
}

// queued reports whether the BCFW steps go through the queue of answers in
// flight (a mini-batch, the delay simulator or the asynchronous execution).
func (cfg *Config) queued() bool { return cfg.Batch > 1 || cfg.SimulateWorkers > 0 || cfg.Async }

// queuedStep makes the block step of the entry at the head of the queue,
// filling the queue first (a new mini-batch when the last one is used up;
// the delay simulator's answers in flight). An oracle error leaves the
// iterate as it was.
func (s *Solver) queuedStep() error {
	p := &s.work.pre
	var err error
	if s.cfg.Batch > 1 {
		if p.pending() == 0 {
			err = s.prefetch()
		}
	} else {
		err = s.inFlight()
	}
	if err != nil {
		return err
	}
	return s.applyHead()
}

// applyHead makes the block step of the entry at the head of the queue.
func (s *Solver) applyHead() error {
	p := &s.work.pre
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
	s.work.drawn = s.samp.Distinct(s.rng, s.cfg.Batch, s.work.drawn)
	p.blocks, p.hs, p.ats, p.cached, p.next = p.blocks[:0], p.hs[:0], p.ats[:0], p.cached[:0], 0
	for _, i := range s.work.drawn {
		j := p.push(i, s.steps)
		p.cached[j] = s.cacheWouldHit(i)
	}
	w := s.x.w
	err := core.Parallel(len(p.blocks), s.workers, func(_, j int) error {
		if p.cached[j] {
			return nil
		}
		var err error
		p.ys[j], p.hs[j], err = s.oracle(int(p.blocks[j]), w, p.ys[j])
		return err
	})
	if err != nil {
		p.blocks = p.blocks[:0]
	}
	return err
}

// cacheWouldHit reports whether the cache rule (Osokin et al. 2016, Alg. 5)
// expects a hit for block i at the current w, without counting it: such a
// block of a mini-batch or the delay simulator gets no oracle call in
// advance, and its step applies the cache rule again at its own iterate
// (calling the oracle then if the rule says so). A block it expects to
// miss gets its oracle answer in advance, and its step uses it, counted as
// a miss. False without the cache.
func (s *Solver) cacheWouldHit(i int) bool {
	if !s.cfg.Cache.Enabled {
		return false
	}
	set := &s.sets[i]
	scores := s.cornerScores(set)
	base := s.store.base(i, scores)
	n := float64(s.n)
	gHat := base + scores[bestCorner(scores)]/n
	return gHat >= math.Max(s.cfg.Cache.F*s.gapEst[i], s.cfg.Cache.Nu/n*s.globalGap)
}

// savedBatch is the rest of the mini-batch under way in a checkpoint.
type savedBatch struct {
	Blocks []int32
	Ys     [][]int32
	Hs     []float64
	Ats    []int64
	Cached []bool // nil: every entry has its answer
	Next   int
}

// saveBatch adds the answers still to apply to c.
func (s *Solver) saveBatch(c *checkpoint) {
	p := &s.work.pre
	if p.pending() == 0 {
		return
	}
	m := len(p.blocks)
	c.Batch = &savedBatch{Blocks: p.blocks[p.next:], Ys: p.ys[p.next:m], Hs: p.hs[p.next:], Ats: p.ats[p.next:]}
	if slices.Contains(p.cached[p.next:], true) {
		c.Batch.Cached = p.cached[p.next:]
	}
}

// restoreBatch reads the mini-batch under way from c, checking it.
func (s *Solver) restoreBatch(c *checkpoint) error {
	b := c.Batch
	if b == nil {
		return nil
	}
	m := len(b.Blocks)
	switch {
	case !s.cfg.queued():
		return errors.New("oracle answers in flight in a run without a mini-batch, the delay simulator or the asynchronous execution")
	case (m > max(s.cfg.Batch, s.cfg.SimulateWorkers) && !s.cfg.Async) || len(b.Ys) != m || len(b.Hs) != m || len(b.Ats) != m || b.Next < 0 || b.Next >= m:
		return errors.New("the queue of oracle answers in flight is malformed")
	}
	for j, i := range b.Blocks {
		if i < 0 || int(i) >= s.n {
			return fmt.Errorf("the mini-batch under way holds block %d of %d", i, s.n)
		}
		if math.IsNaN(b.Hs[j]) || math.IsInf(b.Hs[j], 0) || b.Ats[j] < -1 || b.Ats[j] > s.steps {
			return fmt.Errorf("the queue of oracle answers holds the score %v computed at step %d", b.Hs[j], b.Ats[j])
		}
	}
	p := &s.work.pre
	cached := b.Cached
	switch {
	case cached == nil:
		cached = make([]bool, m)
	case len(cached) != m:
		return errors.New("the queue of oracle answers in flight is malformed")
	case !s.cfg.Cache.Enabled && slices.Contains(cached, true):
		return errors.New("oracle answers left to the cache in a run without one")
	}
	p.blocks, p.ys, p.hs, p.ats, p.cached, p.next = b.Blocks, b.Ys, b.Hs, b.Ats, cached, b.Next
	return nil
}
