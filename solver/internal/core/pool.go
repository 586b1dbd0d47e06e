package core

import (
	"sync"
	"sync/atomic"
)

// Pool is a set of long-lived worker goroutines that compute the items of
// one job at a time in the background (Start), while the caller's
// goroutine goes on with other work; the caller joins in when it waits for
// the job (Job.Wait). Items are handed out one at a time in index order
// (dynamic assignment), which balances items of uneven cost (an oracle
// call next to a cache hit); a job's results must therefore not depend on
// which goroutine computed which item, e.g. every item writing only its
// own slot. A Pool of one worker runs every job in Wait, on the caller's
// goroutine.
type Pool struct {
	jobs []chan *Job // one per background worker
	wg   sync.WaitGroup
	job  Job // the job of the last Start, reused
}

// Job is the work of one Start: items [0, m) of fn.
type Job struct {
	m    int
	fn   func(j int) error
	next atomic.Int64
	errs []error // the error of each item (nil: none)
	done sync.WaitGroup
}

// NewPool starts workers-1 background goroutines (the caller's goroutine
// is the last worker); workers < 1 counts as 1. Close stops them.
func NewPool(workers int) *Pool {
	p := &Pool{jobs: make([]chan *Job, max(0, workers-1))}
	for k := range p.jobs {
		ch := make(chan *Job, 1)
		p.jobs[k] = ch
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for job := range ch {
				job.work()
				job.done.Done()
			}
		}()
	}
	return p
}

// Workers returns the number of goroutines that compute a job, the
// caller's included.
func (p *Pool) Workers() int { return len(p.jobs) + 1 }

// Start hands items [0, m) of fn to the background workers and returns at
// once; fn(j) runs once for every j, on some worker. A panic of fn is the
// item's error (a *PanicError naming j), never a crash. The caller must
// Wait for the job before it starts another one or closes the pool.
func (p *Pool) Start(m int, fn func(j int) error) *Job {
	job := &p.job
	job.m, job.fn = m, fn
	job.next.Store(0)
	job.errs = append(job.errs[:0], make([]error, m)...)
	if m > 0 {
		job.done.Add(len(p.jobs))
		for _, ch := range p.jobs {
			ch <- job
		}
	}
	return job
}

// Run is Start followed by Wait.
func (p *Pool) Run(m int, fn func(j int) error) error { return p.Start(m, fn).Wait() }

// Wait computes the items no worker has taken yet on the caller's
// goroutine, waits for the items in progress, and returns the error of the
// lowest item that failed (so the error does not depend on the timing).
func (j *Job) Wait() error {
	if j == nil || j.m == 0 {
		return nil
	}
	j.work()
	j.done.Wait()
	for _, err := range j.errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// work takes items until none is left.
func (j *Job) work() {
	for {
		k := int(j.next.Add(1) - 1)
		if k >= j.m {
			return
		}
		j.errs[k] = j.item(k)
	}
}

// item computes item k, a panic becoming its error.
func (j *Job) item(k int) (err error) {
	defer Recover(k, &err)
	return j.fn(k)
}

// Close stops the background workers; no job may be under way.
func (p *Pool) Close() {
	for _, ch := range p.jobs {
		close(ch)
	}
	p.wg.Wait()
	p.jobs = nil
}
