package execution

import (
	"fmt"

	"github.com/fwstruct/fwstruct/solver/run"
)

// Steps is the block step of a method as the executions schedule it: the
// method (the BCFW engine of package solver) implements it, Schedule
// takes it. A step on block i is split in three, so that its read part
// can run ahead of its write part, elsewhere and at an older iterate:
//
//   - Begin(i, e), on the updater's goroutine when block i is drawn,
//     fixes in e what the read part reads of the method's state besides w
//     and block i's own (the block's stale gap, the global gap of the
//     cache rule), so that the read part does not depend on when it runs;
//   - Read(i, e, w, k) computes the read part at w, the current iterate or
//     a copy of an earlier one: the scores of the block's cached corners,
//     the cache rule, the max oracle's answer and its corner. It writes
//     only e and reads only e, w and block i's own state, which no write
//     touches while the entry waits (a scheduler never has two entries of
//     one block under way), so that it may run on any goroutine, as worker
//     k < Workers(), while the updater applies the steps of other blocks.
//     A panic of the problem's code is its error;
//   - Write(i, e, age) makes the step at the current iterate, on the
//     updater's goroutine: what e decided stands (the corner the step
//     moves to, the block's new stale gap at e's w), what the update needs
//     is recomputed at the current iterate when w moved since the read
//     (age > 0 steps ago, or age < 0: it moved without a step), so that
//     every step is an exact line search whatever the delay.
//
// E is the read part of one step: a scheduler keeps the E values it is
// done with and hands them to Begin again, so that their buffers are
// reused. S is E's checkpoint form.
type Steps[E, S any] interface {
	// Blocks returns n, the number of blocks.
	Blocks() int
	// Workers returns the number of goroutines the read parts may run on.
	Workers() int
	// Made returns the number of steps made so far.
	Made() int64
	// Step makes one sequential step: a block drawn with the method's
	// sampling, read and written at the current iterate.
	Step() error
	// Draw draws tau distinct blocks with the method's sampling, none of
	// them in exclude, into dst[:0] and returns it; with tau = 1 and no
	// exclusion it draws the block Step would.
	Draw(tau int, exclude []int, dst []int) []int
	// Room returns the steps the method may make before every step drawn
	// must have been written, because the method decides then what comes
	// next (multi-plane BCFW: the rest of its pass, whose end decides the
	// kind of the next one); math.MaxInt when it never must.
	Room() int
	// Iterate returns the current w, to be read on the updater's
	// goroutine only (the next Write changes it) or copied.
	Iterate() []float64
	// Snapshot copies w into dst, the buffer of one of ring slots used in
	// turn (the result of the call ring calls before, nil the first time),
	// and returns it: a copy that may cost only the coordinates written
	// since that buffer's last copy.
	Snapshot(dst []float64, ring int) []float64
	// Begin starts e as the read part of a step on block i, drawn now.
	Begin(i int, e *E)
	// Read computes the read part e of block i's step at w on worker k.
	Read(i int, e *E, w []float64, k int) error
	// Write makes block i's step with the read part e, computed age steps
	// ago (negative: at an iterate w moved from without a step).
	Write(i int, e *E, age int64) error
	// Save returns the checkpoint form of e, the read part of a step on
	// block i.
	Save(i int, e *E) S
	// Restore sets e, the read part of a step on block i, from its
	// checkpoint form, checking it.
	Restore(i int, e *E, saved S) error
}

// A Scheduler makes the steps of a method under one execution (Schedule).
// Every method is called on the updater's goroutine, the one that runs the
// method; the read parts run wherever the execution puts them.
type Scheduler[E, S any] interface {
	// Step makes the next step.
	Step() error
	// Ahead reports whether read parts are computed ahead of their writes
	// (every execution but the sequential one): the method's state is
	// then read on other goroutines, or at older iterates, between the
	// steps.
	Ahead() bool
	// Settle waits for the read parts computed in the background: until
	// the next Step, nothing reads the method's state (an evaluation, a
	// checkpoint, a change of the workers need every block at rest). The
	// steps drawn stay queued.
	Settle()
	// Stop settles and stops the goroutines of the execution (the end of a
	// run); the steps drawn stay queued for the next Step.
	Stop()
	// Moved says that w moved without a step: the read parts under way
	// are of an unknown age.
	Moved()
	// Save returns the steps under way (nil when there are none), Settle
	// called first.
	Save() *Saved[S]
	// Restore queues the steps of a checkpoint again (nil: none),
	// checking them.
	Restore(sv *Saved[S]) error
}

// Saved is the checkpoint form of the steps under way of a Scheduler, in
// the order they are applied: the block of each, the step its read part
// saw w at (-1: w moved since without a step), the step by which the
// delay simulator applies it (Dues: only with Simulated.Delays), and its
// read part.
type Saved[S any] struct {
	Blocks []int32
	Ats    []int64
	Dues   []int64
	Reads  []S
}

// Schedule returns the scheduler of execution x over steps: sequential
// for nil, Sequential and a MiniBatch of one block without lookahead; seed
// seeds the delays Simulated draws. Whether the method can be run by x is
// the method's to say, before.
func Schedule[E, S any](x run.Execution, steps Steps[E, S], seed uint64) (Scheduler[E, S], error) {
	if err := Validate(x); err != nil {
		return nil, err
	}
	switch x := x.(type) {
	case MiniBatch:
		if x.Batch > 1 || x.Lookahead > 0 {
			if n := steps.Blocks(); x.Lookahead >= n {
				return nil, fmt.Errorf("a lookahead of %d batches needs more than %d blocks (the batches under way hold distinct blocks); this problem has %d", x.Lookahead, x.Lookahead, n)
			}
			return newMiniBatch(x, steps), nil
		}
	case Async:
		return newAsync(steps), nil
	case Simulated:
		return newSimulated(x, steps, seed), nil
	}
	return sequential[E, S]{steps}, nil
}

// sequential is the sequential execution: each step reads and writes the
// current iterate (Steps.Step).
type sequential[E, S any] struct{ steps Steps[E, S] }

func (q sequential[E, S]) Step() error { return q.steps.Step() }
func (sequential[E, S]) Ahead() bool   { return false }
func (sequential[E, S]) Settle()       {}
func (sequential[E, S]) Stop()         {}
func (sequential[E, S]) Moved()        {}
func (sequential[E, S]) Save() *Saved[S] {
	return nil
}

func (sequential[E, S]) Restore(sv *Saved[S]) error {
	if sv != nil {
		return fmt.Errorf("%d steps under way in a run of sequential steps", len(sv.Blocks))
	}
	return nil
}
