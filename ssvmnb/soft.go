package ssvmnb

import (
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/viz"
)

// SoftObjectives draws the objectives of soft-constraint runs (soft.BCFW)
// against passes: the soft primal g_rho (solid), the soft dual f_rho
// (dash-dot), whose difference is the certified soft gap, and the hard
// primal g (dashed) of the same iterate, the objective that compares with
// hard solvers; one color per run (its method's), one line style per
// quantity (see viz.SoftObjectiveCurves). The y axis is zoomed on the
// values of the second half of the passes, every curve's included (the
// start, g_rho = 1 and f_rho = 0 at w = 0, lies outside; a note says so),
// and runs of different rho whose soft gaps agree are noted with the
// reason (see Gaps). Runs that are not soft are left out, noted.
func SoftObjectives(ts ...*Trainer) *viz.Figure {
	f := viz.SoftObjectiveCurves(VizRuns(ts...))
	zoomSecondHalf(f)
	f.Notes = append(f.Notes, sameSoftGaps(ts)...)
	return f
}

// zoomSecondHalf fixes the y range of a line chart to the values its
// series take over the second half of its x range, padded by a tenth, so
// that where the runs end is readable and no curve leaves the range there.
func zoomSecondHalf(f *viz.Figure) {
	xmax := math.Inf(-1)
	for _, s := range f.Series {
		for _, x := range s.X {
			if finite(x) {
				xmax = math.Max(xmax, x)
			}
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range f.Series {
		for i, x := range s.X {
			if y := s.Y[i]; x >= xmax/2 && finite(y) {
				lo, hi = math.Min(lo, y), math.Max(hi, y)
			}
		}
	}
	if !(hi > lo) {
		return
	}
	pad := (hi - lo) / 10
	f.YRange = [2]float64{lo - pad, hi + pad}
	f.Notes = append(f.Notes, fmt.Sprintf("y range: every curve over passes %.3g to %.3g; earlier values may lie outside", xmax/2, xmax))
}

// isSoft reports whether a run is a soft-constraint run (its points carry
// rho).
func (t *Trainer) isSoft() bool { return finite(t.Last().Rho) }

// softAndHard returns the note of a gap figure that draws soft and hard
// runs on one axis ("" when it does not).
func softAndHard(ts []*Trainer) string {
	var soft, hard bool
	for _, t := range ts {
		if t.isSoft() {
			soft = true
		} else {
			hard = true
		}
	}
	if !soft || !hard {
		return ""
	}
	return "soft and hard runs on one axis: a soft run's gap is g_rho - f_rho of its own soft problem, and its passes are block steps / blocks (variables and factors), not oracle calls / examples; compare them on the hard objective g (SoftObjectives, papers.HardObjectives)"
}

// sameSoftGaps returns a note for every pair of soft runs of different rho
// whose final soft gaps agree to four digits, with what the runs show of
// the reason when it is this one: rho enters the step only through the
// agreement term of its curvature and the objectives only through the
// violation rho/2 |delta|^2 = g_rho - g of the agreement constraints, so
// runs whose curvature is dominated by the lambda term take short steps
// that leave the marginals near the ground truth's (which agree), hardly
// violate the constraints, and run alike whatever rho.
func sameSoftGaps(ts []*Trainer) []string {
	var notes []string
	for i, a := range ts {
		for _, b := range ts[i+1:] {
			pa, pb := a.Last(), b.Last()
			if !a.isSoft() || !b.isSoft() || pa.Rho == pb.Rho || Cell(pa.Gap) != Cell(pb.Gap) {
				continue
			}
			n := fmt.Sprintf("rho = %g and rho = %g give the same soft gap (%s)", pa.Rho, pb.Rho, Cell(pa.Gap))
			violation := math.Max(pa.Primal-pa.HardPrimal, pb.Primal-pb.HardPrimal)
			if violation <= 1e-3*math.Max(pa.Gap, pb.Gap) {
				n += fmt.Sprintf(": rho enters a block step only through the agreement term K/(rho M^2) of its curvature, beside |Psi d|^2/(lambda M^2)"+
					" (package soft, \"Step size\"), and the objectives only through the violation g_rho - g = rho/2 |delta|^2, here at most %s, %.2g of the gap:"+
					" the lambda term dominates, the steps are short (f_rho is at %s and %s), the marginals stay near the ground truth's, which agree,"+
					" and rho has nothing to act on; with a larger lambda, a smaller rho or more passes the runs part",
					Cell(violation), violation/math.Max(pa.Gap, pb.Gap), Cell(pa.Dual), Cell(pb.Dual))
			}
			notes = append(notes, n)
		}
	}
	return notes
}
