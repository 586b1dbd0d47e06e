package viz

import (
	"fmt"
	"math"
	"strings"

	"github.com/fwstruct/fwstruct/solver/run"
)

// A fork carries the history of the run it was forked from: its trace
// starts with the points of its parent's trace up to the fork
// (solver.Solver.Fork), and so does the trace of a run that switched a
// knob mid-run. Drawn whole, the two curves coincide over that history and
// whichever is drawn last hides the other. The trace figures draw every
// shared history once, in the style of the run it belongs to; the fork's
// curve starts at the last shared point, where it branches off.

// branch says where the curve of a run starts in a trace figure.
type branch struct {
	// start is the index of the first trace point drawn: 0 for a run drawn
	// whole, the last point shared with from for a fork.
	start int
	// from is the run whose curve draws the shared history (-1: none).
	from int
}

// samePoint reports whether two trace points are copies of one evaluation
// (NaN equal to NaN): the solver time of two distinct runs differs.
func samePoint(a, b run.Point) bool {
	eq := func(u, v float64) bool { return u == v || math.IsNaN(u) && math.IsNaN(v) }
	return a.Steps == b.Steps && a.OracleCalls == b.OracleCalls && a.Event == b.Event &&
		eq(a.Pass, b.Pass) && eq(a.Seconds, b.Seconds) && eq(a.Primal, b.Primal) && eq(a.Dual, b.Dual) &&
		eq(a.Gap, b.Gap) && eq(a.GapEstimate, b.GapEstimate) && eq(a.GapAvg, b.GapAvg) &&
		eq(a.TrainLoss, b.TrainLoss) && eq(a.TestLoss, b.TestLoss) && eq(a.TestLossAvg, b.TestLossAvg)
}

// sharedPrefix returns how many leading trace points a and b share.
func sharedPrefix(a, b []run.Point) int {
	k := 0
	for k < len(a) && k < len(b) && samePoint(a[k], b[k]) {
		k++
	}
	return k
}

// forksAt reports whether trace[k], the first point after a shared
// history of k points, records a fork or a switched knob (solver events
// of forks start with "fork").
func forksAt(trace []run.Point, k int) bool {
	return k < len(trace) && strings.HasPrefix(trace[k].Event, "fork")
}

// branches returns where the curve of every run starts. Two runs share a
// history when their traces start with the same two points or more (every
// run of a problem starts with the same evaluation at w = 0, which alone
// is no shared history). Of two runs sharing a history, the one whose next
// point records a fork branches off the other; when both or neither do,
// the later one in runs branches off. Runs are taken parents first (in the
// order of runs where that is no constraint), and each starts at the last
// point it shares with a run taken before it, if any.
func branches(runs []Run) []branch {
	n := len(runs)
	shared := make([][]int, n)
	for i := range shared {
		shared[i] = make([]int, n)
	}
	// parent[i][j]: i's history is drawn by j.
	parent := make([][]bool, n)
	for i := range parent {
		parent[i] = make([]bool, n)
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			k := sharedPrefix(runs[i].Trace, runs[j].Trace)
			shared[i][j], shared[j][i] = k, k
			if k < 2 {
				continue
			}
			if fi, fj := forksAt(runs[i].Trace, k), forksAt(runs[j].Trace, k); fi && !fj {
				parent[i][j] = true
			} else {
				parent[j][i] = true
			}
		}
	}
	out := make([]branch, n)
	placed := make([]bool, n)
	var order []int
	for len(order) < n {
		next := -1
		for i := 0; i < n && next < 0; i++ {
			if placed[i] {
				continue
			}
			ready := true
			for j := 0; j < n; j++ {
				if parent[i][j] && !placed[j] {
					ready = false
					break
				}
			}
			if ready {
				next = i
			}
		}
		if next < 0 { // a cycle, from traces no solver writes: list order
			for i := 0; i < n && next < 0; i++ {
				if !placed[i] {
					next = i
				}
			}
		}
		out[next] = branch{from: -1}
		for _, j := range order {
			if k := shared[next][j]; k >= 2 && k-1 > out[next].start {
				out[next] = branch{start: k - 1, from: j}
			}
		}
		placed[next] = true
		order = append(order, next)
	}
	return out
}

// forks returns where the curve of every run starts (see branches) and
// notes, for every run drawn from a fork point, which run draws its
// history.
func (f *Figure) forks(runs []Run, x XAxis) []branch {
	bs := branches(runs)
	for i, b := range bs {
		if b.from >= 0 {
			f.Notes = append(f.Notes, fmt.Sprintf("%s: history up to %s shared with %s (drawn once)",
				runs[i].Name, position(x, x.Of(runs[i].Trace[b.start])), runs[b.from].Name))
		}
	}
	return bs
}

// position formats an x coordinate for a note: "pass 10", "3.2 s",
// "1200 oracle calls".
func position(x XAxis, v float64) string {
	switch x {
	case Seconds:
		return fmt.Sprintf("%.3g s", v)
	case OracleCalls:
		return fmt.Sprintf("%.0f oracle calls", v)
	}
	return fmt.Sprintf("pass %.4g", v)
}
