package core

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// PanicError is a panic raised while a solver worked on one example, most
// likely in the problem's MaxOracle, Loss or Psi (a user's problem
// returning a label or psi index out of range), turned into the run's
// error instead of killing the process.
type PanicError struct {
	Example int
	Value   any
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("example %d: panic in the problem's oracle, loss or psi (a label or psi index out of range?): %v", e.Example, e.Value)
}

// Recover, deferred by a function working on example i with the named
// result err, turns a panic into err = &PanicError{i, value}.
func Recover(i int, err *error) {
	if r := recover(); r != nil {
		*err = &PanicError{Example: i, Value: r}
	}
}

// call calls fn(k, i), a panic becoming its error.
func call(fn func(k, i int) error, k, i int) (err error) {
	defer Recover(i, &err)
	return fn(k, i)
}

// Parallel calls fn(k, i) for every i in [0, n) on W workers, worker k
// computing its items with its own k (so that each can use a scratch of
// its own). The items are taken in contiguous chunks from a shared counter
// (dynamic assignment): items of uneven cost (an LP, a graph cut) and a
// core slowed by other jobs of the machine do not leave a worker idle
// while the other finishes a fixed half. fn must therefore write nothing
// that depends on which worker computed which item (every item its own
// slot; per-worker scratch only). After an error no new chunk is taken; a
// panic of fn is a *PanicError. Parallel returns the error of the lowest
// item that failed, which does not depend on the timing: chunks are taken
// in order, so every chunk below a failing one was taken and computed.
func Parallel(n, W int, fn func(k, i int) error) error {
	W = max(1, min(W, n))
	if W == 1 {
		for i := 0; i < n; i++ {
			if err := call(fn, 0, i); err != nil {
				return err
			}
		}
		return nil
	}
	chunk := max(1, n/(W*parallelChunks))
	var (
		next   atomic.Int64
		failed atomic.Bool
		mu     sync.Mutex
		first  = n // the lowest item that failed
		ferr   error
		wg     sync.WaitGroup
	)
	run := func(k int) {
		defer wg.Done()
		for !failed.Load() {
			lo := int(next.Add(int64(chunk))) - chunk
			if lo >= n {
				return
			}
			for i := lo; i < min(lo+chunk, n); i++ {
				if err := call(fn, k, i); err != nil {
					mu.Lock()
					if i < first {
						first, ferr = i, err
					}
					mu.Unlock()
					failed.Store(true)
					return
				}
			}
		}
	}
	wg.Add(W)
	for k := 1; k < W; k++ {
		go run(k)
	}
	run(0)
	wg.Wait()
	return ferr
}

// parallelChunks is the number of chunks per worker Parallel aims at.
const parallelChunks = 16
