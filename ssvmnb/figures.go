package ssvmnb

import (
	"fmt"

	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/viz"
)

// Colors of the objective curves of a progress figure (the gap curves are
// in the trainer's style).
const (
	primalColor = "#000000"
	dualColor   = "#000000"
)

// ProgressFigure plots what the live chart shows: the duality gap (the
// trainer's style, with a marker at every trace point), the gap of the
// averaged iterate (dashed) when there is one, the stale gap estimate
// (dotted), and the primal and dual objectives (black, under the gaps;
// for soft runs the soft objectives g_rho, f_rho and the hard primal g,
// dashed),
// against passes on a log scale (non-positive values, such as the
// dual at the start, are left out). Changes during the run (a fork, a knob
// switched) are marks. The curves end at the last trace point, which after
// Run is the current iterate; the title says where the run stands.
func (t *Trainer) ProgressFigure() *viz.Figure {
	tr := t.Trace()
	st := StyleOf(t.Name)
	f := &viz.Figure{Title: t.Name, XLabel: viz.Passes.String(), YLabel: "objective / gap", LogY: true}
	if n := len(tr); n > 0 && tr[n-1].Steps != t.eng.Steps() {
		f.Notes = append(f.Notes, fmt.Sprintf("trace ends at pass %.4g, before the current iterate (pass %.4g): call Current", tr[n-1].Pass, t.Passes()))
	}
	add := func(name string, value func(run.Point) float64, color string, dash viz.Dash, markers bool) {
		s := viz.Series{Name: name, Color: color, Dash: dash, Markers: markers}
		finite := false
		for _, p := range tr {
			s.X = append(s.X, p.Pass)
			v := value(p)
			s.Y = append(s.Y, v)
			finite = finite || v == v
		}
		if finite {
			f.Series = append(f.Series, s)
		}
	}
	// The objectives first, the gaps over them (the primal hides a gap
	// close to it while the dual is near 0).
	add("primal", func(p run.Point) float64 { return p.Primal }, primalColor, viz.Solid, false)
	add("dual", func(p run.Point) float64 { return p.Dual }, dualColor, viz.DashDot, false)
	// Soft runs: the hard primal g(w, delta) of Meshi's eq. 2 beside the
	// soft objectives (NaN, hence not drawn, for the other families).
	add("hard primal", func(p run.Point) float64 { return p.HardPrimal }, primalColor, viz.Dashed, false)
	add("gap estimate", func(p run.Point) float64 { return p.GapEstimate }, st.Color, viz.Dotted, false)
	add("gap (averaged)", func(p run.Point) float64 { return p.GapAvg }, st.Color, viz.Dashed, false)
	add("duality gap", func(p run.Point) float64 { return p.Gap }, st.Color, st.Dash, true)
	for _, p := range tr {
		if p.Event != "" {
			f.Marks = append(f.Marks, viz.Mark{X: p.Pass, Label: p.Event})
		}
	}
	return f
}

// Show displays the progress figure of the trainer in a notebook.
func (t *Trainer) Show() error {
	if len(t.Trace()) == 0 {
		return errNoTrace
	}
	return Show(t.ProgressFigure())
}

// runs converts trainers to the named, styled traces of viz.
func runs(ts []*Trainer) []viz.Run {
	out := make([]viz.Run, len(ts))
	for i, t := range ts {
		out[i] = t.VizRun()
	}
	return out
}

// Gaps returns the duality gaps of several trainers against x (passes,
// seconds or oracle calls), one curve each in the trainer's style; runs
// without a gap (SSG) are left out with a note, changes during the runs
// are marks.
func Gaps(x viz.XAxis, ts ...*Trainer) *viz.Figure { return viz.GapCurves(runs(ts), x) }

// Staleness returns the ratio of the gap estimate to the true gap of
// several trainers (Osokin et al. 2016, Fig. 1b).
func Staleness(ts ...*Trainer) *viz.Figure { return viz.StalenessCurves(runs(ts)) }

// Speedup returns the improvement chi(g)^3/chi(C) predicted by Theorem 2 of
// Osokin et al. (2016) along several runs (Fig. 1c).
func Speedup(ts ...*Trainer) *viz.Figure { return viz.SpeedupCurves(runs(ts)) }

// HitRates returns the cache hit rate between trace points of several runs
// (runs without a cache are left out, noted).
func HitRates(ts ...*Trainer) *viz.Figure { return viz.CacheHitRates(runs(ts)) }

// Losses returns the train and test losses of several runs.
func Losses(ts ...*Trainer) *viz.Figure { return viz.LossCurves(runs(ts)) }

// Objectives returns the primal (solid) and dual (dashed) objectives of
// several runs against x; SSG, which has no dual, shows its primal only.
func Objectives(x viz.XAxis, ts ...*Trainer) *viz.Figure { return viz.ObjectiveCurves(runs(ts), x) }
