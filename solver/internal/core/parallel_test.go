package core

import (
	"errors"
	"strings"
	"testing"
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
