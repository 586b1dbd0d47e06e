package execution

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/fwstruct/fwstruct/solver/internal/core"
)

// TestPoolComputesEveryItemOnce: every item of every job runs exactly once,
// whatever the number of workers, and Wait returns after all of them.
func TestPoolComputesEveryItemOnce(t *testing.T) {
	for _, workers := range []int{0, 1, 2, 5} {
		p := newPool(workers)
		if want := max(1, workers); p.size() != want {
			t.Fatalf("newPool(%d).size() = %d, want %d", workers, p.size(), want)
		}
		for _, m := range []int{0, 1, 3, 100} {
			items := newTally(m)
			if err := p.run(m, items.item(t, p.size())); err != nil {
				t.Fatal(err)
			}
			items.once(t, fmt.Sprintf("workers %d, m %d", workers, m))
		}
		p.close()
	}
}

// TestPoolBackground: Start returns before the job is done, the caller's
// goroutine can work meanwhile, and Wait joins in.
func TestPoolBackground(t *testing.T) {
	p := newPool(2)
	defer p.close()
	release := make(chan struct{})
	var done atomic.Int32
	job := p.start(4, func(_, j int) error {
		if j == 0 {
			<-release // holds one worker until the caller lets it go
		}
		done.Add(1)
		return nil
	})
	close(release)
	if err := job.wait(); err != nil {
		t.Fatal(err)
	}
	if done.Load() != 4 {
		t.Fatalf("%d items done after Wait, want 4", done.Load())
	}
}

// TestPoolErrors: Wait returns the error of the lowest failing item, and a
// panic is an item's error naming it, never a crash.
func TestPoolErrors(t *testing.T) {
	p := newPool(3)
	defer p.close()
	for trial := 0; trial < 20; trial++ {
		err := p.run(50, func(_, j int) error {
			if j == 17 || j == 40 {
				return fmt.Errorf("item %d", j)
			}
			return nil
		})
		if err == nil || err.Error() != "item 17" {
			t.Fatalf("error %v, want item 17's", err)
		}
	}
	err := p.run(10, func(_, j int) error {
		if j == 6 {
			var s []int
			_ = s[j]
		}
		return nil
	})
	var pe *core.PanicError
	if !errors.As(err, &pe) || pe.Example != 6 {
		t.Fatalf("panic: error %v, want a *core.PanicError of item 6", err)
	}
}

// TestPoolJobsOverlap: the next job starts once every item of the last
// one is taken, though one of them is still being computed: its items are
// computed and waited for without waiting for the slow item, which the
// last job's Wait then waits for. Start offers even a single item to a
// worker, and HelpOne takes the items left one at a time.
func TestPoolJobsOverlap(t *testing.T) {
	p := newPool(3)
	defer p.close()
	release := make(chan struct{})
	var slowDone atomic.Bool
	slow := p.start(1, func(k, _ int) error {
		if k == 0 {
			t.Error("the single item of a job ran on the caller's goroutine, not offered to a worker")
		}
		<-release
		slowDone.Store(true)
		return nil
	})
	for !slow.claimed() {
		runtime.Gosched()
	}
	if slow.helpOne() {
		t.Fatal("HelpOne took an item already taken")
	}
	items := newTally(5)
	next := p.start(len(items), items.item(t, p.size()))
	for next.helpOne() {
	}
	if err := next.wait(); err != nil {
		t.Fatal(err)
	}
	items.once(t, "the next job")
	if slowDone.Load() || slow.done() {
		t.Fatal("the slow item finished before it was released")
	}
	close(release)
	if err := slow.wait(); err != nil || !slowDone.Load() {
		t.Fatalf("Wait returned %v before the slow item finished", err)
	}
}

// tally counts the runs of every item of a job.
type tally []atomic.Int32

func newTally(m int) tally { return make(tally, m) }

// item returns the job's function: it counts item j and checks that its
// worker index is below workers.
func (c tally) item(t *testing.T, workers int) func(k, j int) error {
	return func(k, j int) error {
		if k < 0 || k >= workers {
			t.Errorf("item %d on worker %d of %d", j, k, workers)
		}
		c[j].Add(1)
		return nil
	}
}

// once fails the test unless every item ran exactly once.
func (c tally) once(t *testing.T, what string) {
	t.Helper()
	for j := range c {
		if n := c[j].Load(); n != 1 {
			t.Fatalf("%s: item %d ran %d times", what, j, n)
		}
	}
}
