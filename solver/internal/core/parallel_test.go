package core

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestParallelRecovers: a panic in a worker goroutine is the error of its
// example, not a crash of the process (issue 22 item 9); the other
// workers finish.
func TestParallelRecovers(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		done := make([]bool, 10)
		err := Parallel(10, workers, func(k, i int) error {
			if i == 7 {
				var table []int
				_ = table[i]
			}
			done[i] = true
			return nil
		})
		var pe *PanicError
		if !errors.As(err, &pe) || pe.Example != 7 || !strings.Contains(err.Error(), "example 7: panic") || !strings.Contains(err.Error(), "index out of range") {
			t.Fatalf("%d workers: %v", workers, err)
		}
		if workers > 1 && !done[0] {
			t.Fatalf("%d workers: the first worker did not finish", workers)
		}
	}
}

// TestParallelEveryItemOnceLowestError: every item runs exactly once on a
// worker index in range, whatever n and W, and with failing items the
// error is always the lowest one's, though the chunks are taken
// dynamically and the items' costs differ.
func TestParallelEveryItemOnceLowestError(t *testing.T) {
	for _, workers := range []int{1, 2, 3, 8} {
		for _, n := range []int{0, 1, 5, 33, 1000} {
			counts := make([]atomic.Int32, n)
			if err := Parallel(n, workers, countItems(t, counts, max(1, min(workers, n)))); err != nil {
				t.Fatal(err)
			}
			checkEachOnce(t, fmt.Sprintf("W %d, n %d", workers, n), counts)
		}
		for trial := 0; trial < 20; trial++ {
			err := Parallel(400, workers, func(_, i int) error {
				if i%7 == trial%7 { // uneven costs
					time.Sleep(time.Duration(i%3) * time.Microsecond)
					runtime.Gosched()
				}
				if i == 170 || i == 171 || i == 390 {
					return fmt.Errorf("item %d", i)
				}
				return nil
			})
			if err == nil || err.Error() != "item 170" {
				t.Fatalf("W %d: error %v, want item 170's", workers, err)
			}
		}
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
