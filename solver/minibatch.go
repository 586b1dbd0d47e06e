package solver

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// Mini-batch BCFW on shared memory (Wang, Sadhanala, Dai, Neiswanger, Sra
// and Xing 2016, "Parallel and Distributed Block-Coordinate Frank-Wolfe
// Algorithms", ICML; arXiv 1409.6086, Alg. 1 run synchronously): a step
// draws tau distinct blocks, computes the read parts of their steps in
// parallel on the workers against one w (ahead.go: the scores of their
// cached corners, the cache rule, the max oracle calls; pure work that
// writes nothing shared), then applies the tau block steps one by one, in
// the order the blocks were drawn, on the solver's goroutine. The
// trajectory therefore depends on the seed and tau only, never on the
// number of workers or on timing.
//
// With a lookahead (Config.Lookahead = L): the read parts of the next L
// batches are computed on the workers while the solver's goroutine applies
// the steps of the current one, each batch at the w of its draw (the
// bounded-delay case of the paper's Alg. 1, answers at most (L+1) tau - 1
// steps old). This keeps both kinds of work busy at once: when the
// updates are a large share of a step (the cache hitting, a cheap oracle),
// the synchronous mini-batch leaves the workers idle while the updates
// run. Everything the next batch reads (its blocks, w, the stale gaps, the
// global gap) is fixed when it is handed out, so the run still depends on
// the seed and tau only; the two batches under way hold distinct blocks,
// so no worker reads a block the updater writes.
//
// The update. The paper moves along the combined direction
// sum_{i in S} (s_i - x_i) with one step size, the predefined
// gamma_k or a line search over the combined direction. Here each block of
// the batch makes its own step with the exact line search of its own
// direction at the current iterate, the iterate its predecessors in the
// batch left: the corner s_i is chosen at the batch's w, so the step is the
// paper's delayed block update (a corner at most tau-1 updates old, the
// bounded case of its delay model), and the scores of the step's corners
// are recomputed at the current w before the line search, which keeps
// every step a descent step of the dual whatever the staleness. Because FW
// steps on distinct blocks commute, with the predefined step size this is
// the paper's combined update. The line search per block is our choice,
// not the paper's: it needs no cross terms between the blocks' directions
// and applies unchanged to pairwise and away steps and box constraints.
//
// A batch's read parts are computed at once and its steps applied one per
// Step (see prefetch), so a mini-batch run keeps every property of the
// loop that BCFW has: evaluations at their scheduled clock, the pass
// budget, split runs and checkpoints continuing bit for bit.
//
// What it combines with: every sampling (Sampler.Distinct draws tau
// distinct blocks), FW, pairwise and away steps, box constraints,
// averaging, the gap-based cache (Osokin et al. 2016, Alg. 5: the cache
// rule is evaluated for every block of the batch at the batch's w, on the
// workers, and the blocks it expects to miss get their oracle calls
// there), and multi-plane BCFW (Shah et al. 2015, Alg. 3: its exact
// passes call the oracles on the workers, its approximate passes score the
// working sets there; batches end with the passes, since the slope rule
// decides the kind of the next pass when one ends). It refuses the batch
// algorithms (FW and the cutting plane call every block's oracle against
// one w already: the workers parallelize them) and SSG, exact block steps
// (each block's solve reads the w the previous one left), and a relative
// approximate oracle (its accuracy condition is relative to the dual state
// at the current w, which calls made ahead do not see).

// prefetch is the queue of block steps whose read part was computed
// ahead (ahead.go): the rest of the mini-batch under way, the answers in
// flight of the delay simulator (delay.go) or those the workers of the
// asynchronous execution returned (async.go). Entries from next on are
// pending; a step applies the entry at next. The clock advances by one
// block step per Step as for BCFW, so the evaluation schedule, the pass
// budget and a run split into several Run calls or saved and loaded
// mid-queue are exactly what they would be for any other BCFW run (the
// queue is in the checkpoint).
type prefetch struct {
	entries []ahead // in the order they are applied; buffers beyond len are kept for reuse
	next    int     // the position of the next step's entry
	slot    int     // the position of the step under way; -1: none
	busy    []bool  // block i has an entry pending or in flight (the simulator, async)

	// A mini-batch (batchStep): the entries from submitted on are drawn
	// but not yet handed to the pool; jobs are the pool's jobs not yet
	// done, oldest first, each computing the read parts of a view of
	// entries (whose array does not move while a job is under way); snaps
	// are the copies of w the batches under way read, the batch drawn last
	// in snaps[snapNo%len(snaps)].
	submitted int
	jobs      []*core.Job
	snaps     [][]float64
	snapNo    int
}

