package execution

import (
	"runtime"
	"slices"
	"sync/atomic"
)

// miniBatch schedules the steps of a MiniBatch (Wang, Sadhanala, Dai,
// Neiswanger, Sra and Xing 2016, Alg. 1 run synchronously): a batch of tau
// distinct blocks is drawn when the queue runs out, its read parts are
// computed on a pool of workers at a copy of the w of its draw, and its
// steps are written one per Step, in the order drawn, each as soon as its
// read part is there, the updater computing the read parts no worker has
// taken yet while it waits. With a lookahead of L, a batch is drawn as soon
// as L batches or fewer wait, distinct from them, so that the workers
// compute it while the updater writes the current one (answers at most
// (L+1) tau - 1 steps old). Everything a batch reads (its blocks, w, what
// Begin fixes) is fixed when it is drawn, so the run depends on the seed,
// tau and L only, never on the timing or the number of workers.
//
// The batches end with the method's Room (multi-plane BCFW's passes): a
// batch never holds more blocks than the steps left before the method
// decides again, so that every step drawn is written by then.
type miniBatch[E, S any] struct {
	queue[E, S]
	batch, lookahead int

	// The entries from submitted on are drawn but not yet handed to the
	// pool; jobs are the pool's jobs not yet done, oldest first, each
	// computing the read parts of a view of entries (whose array does not
	// move while a job is under way); snaps are the copies of w the
	// batches under way read, the batch drawn last in
	// snaps[snapNo%len(snaps)]; excl holds the blocks waiting.
	submitted int
	jobs      []*job
	snaps     [][]float64
	snapNo    int
	excl      []int
	workers   *pool // started on first use, closed by Stop
}

func newMiniBatch[E, S any](x MiniBatch, steps Steps[E, S]) *miniBatch[E, S] {
	return &miniBatch[E, S]{queue: queue[E, S]{steps: steps}, batch: x.Batch, lookahead: x.Lookahead}
}

func (b *miniBatch[E, S]) Ahead() bool { return true }

// tau is the batch size: MiniBatch.Batch, at most n/(Lookahead+1) (the
// batches under way hold distinct blocks).
func (b *miniBatch[E, S]) tau() int {
	return max(1, min(b.batch, b.steps.Blocks()/(b.lookahead+1)))
}

// Step draws batches until more than Lookahead of them wait (or the method
// has no room for one) and writes the step at the head of the queue once
// its read part is computed.
func (b *miniBatch[E, S]) Step() error {
	keep := b.lookahead * b.tau()
	for b.pending() <= keep && b.draw() {
	}
	if err := b.awaitHead(); err != nil {
		return err
	}
	return b.apply()
}

// compact drops the entries already applied, keeping their buffers.
func (b *miniBatch[E, S]) compact() {
	b.submitted = max(0, b.submitted-b.next)
	b.queue.compact()
}

// draw draws the next batch, distinct from the entries waiting, at a copy
// of the current w, and hands it to the pool when the pool is free; it
// reports false when the method has no room for one.
func (b *miniBatch[E, S]) draw() bool {
	tau := min(b.tau(), b.steps.Room()-b.pending(), b.steps.Blocks()-b.pending()) // the blocks waiting are distinct
	if tau < 1 {
		return false
	}
	if b.next > 0 && b.jobsDone() {
		b.compact()
	}
	if need := len(b.entries) + tau; need > cap(b.entries) { // the array must not move under a job
		b.finish()
		b.compact()
		b.entries = slices.Grow(b.entries, max(3*b.tau(), need)-len(b.entries))
	}
	excl := b.excl[:0]
	for j := b.next; j < len(b.entries); j++ {
		excl = append(excl, int(b.entries[j].block))
	}
	b.excl = excl
	b.drawn = b.steps.Draw(tau, excl, b.drawn)
	if len(b.snaps) != b.lookahead+1 {
		b.snaps = make([][]float64, b.lookahead+1) // a copy of w for every batch under way
	}
	b.snapNo++
	k := b.snapNo % len(b.snaps)
	b.snaps[k] = b.steps.Snapshot(b.snaps[k], len(b.snaps))
	for _, i := range b.drawn {
		b.begin(i).w = b.snaps[k]
	}
	b.submit()
	return true
}

