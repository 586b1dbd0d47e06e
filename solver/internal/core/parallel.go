package core

import "sync"

// Parallel calls fn(k, i) for every i in [0, n), splitting [0, n) into W
// contiguous static ranges, worker k taking the k-th, so that per-worker
// reductions are deterministic whatever the timing. A worker stops at its
// first error; Parallel returns the error of the lowest-numbered worker
// that failed.
func Parallel(n, W int, fn func(k, i int) error) error {
	W = max(1, min(W, n))
	errs := make([]error, W)
	run := func(k int) {
		for i := k * n / W; i < (k+1)*n/W; i++ {
			if errs[k] = fn(k, i); errs[k] != nil {
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
