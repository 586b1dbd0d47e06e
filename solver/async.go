package solver

import (
	"sync"

	"github.com/fwstruct/fwstruct/solver/internal/core"
)

// Asynchronous BCFW on shared memory (Wang et al. 2016, Alg. 1 with the
// server on the solver's goroutine; Config.Async): the workers
// (WithWorkers) solve block oracles on their own copy of w, taken when the
// block was handed to them, so possibly stale; one updater, the solver's
// Step, applies the block steps as the answers arrive, each with its
// block's own line search at the current iterate (the answer's score
// recomputed there). The updater keeps every worker busy: a step hands out
// new blocks until Workers are in flight, then applies the oldest answer
// that has arrived, waiting for one when none has. With the cache, a block
// the cache rule expects to hit (cacheWouldHit) is not handed out; its step
// applies the cache rule at its turn.
//
// Which answer arrives first depends on timing, so a run is not
// reproducible bit for bit (the delay simulator, SimulateWorkers, is its
// deterministic model). Everything else holds: the evaluations certify the
// iterate the updater holds (the workers never write it), the answers
// still in flight when a Run call ends wait in the queue of answers
// (saved in a checkpoint) and the next call applies them.

// asyncState is the worker pool of an asynchronous run under way.
type asyncState struct {
	tasks    chan asyncTask
	results  chan asyncTask
	wg       sync.WaitGroup
	inFlight int
	free     [][]float64 // recycled copies of w
}

// asyncTask is a block handed to a worker and, once solved, its answer.
type asyncTask struct {
	i   int
	at  int64     // Solver.steps when w was copied
	w   []float64 // the worker's copy of w
	y   []int32
	h   float64
	err error
}

// start launches the workers.
func (a *asyncState) start(s *Solver) {
	k := max(1, s.workers)
	a.tasks = make(chan asyncTask, k)
	a.results = make(chan asyncTask, k)
	for range k {
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			for t := range a.tasks {
				func() {
					defer core.Recover(t.i, &t.err) // a panic is the answer's error
					t.y, t.h, t.err = s.oracle(t.i, t.w, t.y)
				}()
				a.results <- t
			}
		}()
	}
}

// stop waits for the workers and queues the answers still in flight.
func (s *Solver) stopAsync() {
	a := s.async
	if a == nil || a.tasks == nil {
		return
	}
	close(a.tasks)
	go func() { a.wg.Wait(); close(a.results) }()
	for t := range a.results {
		s.queueAnswer(t)
	}
	a.tasks, a.results, a.inFlight = nil, nil, 0
}

// queueAnswer appends a worker's answer to the queue of answers to apply
// (an answer in error is dropped: the step that receives it reports it).
func (s *Solver) queueAnswer(t asyncTask) {
	a, p := s.async, &s.work.pre
	a.free = append(a.free, t.w)
	if t.err != nil {
		return
	}
	j := p.push(t.i, t.at)
	p.ys[j], p.hs[j] = t.y, t.h
}

// asyncStep hands out blocks until every worker is busy, then applies the
// oldest answer that has arrived.
func (s *Solver) asyncStep() error {
	if s.async == nil {
		s.async = new(asyncState)
	}
	a, p := s.async, &s.work.pre
	if a.tasks == nil {
		a.start(s)
	}
	if p.next > 0 && p.next >= len(p.blocks)/2 {
		p.compact()
	}
	for a.inFlight < cap(a.tasks) { // the pool started with, whatever SetWorkers did since
		i := s.samp.Next(s.rng)
		if s.cacheWouldHit(i) {
			j := p.push(i, s.steps)
			p.cached[j] = true
			break // its step comes first; the next step refills
		}
		var w []float64
		if m := len(a.free); m > 0 {
			w, a.free = a.free[m-1], a.free[:m-1]
		} else {
			w = make([]float64, s.d)
		}
		copy(w, s.x.w)
		a.tasks <- asyncTask{i: i, at: s.steps, w: w}
		a.inFlight++
	}
	if p.pending() == 0 {
		t := <-a.results
		a.inFlight--
		if t.err != nil {
			a.free = append(a.free, t.w)
			return t.err
		}
		s.queueAnswer(t)
	}
	return s.applyHead()
}