// head returns the entry of the step under way, nil when there is none.
func (p *prefetch) head() *ahead {
	if p.slot < 0 {
		return nil
	}
	return &p.entries[p.slot]
}

// pending returns the number of entries waiting.
func (p *prefetch) pending() int { return len(p.entries) - p.next }

// compact drops the entries already applied, keeping their buffers.
func (p *prefetch) compact() {
	if p.next == 0 {
		return
	}
	m := len(p.entries) - p.next
	for j := 0; j < m; j++ {
		p.entries[j], p.entries[p.next+j] = p.entries[p.next+j], p.entries[j]
	}
	p.entries = p.entries[:m]
	p.submitted = max(0, p.submitted-p.next)
	p.next = 0
}

// reset empties the queue, keeping the buffers.
func (p *prefetch) reset() { p.entries, p.next = p.entries[:0], 0 }

// push appends an entry for block i computed at step at and returns it
// (valid until the next push), reusing the buffers of an old entry.
func (p *prefetch) push(i int, at int64) *ahead {
	j := len(p.entries)
	if j < cap(p.entries) {
		p.entries = p.entries[:j+1]
	} else {
		p.entries = append(p.entries, ahead{})
	}
	e := &p.entries[j]
	e.block, e.at, e.oracle, e.scored, e.cornered = int32(i), at, false, false, false
	e.err, e.ready = nil, 0
	return e
}

// setBusy marks block i as having an entry pending or in flight.
func (p *prefetch) setBusy(i int, n int, on bool) {
	if p.busy == nil {
		p.busy = make([]bool, n)
	}
	p.busy[i] = on
}

// isBusy reports whether block i has an entry pending or in flight.
func (p *prefetch) isBusy(i int) bool { return p.busy != nil && p.busy[i] }

// invalidate marks every pending entry as computed at another w (w moved
// without a step): its scores are recomputed at its turn.
func (p *prefetch) invalidate() {
	for j := range p.entries {
		p.entries[j].at = -1
	}
}

// validateBatch checks Config.Batch and Config.SimulateWorkers against the
// rest of the configuration.
func (cfg *config) validateBatch() error {
	what := fmt.Sprintf("a mini-batch (batch %d)", cfg.Batch)
	switch {
	case cfg.Batch < 0:
		return fmt.Errorf("solver: batch must be >= 0 (0 or 1: BCFW), got %d", cfg.Batch)
	case cfg.SimulateWorkers < 0:
		return fmt.Errorf("solver: simulated workers must be >= 0 (0 or 1: BCFW), got %d", cfg.SimulateWorkers)
	case (cfg.miniBatch() && cfg.SimulateWorkers > 0) || (cfg.Async && (cfg.miniBatch() || cfg.SimulateWorkers > 0)):
		return errors.New("solver: a mini-batch, the delay simulator and the asynchronous execution are three executions of BCFW; choose one")
	case cfg.SimulateDelays != nil && cfg.SimulateWorkers < 1:
		return errors.New("solver: simulated delays need the delay simulator (simulate workers K >= 1)")
	case cfg.SimulateDelays != nil && !validWeights(cfg.SimulateDelays.Weights):
		return errors.New("solver: simulated delays must be finite weights >= 0 with a positive sum")
	case cfg.Lookahead < 0:
		return fmt.Errorf("solver: lookahead must be >= 0 (0: the synchronous mini-batch), got %d", cfg.Lookahead)
	case !cfg.miniBatch() && cfg.SimulateWorkers == 0 && !cfg.Async:
		return nil
	case cfg.SimulateWorkers > 0:
		what = fmt.Sprintf("the delay simulator (%d workers)", cfg.SimulateWorkers)
	case cfg.Async:
		what = "the asynchronous execution"
	}
	switch {
	case cfg.Step == stepExact:
		return fmt.Errorf("solver: %s does not combine with exact steps, which are sequential: each block's solve reads the w the previous one left", what)
	case cfg.Algorithm != run.BCFW:
		return fmt.Errorf("solver: %s needs the bcfw solver; %v parallelizes its oracle passes with the workers alone", what, cfg.Algorithm)
	case cfg.MultiPlane.Enabled && (cfg.Async || cfg.SimulateWorkers > 0):
		return fmt.Errorf("solver: %s does not combine with multi-plane BCFW: the slope rule decides the kind of each pass (exact or approximate) when the last one ends, which answers in flight would cross; use a mini-batch (batch > 1), whose batches end with the passes", what)
	}
	return nil
}

