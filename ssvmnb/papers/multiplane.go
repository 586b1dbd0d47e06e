package papers

import (
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/ssvmnb"
	"github.com/fwstruct/fwstruct/viz"
)

// Multi-plane BCFW (Shah, Kolmogorov and Lampert 2015) in a notebook: runs
// are ordinary trainers of solver.MultiPlane (a Fork or Change of a BCFW
// run switches to it and back); these helpers draw the paper's
// figures from their traces: primal suboptimality against oracle calls
// and against time (Fig. 4, 5), working-set size and approximate passes per
// outer iteration against time (Fig. 6), and the share of the solver time
// spent in the exact oracle (Sec. 4.1).

// BestDual returns the largest dual objective, of the iterate or of the
// averaged iterate, that any trace point of the trainers records: a lower
// bound of the optimum D*, the reference of Suboptimality (NaN when no
// trace has a dual).
func BestDual(ts ...*ssvmnb.Trainer) float64 {
	best := math.NaN()
	for _, t := range ts {
		for _, p := range t.Trace() {
			for _, d := range []float64{p.Dual, p.DualAvg} {
				if !math.IsNaN(d) && !(d <= best) {
					best = d
				}
			}
		}
	}
	return best
}

// Suboptimality plots the primal suboptimality P(w) - dStar of every
// trainer against x on a log scale, in the trainer's style, and that of its
// averaged iterate ("name avg", same color, the companion dash) when it
// keeps one: Shah et al. (2015), Fig. 4 with x = viz.OracleCalls or
// viz.Passes, Fig. 5 with x = viz.Seconds. A NaN dStar means BestDual of
// the trainers; since every dual is a lower bound of the optimum, P -
// dStar bounds the true suboptimality from above. Points at or below dStar
// (only possible at the best point itself) are not drawn on the log scale.
func Suboptimality(x viz.XAxis, dStar float64, ts ...*ssvmnb.Trainer) *viz.Figure {
	note := fmt.Sprintf("D* = %.6g (given)", dStar)
	if math.IsNaN(dStar) {
		dStar = BestDual(ts...)
		note = fmt.Sprintf("D* = %.6g, the best dual the runs reached", dStar)
	}
	rs := ssvmnb.VizRuns(ts...)
	for k := range rs {
		tr := make([]run.Point, len(rs[k].Trace))
		for j, p := range rs[k].Trace {
			p.Gap, p.GapAvg = p.Primal-dStar, p.PrimalAvg-dStar
			tr[j] = p
		}
		rs[k].Trace = tr
	}
	f := viz.GapCurves(rs, x)
	f.Title, f.YLabel = "Primal suboptimality", "P(w) - D*"
	if math.IsNaN(dStar) {
		f.Notes = append(f.Notes, "no run has a dual objective")
		return f
	}
	f.Notes = append(f.Notes, note)
	return f
}

// WorkingSets plots Shah et al. (2015), Fig. 6 for the trainers that run
// multi-plane BCFW: the mean number of planes per working set W_i (top)
// and the approximate passes of the last completed outer iteration
// (bottom), against x (the paper: solver time), in the trainers' styles.
// Runs that recorded neither (no multi-plane BCFW) are left out, noted.
func WorkingSets(x viz.XAxis, ts ...*ssvmnb.Trainer) (sizes, passes *viz.Figure) {
	sizes = &viz.Figure{Title: "Working-set size", XLabel: x.String(), YLabel: "mean planes per working set"}
	passes = &viz.Figure{Title: "Approximate passes per outer iteration", XLabel: x.String(), YLabel: "approximate passes"}
	var skipped []string
	for _, r := range ssvmnb.VizRuns(ts...) {
		st := r.Style
		ws := viz.Series{Name: r.Name, Color: st.Color, Dash: st.Dash, Markers: true}
		ap := viz.Series{Name: r.Name, Color: st.Color, Dash: st.Dash, Markers: true}
		for _, p := range r.Trace {
			ws.X, ws.Y = append(ws.X, x.Of(p)), append(ws.Y, p.WorkingSetMean)
			ap.X, ap.Y = append(ap.X, x.Of(p)), append(ap.Y, p.ApproxPassesLast)
		}
		if !anyFinite(ws.Y) && !anyFinite(ap.Y) {
			skipped = append(skipped, r.Name)
			continue
		}
		sizes.Series, passes.Series = append(sizes.Series, ws), append(passes.Series, ap)
	}
	if len(skipped) > 0 {
		for _, f := range []*viz.Figure{sizes, passes} {
			f.Notes = append(f.Notes, fmt.Sprintf("not shown: %v (no multi-plane BCFW)", skipped))
		}
	}
	return sizes, passes
}

// anyFinite reports whether some value is finite.
func anyFinite(y []float64) bool {
	for _, v := range y {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			return true
		}
	}
	return false
}

// OracleShareTable tabulates where the solver time of every trainer went,
// at its current iterate: the effective passes (oracle calls / n), the
// approximate passes of multi-plane BCFW, the solver seconds, the share of
// them spent in exact oracle calls (Shah et al. 2015, Sec. 4.1: about 99%
// for BCFW on a graph-cut task, 25% for MP-BCFW), the mean working-set size
// and the duality gap. Values a run did not record (no multi-plane BCFW)
// are "-".
func OracleShareTable(ts ...*ssvmnb.Trainer) *ssvmnb.Table {
	t := &ssvmnb.Table{Caption: "at the end of every run",
		Columns: []string{"method", "passes", "approximate passes", "solver s", "oracle time share", "planes per working set", "duality gap"}}
	for _, tr := range ts {
		c := tr.Current()
		t.AddRow(tr.Name, c.Pass, c.ApproxPasses, c.Seconds, c.OracleTimeShare, c.WorkingSetMean, c.Gap)
	}
	return t
}

// SuboptimalityTable tabulates, for every trainer and target eps, the
// effective passes and the solver seconds at the first trace point where
// the primal suboptimality P - dStar of the iterate, or of the averaged
// iterate when the trainer keeps one, is at most eps ("passes / seconds";
// "not reached" when no point is): the numbers behind Suboptimality, read
// off the same points (a NaN dStar means BestDual of the trainers).
func SuboptimalityTable(targets []float64, dStar float64, ts ...*ssvmnb.Trainer) *ssvmnb.Table {
	if math.IsNaN(dStar) {
		dStar = BestDual(ts...)
	}
	t := &ssvmnb.Table{Caption: fmt.Sprintf("effective passes / solver seconds to P - D* <= eps (iterate or its average, whichever first), D* = %.6g", dStar),
		Columns: []string{"method"}}
	for _, eps := range targets {
		t.Columns = append(t.Columns, fmt.Sprintf("eps %g", eps))
	}
	for _, tr := range ts {
		row := []any{tr.Name}
		for _, eps := range targets {
			cell := "not reached"
			for _, p := range tr.Trace() {
				if p.Primal-dStar <= eps || p.PrimalAvg-dStar <= eps {
					cell = fmt.Sprintf("%s / %s", ssvmnb.Cell(p.Pass), ssvmnb.Cell(p.Seconds))
					break
				}
			}
			row = append(row, cell)
		}
		t.AddRow(row...)
	}
	return t
}
