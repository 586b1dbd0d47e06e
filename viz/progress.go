package viz

import (
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/solver/run"
)

// Colors of the objective curves of a progress figure (the gaps are in the
// run's style).
const (
	primalColor = "#000000"
	dualColor   = "#000000"
)

// estimateMargin is how far, as a factor, the stale gap estimate may go
// beyond the certified values of a progress figure before it is clipped.
const estimateMargin = 3

// EstimateLabel is the legend label of the stale gap estimate in a
// progress figure: an estimate, not a certificate.
const EstimateLabel = "gap estimate (stale, not a bound)"

// ProgressCurves plots one run as a live chart shows it: the duality gap
// (the run's style, a marker at every trace point), the gap of the
// averaged iterate (dashed) when there is one, the stale gap estimate
// (dotted, labeled EstimateLabel), and the primal and dual objectives
// (black, under the gaps; for soft runs the soft objectives g_rho, f_rho
// and the hard primal g, dashed) against passes on a log scale
// (non-positive values, such as the dual at the start, are left out).
// Changes during the run (a fork, a knob switched) are marks; the title is
// the run's name.
//
// The gap estimate (the sum of the stale block gaps) can fall decades
// below the certified gap, or rise far above the primal, and would then
// stretch the axis until the certified curves are flat lines. So when it
// leaves the range of the certified values (objectives and gaps) by more
// than a factor 3, the y axis is fixed to that range widened by the factor
// (ends at 1, 2 or 5 times a power of ten), the estimate is drawn clamped
// to the axis with a marker at each point outside it, and a note says how
// far it went.
func ProgressCurves(r Run) *Figure {
	tr := r.Trace
	st := r.style(0)
	f := &Figure{Title: r.Name, XLabel: Passes.String(), YLabel: "objective / gap", LogY: true}
	add := func(name string, value func(run.Point) float64, color string, dash Dash, markers bool) *Series {
		if !hasFinite(tr, value) {
			return nil
		}
		s := curve(name, tr, Passes, value)
		s.Color, s.Dash, s.Markers = color, dash, markers
		f.Series = append(f.Series, s)
		return &f.Series[len(f.Series)-1]
	}
	// The objectives first, the gaps over them (the primal hides a gap
	// close to it while the dual is near 0).
	certified := []func(run.Point) float64{
		func(p run.Point) float64 { return p.Primal },
		func(p run.Point) float64 { return p.Dual },
		// Soft runs: the hard primal g(w, delta) of Meshi's eq. 2 beside
		// the soft objectives (NaN, hence not drawn, for the others).
		func(p run.Point) float64 { return p.HardPrimal },
		func(p run.Point) float64 { return p.GapAvg },
		func(p run.Point) float64 { return p.Gap },
	}
	add("primal", certified[0], primalColor, Solid, false)
	add("dual", certified[1], dualColor, DashDot, false)
	add("hard primal", certified[2], primalColor, Dashed, false)
	est := add(EstimateLabel, func(p run.Point) float64 { return p.GapEstimate }, st.Color, Dotted, false)
	add("gap (averaged)", certified[3], st.Color, Dashed, false)
	add("duality gap", certified[4], st.Color, st.Dash, true)
	if est != nil {
		f.clipEstimate(est, tr, certified)
	}
	for _, p := range tr {
		if p.Event != "" {
			f.Marks = append(f.Marks, Mark{X: p.Pass, Label: p.Event})
		}
	}
	return f
}

// clipEstimate fixes the y range of a progress figure to the certified
// values with a margin when the estimate leaves it, clamps the estimate to
// the range and adds its points outside as a markers-only series (see
// ProgressCurves).
func (f *Figure) clipEstimate(est *Series, tr []run.Point, certified []func(run.Point) float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range tr {
		for _, value := range certified {
			if v := value(p); ok(v, true) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if lo > hi {
		return // nothing certified to keep readable
	}
	// The axis ends at the certified values within a factor
	// estimateMargin (and 1, 2 or 5 times a power of ten); it reaches up
	// to the estimate's values above them within that factor.
	bottom, top := niceDown(lo/estimateMargin), niceUp(hi*estimateMargin)
	off := Series{Color: est.Color, MarkersOnly: true}
	below, above, inside := math.Inf(1), math.Inf(-1), hi
	for j, v := range est.Y {
		if !ok(v, true) {
			continue
		}
		if v >= bottom && v <= top {
			inside = math.Max(inside, v)
			continue
		}
		below, above = math.Min(below, v), math.Max(above, v)
		c := math.Max(bottom, math.Min(top, v))
		est.Y[j] = c
		off.X, off.Y = append(off.X, est.X[j]), append(off.Y, c)
	}
	if len(off.X) == 0 {
		return
	}
	if above > top {
		inside = top
	}
	f.YRange = [2]float64{bottom, niceUp(inside)}
	f.Series = append(f.Series, off)
	switch {
	case below < bottom && above > top:
		f.Notes = append(f.Notes, fmt.Sprintf("gap estimate off the axis at %d points (from %.2g to %.2g): drawn on its edges, marked", len(off.X), below, above))
	case below < bottom:
		f.Notes = append(f.Notes, fmt.Sprintf("gap estimate below the axis at %d points (down to %.2g): drawn on its edge, marked", len(off.X), below))
	default:
		f.Notes = append(f.Notes, fmt.Sprintf("gap estimate above the axis at %d points (up to %.2g): drawn on its edge, marked", len(off.X), above))
	}
}