// queued reports whether the BCFW steps go through the queue of answers in
// flight (a mini-batch, the delay simulator or the asynchronous execution).
func (cfg *config) queued() bool { return cfg.miniBatch() || cfg.SimulateWorkers > 0 || cfg.Async }

// miniBatch reports whether the steps are a mini-batch: Batch > 1, or
// batches of one block with a lookahead.
func (cfg *config) miniBatch() bool { return cfg.Batch > 1 || cfg.Lookahead > 0 }

// queuedStep makes the block step of the entry at the head of the queue,
// filling the queue first (a new mini-batch when the last one is used up;
// the delay simulator's answers in flight). An oracle error leaves the
// iterate as it was.
func (s *Solver) queuedStep() error {
	if s.cfg.miniBatch() {
		return s.batchStep()
	}
	if err := s.inFlight(); err != nil {
		return err
	}
	return s.applyHead()
}

// applyHead makes the block step of the entry at the head of the queue.
func (s *Solver) applyHead() error {
	p := &s.work.pre
	p.slot = p.next
	e := &p.entries[p.slot]
	i, at := int(e.block), e.at
	err := s.blockStep(i)
	p.slot = -1
	if err != nil {
		return err
	}
	if p.busy != nil {
		p.busy[i] = false
	}
	if at >= 0 {
		s.recordDelay(s.steps - 1 - at)
	}
	p.next++
	return nil
}

// recordDelay counts a step applied d steps after the iterate its read part
// saw (Delays).
func (s *Solver) recordDelay(d int64) {
	for int64(len(s.delays)) <= d {
		s.delays = append(s.delays, 0)
	}
	s.delays[d]++
}

// batchStep makes the next block step of a mini-batch. A batch of tau
// distinct blocks is drawn when the queue runs out (synchronous) or, with
// Config.Lookahead = L, when L batches or fewer wait, so that they are
// computed while the current one is applied (distinct from the batches
// waiting); a batch's read parts are handed
// to the pool at a copy of the w of its draw. The steps are applied in
// order, each as soon as its read part is there, the solver's goroutine
// computing the ones no worker has taken yet. Everything a batch reads
// (its blocks, w, the stale gaps, the global gap) is fixed when it is
// drawn, so the run depends on the seed and tau only, never on the timing
// or the number of workers.
func (s *Solver) batchStep() error {
	p := &s.work.pre
	keep := s.cfg.Lookahead * s.batchSize()
	for p.pending() <= keep && s.drawBatch() {
	}
	if err := s.awaitHead(); err != nil {
		return err
	}
	return s.applyHead()
}

// batchSize is tau: Config.Batch, at most n/(Lookahead+1) (the batches
// under way hold distinct blocks).
func (s *Solver) batchSize() int {
	return max(1, min(s.cfg.Batch, s.n/(s.cfg.Lookahead+1)))
}

// passRoom returns the steps left in the current pass of multi-plane
// BCFW, whose batches end with its passes (the slope rule decides the kind
// of the next pass when one ends); unbounded otherwise.
func (s *Solver) passRoom() int {
	if mp, ok := s.reuse.(*multiPlane); ok {
		return int(mp.n - mp.pos)
	}
	return math.MaxInt
}

// drawBatch draws the next batch, distinct from the entries waiting, at a
// copy of the current w, and hands it to the pool when the pool is free; it
// reports false when the pass of multi-plane BCFW has no room for one.
func (s *Solver) drawBatch() bool {
	p := &s.work.pre
	tau := min(s.batchSize(), s.passRoom()-p.pending(), s.n-p.pending()) // the blocks waiting are distinct
	if tau < 1 {
		return false
	}
	if p.next > 0 && p.jobsDone() {
		p.compact()
	}
	if need := len(p.entries) + tau; need > cap(p.entries) { // the array must not move under a job
		s.finishJob()
		p.compact()
		p.entries = slices.Grow(p.entries, max(3*s.batchSize(), need)-len(p.entries))
	}
	excl := s.work.excl[:0]
	for j := p.next; j < len(p.entries); j++ {
		excl = append(excl, int(p.entries[j].block))
	}
	s.work.excl = excl
	s.work.drawn = s.samp.Distinct(s.rng, tau, excl, s.work.drawn)
	if len(p.snaps) != s.cfg.Lookahead+1 {
		p.snaps = make([][]float64, s.cfg.Lookahead+1) // a copy of w for every batch under way
	}
	p.snapNo++
	b := p.snapNo % len(p.snaps)
	p.snaps[b] = s.x.snapshot(p.snaps[b], len(p.snaps))
	snap := p.snaps[b]
	for _, i := range s.work.drawn {
		e := s.newAhead(i)
		e.w, e.global = snap, s.globalGap
	}
	s.submit()
	return true
}

