package execution

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fwstruct/fwstruct/solver/internal/core"
)

// pool is a set of long-lived worker goroutines that compute the items of
// one job at a time in the background (start), while the caller's
// goroutine goes on with other work; the caller joins in when it waits for
// the job (job.wait). fn(k, j) computes item j on worker k (0: the
// caller's goroutine, 1 to size()-1 the background ones), so that each
// worker can use a scratch of its own. Items are handed out one at a time
// in index order (dynamic assignment), which balances items of uneven cost (an oracle
// call next to a cache hit); a job's results must therefore not depend on
// which goroutine computed which item, e.g. every item writing only its
// own slot. A pool of one worker runs every job in wait, on the caller's
// goroutine.
//
// The hand-off is built for jobs of a few microseconds each, started every
// few microseconds (the read parts of a mini-batch of block steps): an idle
// worker spins on its mailbox for up to spinFor before it parks, so that a
// job reaches it without a wake-up through the scheduler (which costs
// several microseconds and, as the woken goroutine lands on the caller's
// own run queue, often runs it on the caller's thread after all). wait
// takes back a job from a worker that has not picked it up yet, so that
// it never waits for a worker that is not running.
//
// Jobs may overlap: the next job can start as soon as every item of the
// last one is taken (claimed), while some are still being computed, so
// that a worker that finishes its item finds the next job's items at once
// instead of waiting for the caller's goroutine (which may itself be
// computing an item) to see the last job done.
type pool struct {
	workers []poolWorker
	wg      sync.WaitGroup
}

// poolWorker is the mailbox of one background worker.
type poolWorker struct {
	k       int                 // its index for fn
	mailbox atomic.Pointer[job] // the job handed to it and not yet taken
	busy    atomic.Bool         // it took a job and is working on it
	parked  atomic.Bool         // it sleeps on wake
	wake    chan struct{}
	quit    atomic.Bool
}

// spinFor is how long an idle worker polls its mailbox before it parks.
const spinFor = 200 * time.Microsecond

// job is the work of one start: items [0, m) of fn.
type job struct {
	pool     *pool
	m        int
	fn       func(k, j int) error
	next     atomic.Int64
	finished atomic.Int64 // items completed
	errs     []error      // the error of each item (nil: none)
}

// newPool starts workers-1 background goroutines (the caller's goroutine
// is the last worker); workers < 1 counts as 1. close stops them.
func newPool(workers int) *pool {
	p := &pool{workers: make([]poolWorker, max(0, workers-1))}
	for k := range p.workers {
		w := &p.workers[k]
		w.k, w.wake = k+1, make(chan struct{}, 1)
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			w.run()
		}()
	}
	return p
}

// run is the loop of a background worker.
func (w *poolWorker) run() {
	for {
		job := w.await()
		if job == nil {
			return
		}
		job.work(w.k)
		w.busy.Store(false)
	}
}

// await returns the next job handed to w (marked busy), or nil once the
// pool closes: it polls the mailbox for spinFor, then parks until start or
// close wakes it.
func (w *poolWorker) await() *job {
	start := time.Now()
	for spins := 0; ; spins++ {
		if w.quit.Load() {
			return nil
		}
		if job := w.mailbox.Load(); job != nil {
			w.busy.Store(true) // before taking it: wait then knows to wait
			if w.mailbox.CompareAndSwap(job, nil) {
				return job
			}
			w.busy.Store(false) // wait took it back
			continue
		}
		if spins%64 != 63 {
			continue
		}
		if time.Since(start) < spinFor {
			runtime.Gosched()
			continue
		}
		w.parked.Store(true)
		if w.mailbox.Load() == nil && !w.quit.Load() {
			<-w.wake
		}
		w.parked.Store(false)
		start, spins = time.Now(), 0
	}
}

// signal wakes w if it is parked.
func (w *poolWorker) signal() {
	if w.parked.Load() {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// size returns the number of goroutines that compute a job, the
// caller's included.
func (p *pool) size() int { return len(p.workers) + 1 }

// start hands items [0, m) of fn to the background workers and returns at
// once; fn(k, j) runs once for every j, on some worker k. A panic of fn is
// the item's error (a *core.PanicError naming j), never a crash. Every item of
// the previous job must be taken (claimed) before the next one starts, and
// every job must be waited for (or done) before the pool closes. Up to m
// workers are offered the job, even for one item: the caller may be busy
// with other work and join in later (helpOne, wait).
func (p *pool) start(m int, fn func(k, j int) error) *job {
	jb := &job{pool: p, m: m, fn: fn, errs: make([]error, m)}
	for k := range p.workers[:min(len(p.workers), m)] {
		w := &p.workers[k]
		w.mailbox.Store(jb)
		w.signal()
	}
	return jb
}

// run is start followed by wait.
func (p *pool) run(m int, fn func(k, j int) error) error { return p.start(m, fn).wait() }

// done reports whether every item of the job has been computed (workers
// may still be leaving it, touching nothing of it but its item counter).
func (j *job) done() bool { return j.finished.Load() == int64(j.m) }

// claimed reports whether every item of the job has been taken by some
// worker (computed or in progress): the next job may start.
func (j *job) claimed() bool { return j.next.Load() >= int64(j.m) }

// helpOne computes, on the caller's goroutine, the next item no worker has
// taken yet, if any, and reports whether there was one; between two items
// the caller can look at what the items computed so far allow it to do.
func (j *job) helpOne() bool {
	if j.claimed() {
		return false
	}
	i := int(j.next.Add(1) - 1)
	if i >= j.m {
		return false
	}
	j.errs[i] = j.item(0, i)
	j.finished.Add(1)
	return true
}

// wait computes the items no worker has taken yet on the caller's
// goroutine, waits for the workers still computing one, and returns the
// error of the lowest item that failed (so the error does not depend on
// the timing). Once it returns, no worker touches the job.
func (j *job) wait() error {
	if j == nil || j.m == 0 {
		return nil
	}
	j.work(0)
	for k := range j.pool.workers {
		w := &j.pool.workers[k]
		if w.mailbox.CompareAndSwap(j, nil) {
			continue // never picked up: nothing to wait for
		}
		for spins := 0; w.busy.Load(); spins++ {
			if spins%64 == 63 {
				runtime.Gosched()
			}
		}
	}
	for _, err := range j.errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// work takes items until none is left, as worker k.
func (j *job) work(k int) {
	for {
		i := int(j.next.Add(1) - 1)
		if i >= j.m {
			return
		}
		j.errs[i] = j.item(k, i)
		j.finished.Add(1)
	}
}

// item computes item i on worker k, a panic becoming its error.
func (j *job) item(k, i int) (err error) {
	defer core.Recover(i, &err)
	return j.fn(k, i)
}

// close stops the background workers; no job may be under way.
func (p *pool) close() {
	for k := range p.workers {
		w := &p.workers[k]
		w.quit.Store(true)
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
	p.wg.Wait()
	p.workers = nil
}