// submit hands the entries drawn but not yet handed out to the pool, as a
// new job, once every item of its last job is taken: a worker that
// finishes an item finds the next ones without waiting for the updater,
// which may itself be computing one.
func (b *miniBatch[E, S]) submit() {
	if b.submitted >= len(b.entries) || (len(b.jobs) > 0 && !b.jobs[len(b.jobs)-1].claimed()) {
		return
	}
	entries := b.entries[b.submitted:len(b.entries):len(b.entries)]
	steps := b.steps
	job := b.pool().start(len(entries), func(k, j int) error {
		e := &entries[j]
		e.err = steps.Read(int(e.block), &e.read, e.w, k)
		atomic.StoreUint32(&e.ready, 1)
		return nil
	})
	b.jobs = append(b.jobs, job)
	b.submitted = len(b.entries)
}

// jobsDone drops the jobs whose items are all computed and reports whether
// none is left under way.
func (b *miniBatch[E, S]) jobsDone() bool {
	k := 0
	for k < len(b.jobs) && b.jobs[k].done() {
		b.jobs[k] = nil
		k++
	}
	b.jobs = append(b.jobs[:0], b.jobs[k:]...)
	return len(b.jobs) == 0
}

// helpOne computes, on the updater's goroutine, the next entry no worker
// has taken yet, and reports whether there was one.
func (b *miniBatch[E, S]) helpOne() bool {
	for _, job := range b.jobs {
		if job.helpOne() {
			return true
		}
	}
	return false
}

// awaitHead returns once the read part of the entry at the head of the
// queue is computed, computing the entries no worker has taken yet itself
// while it waits, one at a time (the head may be ready after each); on an
// error of the head entry every entry waiting is dropped.
func (b *miniBatch[E, S]) awaitHead() error {
	e := &b.entries[b.next]
	for spins := 0; atomic.LoadUint32(&e.ready) == 0; spins++ {
		b.submit()
		if b.helpOne() {
			continue
		}
		if spins%64 == 63 {
			runtime.Gosched()
		}
	}
	if err := e.err; err != nil {
		b.finish()
		b.entries, b.submitted = b.entries[:b.next], b.next
		return err
	}
	return nil
}

// finish waits for the pool's jobs under way and computes the entries not
// handed out yet: every entry waiting is then computed.
func (b *miniBatch[E, S]) finish() {
	for k, job := range b.jobs {
		_ = job.wait() // every entry records its own error
		b.jobs[k] = nil
	}
	b.jobs = b.jobs[:0]
	if b.submitted < len(b.entries) {
		b.submit()
		b.finish()
	}
}

// Settle computes every entry waiting.
func (b *miniBatch[E, S]) Settle() { b.finish() }

// Stop computes every entry waiting and stops the pool.
func (b *miniBatch[E, S]) Stop() {
	b.finish()
	if b.workers != nil {
		b.workers.close()
		b.workers = nil
	}
}

// pool returns the pool of Steps.Workers() workers, started anew when the
// number changed.
func (b *miniBatch[E, S]) pool() *pool {
	if k := b.steps.Workers(); b.workers == nil || b.workers.size() != k {
		if b.workers != nil {
			b.workers.close()
		}
		b.workers = newPool(k)
	}
	return b.workers
}

// Save returns the entries waiting (Settle first).
func (b *miniBatch[E, S]) Save() *Saved[S] { return b.save(false) }

// Restore queues the entries of sv: at most the batch under way and those
// drawn ahead.
func (b *miniBatch[E, S]) Restore(sv *Saved[S]) error {
	err := b.restore(sv, (b.lookahead+1)*b.tau(), false, false)
	b.submitted = len(b.entries)
	return err
}