// submit hands the entries drawn but not yet handed out to the pool, as a
// new job, once every item of its last job is taken: a worker that
// finishes an item finds the next ones without waiting for the solver's
// goroutine, which may itself be computing one.
func (s *Solver) submit() {
	p := &s.work.pre
	if p.submitted >= len(p.entries) || (len(p.jobs) > 0 && !p.jobs[len(p.jobs)-1].Claimed()) {
		return
	}
	entries := p.entries[p.submitted:len(p.entries):len(p.entries)]
	job := s.pool().Start(len(entries), func(k, j int) error { return s.prepareEntry(k, &entries[j]) })
	p.jobs = append(p.jobs, job)
	p.submitted = len(p.entries)
}

// jobsDone drops the jobs whose items are all computed and reports whether
// none is left under way.
func (p *prefetch) jobsDone() bool {
	k := 0
	for k < len(p.jobs) && p.jobs[k].Done() {
		p.jobs[k] = nil
		k++
	}
	p.jobs = append(p.jobs[:0], p.jobs[k:]...)
	return len(p.jobs) == 0
}

// helpOne computes, on the solver's goroutine, the next entry no worker
// has taken yet, and reports whether there was one.
func (p *prefetch) helpOne() bool {
	for _, job := range p.jobs {
		if job.HelpOne() {
			return true
		}
	}
	return false
}

// prepareEntry computes the read part of entry e on worker k, marking it
// ready when done (its error recorded in it).
func (s *Solver) prepareEntry(k int, e *ahead) error {
	e.err = s.prepare(e, e.w, e.global, &s.work.workers[k])
	atomic.StoreUint32(&e.ready, 1)
	return nil
}

// awaitHead returns once the read part of the entry at the head of the
// queue is computed, computing the entries no worker has taken yet itself
// while it waits, one at a time (the head may be ready after each); on an
// error of the head entry every entry waiting is dropped.
func (s *Solver) awaitHead() error {
	p := &s.work.pre
	e := &p.entries[p.next]
	for spins := 0; atomic.LoadUint32(&e.ready) == 0; spins++ {
		s.submit()
		if p.helpOne() {
			continue
		}
		if spins%64 == 63 {
			runtime.Gosched()
		}
	}
	if err := e.err; err != nil {
		s.finishJob()
		p.entries, p.submitted = p.entries[:p.next], p.next
		return err
	}
	return nil
}

// finishJob waits for the pool's job under way, if any, and computes the
// entries not handed out yet: every entry waiting is then computed.
func (s *Solver) finishJob() {
	p := &s.work.pre
	if !s.cfg.miniBatch() {
		return // the simulator and the asynchronous execution prepare their entries themselves
	}
	for k, job := range p.jobs {
		_ = job.Wait() // prepareEntry records each entry's error in it
		p.jobs[k] = nil
	}
	p.jobs = p.jobs[:0]
	if p.submitted < len(p.entries) {
		s.submit()
		s.finishJob()
	}
}

// quiesce waits for the read parts computed in the background (the
// batches drawn ahead, the answers in flight of the asynchronous execution):
// an evaluation, a checkpoint and the end of a Run need every block at
// rest.
func (s *Solver) quiesce() {
	s.finishJob()
	s.drainAsync()
}

// pool returns the solver's worker pool, started on first use (closed at
// the end of every Run).
func (s *Solver) pool() *core.Pool {
	if s.workPool == nil || s.workPool.Workers() != s.workers {
		s.closePool()
		s.workPool = core.NewPool(s.workers)
	}
	return s.workPool
}

// closePool stops the pool's goroutines.
func (s *Solver) closePool() {
	if s.workPool != nil {
		s.workPool.Close()
		s.workPool = nil
	}
}

// savedBatch is the queue of steps computed ahead in a checkpoint: the
// rest of the mini-batch under way, or the answers in flight.
type savedBatch struct {
	Blocks []int32
	Ys     [][]int32 // the oracle's answers (nil where Cached)
	Hs     []float64
	Ats    []int64
	Cached []bool // entries without an oracle answer (nil: none)
	// Scores holds the scores of the block's corners computed ahead (nil,
	// or nil entries: not computed; checkpoints from before they were
	// kept have none, and their steps score their sets themselves), Bases
	// lambda <v_i, w> - ell_i at the same w.
	Scores [][]float64
	Bases  []float64
	// Dues holds the step by which the simulator applies each answer
	// (Config.SimulateDelays; nil otherwise).
	Dues []int64
	Next int
}

