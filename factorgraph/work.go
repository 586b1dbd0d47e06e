package factorgraph

import (
	"github.com/fwstruct/fwstruct/inference/lp"
	"github.com/fwstruct/fwstruct/oracles"
)

// work is the per-call scratch storage of the views, kept in a sync.Pool so
// that oracle calls do not allocate in steady state.
type work struct {
	tab  []float64 // node tables theta_alpha, flat (Graph.TableOffset)
	aux  []float64 // second flat table (max-sum beliefs, LP costs)
	mu   []float64 // LP solution, flat like tab
	y    []int32   // current labeling (enumeration)
	st   []int32   // current factor states (enumeration)
	dir  []int8    // Gray-code directions
	msg  []float64 // one max-sum message
	acc  oracles.Accumulator
	lpws lp.Workspace
}

// grow returns s resized to n entries, reallocating when too small.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
