package solver

import (
	"sync"

	"github.com/fwstruct/fwstruct/solver/internal/core"
)

// Asynchronous BCFW on shared memory (Wang et al. 2016, Alg. 1 with the
// server on the solver's goroutine; Config.Async): the workers
// (WithWorkers) compute the read part of block steps (ahead.go: the scores
// of the block's cached corners, the cache rule, the max oracle) on their
// own copy of w, taken when the block was handed to them, so possibly
// stale; one updater, the solver's Step, applies the block steps as the
// answers arrive, each with its block's own line search at the current
// iterate (the scores of its corners recomputed there). The updater keeps
// every worker busy: a step hands out new blocks until Workers are in
// flight, then applies the oldest answer that has arrived, waiting for one
// when none has. A block in flight is not handed out again until its step
// is applied (drawIdle), so that no worker reads a block the updater
// writes; before an evaluation the updater waits for the answers in flight
// (drainAsync), which the evaluation's oracle pass would otherwise compete
// with and whose blocks it re-anchors.
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
	spare    []ahead     // recycled entries (their buffers)
}

// asyncTask is a block handed to a worker and, once prepared, its answer.
type asyncTask struct {
	e      ahead
	w      []float64 // the worker's copy of w
	global float64   // the global gap at the handout
	err    error
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
			var ws workerScratch
			for t := range a.tasks {
				func() {
					defer core.Recover(int(t.e.block), &t.err) // a panic is the answer's error
					t.err = s.prepare(&t.e, t.w, t.global, &ws)
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

// drainAsync waits for the answers in flight and queues them, the workers
// staying up (an evaluation is due).
func (s *Solver) drainAsync() {
	a := s.async
	if a == nil || a.tasks == nil {
		return
	}
	for ; a.inFlight > 0; a.inFlight-- {
		s.queueAnswer(<-a.results)
	}
}

// queueAnswer appends a worker's answer to the queue of steps to apply (an
// answer in error is dropped: the step that receives it reports it).
func (s *Solver) queueAnswer(t asyncTask) {
	a, p := s.async, &s.work.pre
	a.free = append(a.free, t.w)
	if t.err != nil {
		p.setBusy(int(t.e.block), s.n, false)
		a.spare = append(a.spare, t.e)
		return
	}
	e := p.push(int(t.e.block), t.e.at)
	a.spare = append(a.spare, *e) // the old buffers of the slot
	*e = t.e
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
	if p.next > 0 && p.next >= len(p.entries)/2 {
		p.compact()
	}
	for a.inFlight < cap(a.tasks) { // the pool started with, whatever SetWorkers did since
		i, ok := s.drawIdle()
		if !ok {
			break
		}
		var t asyncTask
		if m := len(a.spare); m > 0 {
			t.e, a.spare = a.spare[m-1], a.spare[:m-1]
		}
		t.e.block, t.e.at = int32(i), s.steps
		t.e.gapEst, t.e.approx = s.gapEst[i], false
		t.e.score = s.sets != nil && (s.cfg.explicitDuals() || s.reuse.scoring())
		if m := len(a.free); m > 0 {
			t.w, a.free = a.free[m-1], a.free[:m-1]
		} else {
			t.w = make([]float64, s.d)
		}
		copy(t.w, s.x.w)
		t.global = s.globalGap
		p.setBusy(i, s.n, true)
		a.tasks <- t
		a.inFlight++
	}
	if p.pending() == 0 {
		t := <-a.results
		a.inFlight--
		if t.err != nil {
			a.free = append(a.free, t.w)
			p.setBusy(int(t.e.block), s.n, false)
			return t.err
		}
		s.queueAnswer(t)
	}
	return s.applyHead()
}