// saveBatch adds the entries still to apply to c.
func (s *Solver) saveBatch(c *checkpoint) {
	p := &s.work.pre
	if p.pending() == 0 {
		return
	}
	rest := p.entries[p.next:]
	m := len(rest)
	b := &savedBatch{Blocks: make([]int32, m), Ys: make([][]int32, m), Hs: make([]float64, m), Ats: make([]int64, m)}
	for j := range rest {
		e := &rest[j]
		b.Blocks[j], b.Ats[j] = e.block, e.at
		if e.oracle {
			b.Ys[j], b.Hs[j] = e.y, e.h
		} else {
			if b.Cached == nil {
				b.Cached = make([]bool, m)
			}
			b.Cached[j] = true
		}
		if s.cfg.SimulateDelays != nil {
			if b.Dues == nil {
				b.Dues = make([]int64, m)
			}
			b.Dues[j] = e.due
		}
		if e.scored {
			if b.Scores == nil {
				b.Scores, b.Bases = make([][]float64, m), make([]float64, m)
			}
			b.Scores[j], b.Bases[j] = e.scores, e.base
		}
	}
	c.Batch = b
}

// restoreBatch reads the queue of steps computed ahead from c, checking it.
func (s *Solver) restoreBatch(c *checkpoint) error {
	b := c.Batch
	if b == nil {
		return nil
	}
	m := len(b.Blocks)
	most := max(s.cfg.Batch, s.cfg.SimulateWorkers)
	if s.cfg.miniBatch() {
		most = (s.cfg.Lookahead + 1) * s.batchSize() // the batch under way and those drawn ahead
	}
	switch {
	case !s.cfg.queued():
		return errors.New("oracle answers in flight in a run without a mini-batch, the delay simulator or the asynchronous execution")
	case (m > most && !s.cfg.Async) || len(b.Ys) != m || len(b.Hs) != m || len(b.Ats) != m || b.Next < 0 || b.Next >= m,
		b.Cached != nil && len(b.Cached) != m,
		b.Scores != nil && (len(b.Scores) != m || len(b.Bases) != m),
		(s.cfg.SimulateDelays != nil) != (b.Dues != nil) || (b.Dues != nil && len(b.Dues) != m):
		return errors.New("the queue of oracle answers in flight is malformed")
	}
	p := &s.work.pre
	p.reset()
	if s.cfg.SimulateWorkers > 0 || s.cfg.Async {
		p.busy = make([]bool, s.n)
	}
	for j, i := range b.Blocks {
		if i < 0 || int(i) >= s.n {
			return fmt.Errorf("the mini-batch under way holds block %d of %d", i, s.n)
		}
		if math.IsNaN(b.Hs[j]) || math.IsInf(b.Hs[j], 0) || b.Ats[j] < -1 || b.Ats[j] > s.steps {
			return fmt.Errorf("the queue of oracle answers holds the score %v computed at step %d", b.Hs[j], b.Ats[j])
		}
		e := p.push(int(i), b.Ats[j])
		if b.Dues != nil {
			e.due = b.Dues[j]
		}
		e.oracle = b.Cached == nil || !b.Cached[j]
		if e.oracle {
			e.y, e.h = b.Ys[j], b.Hs[j]
		} else if !s.cfg.Cache.Enabled {
			return errors.New("oracle answers left to the cache in a run without one")
		}
		if b.Scores != nil && b.Scores[j] != nil {
			if s.sets == nil || len(b.Scores[j]) != len(s.sets[i].entries) || !allFinite(b.Scores[j]) || math.IsNaN(b.Bases[j]) || math.IsInf(b.Bases[j], 0) {
				return fmt.Errorf("the queue of oracle answers holds scores that do not fit the corners of block %d", i)
			}
			e.scores, e.base, e.scored = b.Scores[j], b.Bases[j], true
		}
		if p.busy != nil {
			p.busy[i] = true
		}
	}
	p.next = b.Next
	for j := range p.entries {
		p.entries[j].ready = 1 // computed before the checkpoint
	}
	p.submitted = len(p.entries)
	return nil
}

// validWeights reports whether w are finite, non-negative weights with a
// positive sum.
func validWeights(w []float64) bool {
	var sum float64
	for _, v := range w {
		if !(v >= 0) || math.IsInf(v, 1) {
			return false
		}
		sum += v
	}
	return sum > 0 && !math.IsInf(sum, 1)
}

// allFinite reports whether no value of x is NaN or infinite.
func allFinite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
