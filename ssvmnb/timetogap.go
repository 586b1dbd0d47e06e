package ssvmnb

import (
	"fmt"

	"github.com/fwstruct/fwstruct/solver/run"
)

// secondsTo returns, for every trainer of the group, the solver seconds at
// which the duality gap first reached eps (NaN if never): passesTo on the
// time axis. Solver time excludes the exact evaluations (run.Point).
func (g Group) secondsTo(eps float64) []float64 {
	out := make([]float64, len(g.Trainers))
	for k, t := range g.Trainers {
		out[k] = run.SecondsToGap(t.Trace(), eps)
	}
	return out
}

// TimeToGapTable tabulates, for every target gap, the median over seeds of
// the effective passes and of the solver seconds each group took to reach
// it, and its speedup in time over the first group: the first group's
// median seconds divided by the group's own (above 1: faster than the
// first). A median is over every seed, a seed that never reached the target
// counting as never: "not reached" when half of the seeds or more did not,
// and then no speedup ("-"). This is the measure of a cost-saving variant
// such as the cache, which may need more passes yet less time.
func TimeToGapTable(targets []float64, groups ...Group) *Table {
	t := &Table{Caption: "median over seeds; time is solver time (exact evaluations excluded)", Columns: []string{"method", "seeds"}}
	for _, eps := range targets {
		t.Columns = append(t.Columns, fmt.Sprintf("passes to gap %g", eps), fmt.Sprintf("s to gap %g", eps))
		if len(groups) > 0 {
			t.Columns = append(t.Columns, fmt.Sprintf("speedup over %s at %g", groups[0].Name, eps))
		}
	}
	base := make([]float64, len(targets))
	for k, eps := range targets {
		if len(groups) > 0 {
			base[k], _ = reachedMedian(groups[0].secondsTo(eps))
		}
	}
	for _, g := range groups {
		row := []any{g.Name, len(g.Trainers)}
		for k, eps := range targets {
			secs := g.secondsTo(eps)
			m, _ := reachedMedian(secs)
			row = append(row, passesCell(g.passesTo(eps)), passesCell(secs), base[k]/m)
		}
		t.AddRow(row...)
	}
	return t
}
