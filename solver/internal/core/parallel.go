package core

import (
	"fmt"
	"sync"
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

// Parallel calls fn(k, i) for every i in [0, n), splitting [0, n) into W
// contiguous static ranges, worker k taking the k-th, so that per-worker
// reductions are deterministic whatever the timing. A worker stops at its
// first error, a panic of fn being a *PanicError; Parallel returns the
// error of the lowest-numbered worker that failed.
func Parallel(n, W int, fn func(k, i int) error) error {
	W = max(1, min(W, n))
	errs := make([]error, W)
	run := func(k int) {
		for i := k * n / W; i < (k+1)*n/W; i++ {
			if errs[k] = call(fn, k, i); errs[k] != nil {
				return
			}
		}
	}
	if W == 1 {
		run(0)
	} else {
		var wg sync.WaitGroup
		for k := 0; k < W; k++ {
			wg.Add(1)
			go func(k int) {
				defer wg.Done()
				run(k)
			}(k)
		}
		wg.Wait()
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
