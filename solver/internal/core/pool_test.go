package core

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
)

// TestPoolComputesEveryItemOnce: every item of every job runs exactly once,
// whatever the number of workers, and Wait returns after all of them.
func TestPoolComputesEveryItemOnce(t *testing.T) {
	for _, workers := range []int{0, 1, 2, 5} {
		p := NewPool(workers)
		if want := max(1, workers); p.Workers() != want {
			t.Fatalf("NewPool(%d).Workers() = %d, want %d", workers, p.Workers(), want)
		}
		for _, m := range []int{0, 1, 3, 100} {
			counts := make([]atomic.Int32, m)
			if err := p.Run(m, countItems(t, counts, p.Workers())); err != nil {
				t.Fatal(err)
			}
			checkEachOnce(t, fmt.Sprintf("workers %d, m %d", workers, m), counts)
		}
		p.Close()
	}
}

// TestPoolBackground: Start returns before the job is done, the caller's
// goroutine can work meanwhile, and Wait joins in.
func TestPoolBackground(t *testing.T) {
	p := NewPool(2)
	defer p.Close()
	release := make(chan struct{})
	var done atomic.Int32
	job := p.Start(4, func(_, j int) error {
		if j == 0 {
			<-release // holds one worker until the caller lets it go
		}
		done.Add(1)
		return nil
	})
	close(release)
	if err := job.Wait(); err != nil {
		t.Fatal(err)
	}
	if done.Load() != 4 {
		t.Fatalf("%d items done after Wait, want 4", done.Load())
	}
}

// TestPoolErrors: Wait returns the error of the lowest failing item, and a
// panic is an item's error naming it, never a crash.
func TestPoolErrors(t *testing.T) {
	p := NewPool(3)
	defer p.Close()
	for trial := 0; trial < 20; trial++ {
		err := p.Run(50, func(_, j int) error {
			if j == 17 || j == 40 {
				return fmt.Errorf("item %d", j)
			}
			return nil
		})
		if err == nil || err.Error() != "item 17" {
			t.Fatalf("error %v, want item 17's", err)
		}
	}
	err := p.Run(10, func(_, j int) error {
		if j == 6 {
			var s []int
			_ = s[j]
		}
		return nil
	})
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Example != 6 {
		t.Fatalf("panic: error %v, want a *PanicError of item 6", err)
	}
}

// TestPoolJobsOverlap: the next job starts once every item of the last
// one is taken, though one of them is still being computed: its items are
// computed and waited for without waiting for the slow item, which the
// last job's Wait then waits for. Start offers even a single item to a
// worker, and HelpOne takes the items left one at a time.
func TestPoolJobsOverlap(t *testing.T) {
	p := NewPool(3)
	defer p.Close()
	release := make(chan struct{})
	var slowDone atomic.Bool
	slow := p.Start(1, func(k, _ int) error {
		if k == 0 {
			t.Error("the single item of a job ran on the caller's goroutine, not offered to a worker")
		}
		<-release
		slowDone.Store(true)
		return nil
	})
	for !slow.Claimed() {
		runtime.Gosched()
	}
	if slow.HelpOne() {
		t.Fatal("HelpOne took an item already taken")
	}
	counts := make([]atomic.Int32, 5)
	next := p.Start(len(counts), countItems(t, counts, p.Workers()))
	for next.HelpOne() {
	}
	if err := next.Wait(); err != nil {
		t.Fatal(err)
	}
	checkEachOnce(t, "the next job", counts)
	if slowDone.Load() || slow.Done() {
		t.Fatal("the slow item finished before it was released")
	}
	close(release)
	if err := slow.Wait(); err != nil || !slowDone.Load() {
		t.Fatalf("Wait returned %v before the slow item finished", err)
	}
}

// countItems returns an item function that counts each item it is called
// for in counts, checking that its worker index is below workers.
func countItems(t *testing.T, counts []atomic.Int32, workers int) func(k, j int) error {
	return func(k, j int) error {
		if k < 0 || k >= workers {
			t.Errorf("item %d on worker %d of %d", j, k, workers)
		}
		counts[j].Add(1)
		return nil
	}
}

// checkEachOnce fails the test unless every item was counted exactly once.
func checkEachOnce(t *testing.T, what string, counts []atomic.Int32) {
	t.Helper()
	for j := range counts {
		if c := counts[j].Load(); c != 1 {
			t.Fatalf("%s: item %d ran %d times", what, j, c)
		}
	}
}
