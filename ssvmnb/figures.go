package ssvmnb

import (
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/viz"
)

// ProgressFigure plots what the live chart shows: the duality gap, the
// stale gap estimate, the primal and the dual objective against passes, on
// a log scale (non-positive values, such as the dual at the start, are left
// out), plus the gap of the averaged iterate when there is one. The curves
// end at the current iterate (see Current).
func (t *Trainer) ProgressFigure() *viz.Figure {
	tr := t.Trace()
	if len(tr) > 0 && tr[len(tr)-1].Steps != t.s.Steps() {
		tr = append(tr, t.Current())
	}
	f := &viz.Figure{Title: t.Name, XLabel: viz.Passes.String(), YLabel: "objective / gap", LogY: true}
	add := func(name string, value func(solver.TracePoint) float64, color string, dashed bool) {
		s := viz.Series{Name: name, Color: color, Dashed: dashed}
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
	add("duality gap", func(p solver.TracePoint) float64 { return p.Gap }, viz.Color(0), false)
	add("gap estimate", func(p solver.TracePoint) float64 { return p.GapEstimate }, viz.Color(1), true)
	add("primal", func(p solver.TracePoint) float64 { return p.Primal }, viz.Color(2), false)
	add("dual", func(p solver.TracePoint) float64 { return p.Dual }, viz.Color(3), false)
	add("gap (averaged)", func(p solver.TracePoint) float64 { return p.GapAvg }, viz.Color(4), true)
	return f
}

// Show displays the progress figure of the trainer in a notebook.
func (t *Trainer) Show() error {
	if len(t.Trace()) == 0 {
		return errNoTrace
	}
	return Show(t.ProgressFigure())
}

// runs converts trainers to the named traces of viz.
func runs(ts []*Trainer) []viz.Run {
	out := make([]viz.Run, len(ts))
	for i, t := range ts {
		out[i] = viz.Run{Name: t.Name, Trace: t.Trace()}
	}
	return out
}

// Gaps returns the duality gaps of several trainers against x (passes,
// seconds or oracle calls), one curve each.
func Gaps(x viz.XAxis, ts ...*Trainer) *viz.Figure { return viz.GapCurves(runs(ts), x) }

// Staleness returns the ratio of the gap estimate to the true gap of
// several trainers (Osokin et al. 2016, Fig. 1b).
func Staleness(ts ...*Trainer) *viz.Figure { return viz.StalenessCurves(runs(ts)) }

// Speedup returns the improvement chi(g)^3/chi(C) predicted by Theorem 2 of
// Osokin et al. (2016) along several runs (Fig. 1c).
func Speedup(ts ...*Trainer) *viz.Figure { return viz.SpeedupCurves(runs(ts)) }

// HitRates returns the cache hit rate between trace points of several runs.
func HitRates(ts ...*Trainer) *viz.Figure { return viz.CacheHitRates(runs(ts)) }

// Losses returns the train and test losses of several runs.
func Losses(ts ...*Trainer) *viz.Figure { return viz.LossCurves(runs(ts)) }

// Objectives returns the primal (solid) and dual (dashed) objectives of
// several runs against x; SSG, which has no dual, shows its primal only.
func Objectives(x viz.XAxis, ts ...*Trainer) *viz.Figure { return viz.ObjectiveCurves(runs(ts), x) }
