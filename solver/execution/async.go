package execution

import (
	"sync"

	"github.com/fwstruct/fwstruct/solver/internal/core"
)

// async schedules the steps of Async (Wang et al. 2016, Alg. 1 with the
// server on the updater's goroutine): the workers compute read parts on
// their own copy of w, taken when the block was handed to them, so
// possibly stale; the updater writes the steps as the answers arrive. It
// keeps every worker busy: a step hands out new blocks until Workers are
// in flight, then writes the oldest answer that has arrived, waiting for
// one when none has. A block in flight is not handed out again until its
// step is written (drawIdle), so that no worker reads a block the updater
// writes; Settle waits for the answers in flight, which an evaluation's
// oracle pass would otherwise compete with and whose blocks it
// re-anchors.
//
// Which answer arrives first depends on timing, so a run is not
// reproducible bit for bit (Simulated is its deterministic model). The
// answers still in flight when a run stops wait in the queue (saved in a
// checkpoint) and the next Step writes them.
type async[E, S any] struct {
	queue[E, S]
	tasks    chan entry[E] // blocks handed to the workers
	results  chan entry[E] // their answers
	wg       sync.WaitGroup
	inFlight int
	free     [][]float64 // recycled copies of w
	spare    []entry[E]  // recycled entries (their buffers)
	task     entry[E]    // the block being handed out (a field: Begin takes its address)
}

func newAsync[E, S any](steps Steps[E, S]) *async[E, S] {
	return &async[E, S]{queue: queue[E, S]{steps: steps}}
}

func (a *async[E, S]) Ahead() bool { return true }

// start launches Steps.Workers() workers.
func (a *async[E, S]) start() {
	k := max(1, a.steps.Workers())
	a.tasks = make(chan entry[E], k)
	a.results = make(chan entry[E], k)
	steps := a.steps
	for worker := range k {
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			for t := range a.tasks {
				func() {
					defer core.Recover(int(t.block), &t.err) // a panic is the answer's error
					t.err = steps.Read(int(t.block), &t.read, t.w, worker)
				}()
				a.results <- t
			}
		}()
	}
}

// Stop waits for the workers and queues the answers still in flight.
func (a *async[E, S]) Stop() {
	if a.tasks == nil {
		return
	}
	close(a.tasks)
	go func() { a.wg.Wait(); close(a.results) }()
	for t := range a.results {
		a.queueAnswer(t)
	}
	a.tasks, a.results, a.inFlight = nil, nil, 0
}

// Settle waits for the answers in flight and queues them, the workers
// staying up.
func (a *async[E, S]) Settle() {
	for ; a.inFlight > 0; a.inFlight-- {
		a.queueAnswer(<-a.results)
	}
}

// queueAnswer appends a worker's answer to the queue of steps to write (an
// answer in error is dropped: the step that receives it reports it).
func (a *async[E, S]) queueAnswer(t entry[E]) {
	a.free = append(a.free, t.w)
	if t.err != nil {
		a.setBusy(int(t.block), false)
		a.spare = append(a.spare, t)
		return
	}
	e := a.push(int(t.block), t.at)
	a.spare = append(a.spare, *e) // the old buffers of the slot
	*e = t
}

// Step hands out blocks until every worker is busy, then writes the oldest
// answer that has arrived. The workers are started anew when
// Steps.Workers() changed (each reads with the method's scratch of its
// index).
func (a *async[E, S]) Step() error {
	if a.tasks != nil && cap(a.tasks) != max(1, a.steps.Workers()) {
		a.Stop()
	}
	if a.tasks == nil {
		a.start()
	}
	if a.next > 0 && a.next >= len(a.entries)/2 {
		a.compact()
	}
	for a.inFlight < cap(a.tasks) {
		i, ok := a.drawIdle()
		if !ok {
			break
		}
		t := &a.task
		*t = entry[E]{}
		if m := len(a.spare); m > 0 {
			*t, a.spare = a.spare[m-1], a.spare[:m-1]
		}
		t.block, t.at, t.err = int32(i), a.steps.Made(), nil
		a.steps.Begin(i, &t.read)
		w := a.steps.Iterate()
		if m := len(a.free); m > 0 {
			t.w, a.free = a.free[m-1], a.free[:m-1]
		} else {
			t.w = make([]float64, len(w))
		}
		copy(t.w, w)
		a.setBusy(i, true)
		a.tasks <- *t
		a.inFlight++
	}
	if a.pending() == 0 {
		t := <-a.results
		a.inFlight--
		if t.err != nil {
			a.free = append(a.free, t.w)
			a.setBusy(int(t.block), false)
			return t.err
		}
		a.queueAnswer(t)
	}
	return a.apply()
}

// Save returns the answers arrived (Settle first).
func (a *async[E, S]) Save() *Saved[S] { return a.save(false) }

// Restore queues the answers of sv.
func (a *async[E, S]) Restore(sv *Saved[S]) error { return a.restore(sv, -1, false, true) }
