package ssvmnb

import (
	"fmt"

	"github.com/fwstruct/fwstruct/viz"
)

// ProgressFigure plots what the live chart shows (viz.ProgressCurves):
// the duality gap in the trainer's style, the gap of the averaged iterate,
// the stale gap estimate (kept from stretching the axis below the
// certified values), the objectives, and the changes during the run as
// marks, against passes. The curves end at the last trace point, which
// after Run is the current iterate; a note says when it is not.
func (t *Trainer) ProgressFigure() *viz.Figure {
	tr := t.Trace()
	f := viz.ProgressCurves(viz.Run{Name: t.Name, Trace: tr, Style: StyleOf(t.Name)})
	if n := len(tr); n > 0 && tr[n-1].Steps != t.s.Steps() {
		f.Notes = append([]string{fmt.Sprintf("trace ends at pass %.4g, before the current iterate (pass %.4g): call Current", tr[n-1].Pass, t.Passes())}, f.Notes...)
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

// VizRuns converts trainers to the named, styled traces of viz.
func VizRuns(ts ...*Trainer) []viz.Run {
	out := make([]viz.Run, len(ts))
	for i, t := range ts {
		out[i] = t.VizRun()
	}
	return out
}

// Gaps returns the duality gaps of several trainers against x (passes,
// seconds or oracle calls), one curve each in the trainer's style; runs
// without a gap (SSG) are left out with a note, changes during the runs
// are marks. A note says when soft-constraint runs (soft.BCFW) share the
// axis with hard ones (their gaps and passes measure other things), and
// when soft runs of different rho end with the same soft gap, and why.
func Gaps(x viz.XAxis, ts ...*Trainer) *viz.Figure {
	f := viz.GapCurves(VizRuns(ts...), x)
	if n := softAndHard(ts); n != "" {
		f.Notes = append(f.Notes, n)
	}
	f.Notes = append(f.Notes, sameSoftGaps(ts)...)
	return f
}

// Speedup returns the improvement chi(g)^3/chi(C) predicted by Theorem 2 of
// Osokin et al. (2016) along several runs (Fig. 1c).
func Speedup(ts ...*Trainer) *viz.Figure { return viz.SpeedupCurves(VizRuns(ts...)) }

// HitRates returns the cache hit rate between trace points of several runs
// (runs without a cache are left out, noted).
func HitRates(ts ...*Trainer) *viz.Figure { return viz.CacheHitRates(VizRuns(ts...)) }

// Losses returns the train and test losses of several runs.
func Losses(ts ...*Trainer) *viz.Figure { return viz.LossCurves(VizRuns(ts...)) }

// Objectives returns the primal (solid) and dual (dashed) objectives of
// several runs against x; SSG, which has no dual, shows its primal only.
func Objectives(x viz.XAxis, ts ...*Trainer) *viz.Figure {
	return viz.ObjectiveCurves(VizRuns(ts...), x)
}
