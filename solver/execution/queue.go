package execution

import (
	"errors"
	"fmt"
)

// entry is a step under way: its block, the step whose iterate its read
// part saw, and the read part.
type entry[E any] struct {
	block int32
	at    int64 // Steps.Made() when its read part saw w; -1 once w moved without a step (Moved)
	due   int64 // the step by which the simulator applies it (Simulated.Delays)
	read  E
	// A mini-batch's entry: the copy of w its read part reads, its error,
	// and ready (atomic: 1 once computed). The asynchronous execution's
	// tasks carry their worker's copy of w and their error the same way.
	w     []float64
	err   error
	ready uint32
}

// queue is the steps whose read part is computed ahead of their write, in
// the order they are written: the rest of the mini-batch under way and
// the batches drawn ahead, the answers in flight of the delay simulator,
// or those the workers of the asynchronous execution returned. Entries
// from next on are pending. The clock advances by one step per Step, as
// for the sequential execution, so the evaluation schedule, the pass
// budget and a run split into several Run calls or saved and loaded
// mid-queue are what they would be for any other run (the queue is in
// the checkpoint).
type queue[E, S any] struct {
	steps   Steps[E, S]
	entries []entry[E] // in the order they are applied; buffers beyond len are kept for reuse
	next    int        // the position of the next step's entry
	busy    []bool     // block i has an entry pending or in flight (the simulator, async); nil for a mini-batch
	drawn   []int      // the blocks of the last draw
}

// pending returns the number of entries waiting.
func (q *queue[E, S]) pending() int { return len(q.entries) - q.next }

// compact drops the entries already applied, keeping their buffers.
func (q *queue[E, S]) compact() {
	if q.next == 0 {
		return
	}
	m := len(q.entries) - q.next
	for j := 0; j < m; j++ {
		q.entries[j], q.entries[q.next+j] = q.entries[q.next+j], q.entries[j]
	}
	q.entries = q.entries[:m]
	q.next = 0
}

// push appends an entry for block i whose read part sees the iterate of
// step at and returns it (valid until the next push), reusing the buffers
// of an old entry.
func (q *queue[E, S]) push(i int, at int64) *entry[E] {
	j := len(q.entries)
	if j < cap(q.entries) {
		q.entries = q.entries[:j+1]
	} else {
		q.entries = append(q.entries, entry[E]{})
	}
	e := &q.entries[j]
	e.block, e.at, e.err, e.ready = int32(i), at, nil, 0
	return e
}

// begin pushes an entry for block i drawn now and begins its read part.
func (q *queue[E, S]) begin(i int) *entry[E] {
	e := q.push(i, q.steps.Made())
	q.steps.Begin(i, &e.read)
	return e
}

// setBusy marks block i as having an entry pending or in flight.
func (q *queue[E, S]) setBusy(i int, on bool) {
	if q.busy == nil {
		q.busy = make([]bool, q.steps.Blocks())
	}
	q.busy[i] = on
}

// drawIdle draws the next block with the method's sampling, drawing again
// (up to idleDraws times in all) while the block drawn has an entry
// pending or in flight; ok is false when every draw hit such a block.
func (q *queue[E, S]) drawIdle() (int, bool) {
	for k := 0; k < idleDraws; k++ {
		q.drawn = q.steps.Draw(1, nil, q.drawn)
		if i := q.drawn[0]; q.busy == nil || !q.busy[i] {
			return i, true
		}
	}
	return 0, false
}

// idleDraws bounds the draws of drawIdle.
const idleDraws = 8

// apply writes the step of the entry at the head of the queue.
func (q *queue[E, S]) apply() error {
	e := &q.entries[q.next]
	i, age := int(e.block), int64(-1)
	if e.at >= 0 {
		age = q.steps.Made() - e.at
	}
	if err := q.steps.Write(i, &e.read, age); err != nil {
		return err
	}
	if q.busy != nil {
		q.busy[i] = false
	}
	q.next++
	return nil
}

// Moved marks every entry as computed at an iterate w moved from without a
// step.
func (q *queue[E, S]) Moved() {
	for j := range q.entries {
		q.entries[j].at = -1
	}
}

// save returns the pending entries (nil when none), with their dues when
// dues is set.
func (q *queue[E, S]) save(dues bool) *Saved[S] {
	rest := q.entries[q.next:]
	m := len(rest)
	if m == 0 {
		return nil
	}
	sv := &Saved[S]{Blocks: make([]int32, m), Ats: make([]int64, m), Reads: make([]S, m)}
	if dues {
		sv.Dues = make([]int64, m)
	}
	for j := range rest {
		e := &rest[j]
		sv.Blocks[j], sv.Ats[j] = e.block, e.at
		sv.Reads[j] = q.steps.Save(int(e.block), &e.read)
		if dues {
			sv.Dues[j] = e.due
		}
	}
	return sv
}

// restore replaces the queue by the entries of sv, at most most of them
// (negative: no bound), with their dues when dues is set, each marked
// computed, the blocks busy when busy is set.
func (q *queue[E, S]) restore(sv *Saved[S], most int, dues, busy bool) error {
	q.entries, q.next = q.entries[:0], 0
	if busy {
		q.busy = make([]bool, q.steps.Blocks())
	}
	if sv == nil {
		return nil
	}
	m := len(sv.Blocks)
	if (most >= 0 && m > most) || m == 0 || len(sv.Ats) != m || len(sv.Reads) != m || dues != (sv.Dues != nil) || (dues && len(sv.Dues) != m) {
		return errors.New("the queue of steps under way is malformed")
	}
	n, made := q.steps.Blocks(), q.steps.Made()
	for j, i := range sv.Blocks {
		switch {
		case i < 0 || int(i) >= n:
			return fmt.Errorf("the steps under way hold block %d of %d", i, n)
		case sv.Ats[j] < -1 || sv.Ats[j] > made:
			return fmt.Errorf("a step under way read the iterate of step %d, %d steps made", sv.Ats[j], made)
		case q.busy != nil && q.busy[i]:
			return fmt.Errorf("block %d is under way twice", i)
		}
		e := q.push(int(i), sv.Ats[j])
		if dues {
			e.due = sv.Dues[j]
		}
		if err := q.steps.Restore(int(i), &e.read, sv.Reads[j]); err != nil {
			q.entries = q.entries[:0]
			return err
		}
		e.ready = 1 // computed before the checkpoint
		if q.busy != nil {
			q.busy[i] = true
		}
	}
	return nil
}
