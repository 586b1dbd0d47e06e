package viz

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fwstruct/fwstruct/solver/run"
)

// XAxis selects the x coordinate of trace plots.
type XAxis int

const (
	// Passes is the number of effective passes over the data (oracle calls
	// / n), the x axis of the papers' figures.
	Passes XAxis = iota
	// Seconds is the solver time (exact-gap evaluations excluded).
	Seconds
	// OracleCalls is the number of max-oracle calls.
	OracleCalls
)

// Of returns the x coordinate of a trace point.
func (x XAxis) Of(p run.Point) float64 {
	switch x {
	case Seconds:
		return p.Seconds
	case OracleCalls:
		return float64(p.OracleCalls)
	}
	return p.Pass
}

// String returns the axis label.
func (x XAxis) String() string {
	switch x {
	case Passes:
		return "effective passes"
	case Seconds:
		return "solver time (s)"
	case OracleCalls:
		return "oracle calls"
	}
	return "XAxis(" + strconv.Itoa(int(x)) + ")"
}

// Run is a named trace, one curve of a trace figure.
type Run struct {
	// Name is the legend label of the run.
	Name string
	// Trace is the run's trace (solver.Solver.Trace), in the order recorded.
	Trace []run.Point
	// Style is how the run is drawn; a zero Style means Color(i) for the
	// i-th run, solid. Give every method one Style across the figures of a
	// notebook (see MethodStyle).
	Style Style
}

// style returns the style of the i-th run.
func (r Run) style(i int) Style {
	st := r.Style
	if st.Color == "" {
		st.Color = Color(i)
	}
	return st
}

// eventMarks returns a mark at every drawn trace point of the runs (from
// their branch starts on) that records an event (a knob changed, a fork),
// labeled with the run's name, once per label and position: an event of a
// shared history is marked once, with the name of the run that draws it.
func eventMarks(runs []Run, bs []branch, x XAxis) []Mark {
	var out []Mark
	seen := map[Mark]bool{}
	for i, r := range runs {
		for _, p := range r.Trace[bs[i].start:] {
			if p.Event == "" {
				continue
			}
			m := Mark{X: x.Of(p), Label: r.Name + ": " + p.Event}
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	return out
}

// skipped notes the runs a figure leaves out for lack of data.
func (f *Figure) skipped(names []string, what string) {
	if len(names) > 0 {
		f.Notes = append(f.Notes, fmt.Sprintf("not shown: %s (no %s)", strings.Join(names, ", "), what))
	}
}

// curve returns the series of value against x over a trace.
func curve(name string, trace []run.Point, x XAxis, value func(run.Point) float64) Series {
	s := Series{Name: name, X: make([]float64, len(trace)), Y: make([]float64, len(trace))}
	for i, p := range trace {
		s.X[i], s.Y[i] = x.Of(p), value(p)
	}
	return s
}

// anyFinite reports whether some value of some run's trace is finite.
func anyFinite(runs []Run, value func(run.Point) float64) bool {
	for _, r := range runs {
		if hasFinite(r.Trace, value) {
			return true
		}
	}
	return false
}

// hasFinite reports whether some value of the trace is finite.
func hasFinite(trace []run.Point, value func(run.Point) float64) bool {
	for _, p := range trace {
		if ok(value(p), false) {
			return true
		}
	}
	return false
}

// GapCurves plots the duality gap (primal - dual, Lacoste-Julien et al.
// 2013, Fig. 1-3) of every run on a log scale against x, in the run's
// style; runs with weighted averaging also show the gap of the averaged
// iterate ("name avg", same color, dashed). Runs without any gap (SSG) are
// left out, and a note says so. Events of the traces are drawn as marks.
func GapCurves(runs []Run, x XAxis) *Figure {
	f := &Figure{Title: "Duality gap", XLabel: x.String(), YLabel: "duality gap", LogY: true}
	bs := f.forks(runs, x)
	f.addWithCompanion(runs, bs, x, "", func(p run.Point) float64 { return p.Gap },
		" avg", func(p run.Point) float64 { return p.GapAvg }, "duality gap")
	f.Marks = eventMarks(runs, bs, x)
	return f
}

// addWithCompanion adds, for every run i with a finite value, the curve of
// value (in the run's style, named run name + suffix) and, when the run
// recorded it, the curve of companion (same color, the companion dash,
// run name + companionSuffix); runs without any finite value are noted as
// having no what.
func (f *Figure) addWithCompanion(runs []Run, bs []branch, x XAxis, suffix string, value func(run.Point) float64,
	companionSuffix string, companion func(run.Point) float64, what string) {
	var skipped []string
	for i, r := range runs {
		st := r.style(i)
		tr := r.Trace[bs[i].start:]
		if !hasFinite(tr, value) {
			skipped = append(skipped, r.Name)
			continue
		}
		s := curve(r.Name+suffix, tr, x, value)
		s.Color, s.Dash = st.Color, st.Dash
		f.Series = append(f.Series, s)
		if hasFinite(tr, companion) {
			c := curve(r.Name+companionSuffix, tr, x, companion)
			c.Color, c.Dash = st.Color, st.Dash.companion()
			f.Series = append(f.Series, c)
		}
	}
	f.skipped(skipped, what)
}

// ObjectiveCurves plots the primal (the run's style) and dual (same color,
// dashed) objectives of every run against x; the gap between the two
// curves of a run is its duality gap. Runs without a dual (SSG) show their
// primal only, with a note.
func ObjectiveCurves(runs []Run, x XAxis) *Figure {
	f := &Figure{Title: "Primal and dual objectives", XLabel: x.String(), YLabel: "objective"}
	bs := f.forks(runs, x)
	var noDual []string
	for i, r := range runs {
		st := r.style(i)
		tr := r.Trace[bs[i].start:]
		p := curve(r.Name+" primal", tr, x, func(p run.Point) float64 { return p.Primal })
		p.Color, p.Dash = st.Color, st.Dash
		f.Series = append(f.Series, p)
		dual := func(p run.Point) float64 { return p.Dual }
		if !hasFinite(tr, dual) {
			noDual = append(noDual, r.Name+" dual")
			continue
		}
		d := curve(r.Name+" dual", tr, x, dual)
		d.Color, d.Dash = st.Color, st.Dash.companion()
		f.Series = append(f.Series, d)
	}
	f.skipped(noDual, "dual objective")
	f.Marks = eventMarks(runs, bs, x)
	return f
}

// SoftObjectiveCurves plots the objectives of soft-constraint runs
// (package soft; Meshi et al. 2015, Fig. 1 left) against passes: the soft
// primal g_rho (solid), the soft dual f_rho (dash-dot), whose difference is
// the certified soft gap, and the hard primal g(w, delta) of the same
// iterate (dashed), the objective that compares with hard solvers. One
// color per run, one line style per quantity. Runs without soft objectives
// (not soft runs) are left out, noted.
func SoftObjectiveCurves(runs []Run) *Figure {
	f := &Figure{Title: "Soft and hard objectives", XLabel: Passes.String(), YLabel: "objective"}
	bs := f.forks(runs, Passes)
	var hard []string
	for i, r := range runs {
		tr := r.Trace[bs[i].start:]
		if !hasFinite(tr, func(p run.Point) float64 { return p.Rho }) {
			hard = append(hard, r.Name)
			continue
		}
		color := r.style(i).Color
		for _, c := range []struct {
			suffix string
			value  func(run.Point) float64
			dash   Dash
		}{
			{" g_rho", func(p run.Point) float64 { return p.Primal }, Solid},
			{" f_rho", func(p run.Point) float64 { return p.Dual }, DashDot},
			{" g", func(p run.Point) float64 { return p.HardPrimal }, Dashed},
		} {
			s := curve(r.Name+c.suffix, tr, Passes, c.value)
			s.Color, s.Dash = color, c.dash
			f.Series = append(f.Series, s)
		}
	}
	f.skipped(hard, "soft objectives")
	f.Marks = eventMarks(runs, bs, Passes)
	return f
}

// StalenessCurves plots GapEstimate / Gap, the ratio of the sum of the
// stale block gaps the solver holds to the true duality gap (Osokin et al.
// 2016, Fig. 1b), on a log scale against passes, with a reference line at
// 1. Points without an estimate (unvisited blocks, FW, SSG) are dropped.
func StalenessCurves(runs []Run) *Figure {
	f := &Figure{Title: "Staleness of the gap estimate", XLabel: Passes.String(),
		YLabel: "gap estimate / true gap", LogY: true, HLines: []HLine{{Y: 1, Label: "exact (1)"}}}
	f.addMarked(runs, run.Point.StalenessRatio, "gap estimate")
	return f
}

// addMarked adds, for every run with a finite value, the curve of value
// against passes with markers, in the run's style; the others are noted.
func (f *Figure) addMarked(runs []Run, value func(run.Point) float64, what string) {
	bs := f.forks(runs, Passes)
	var skipped []string
	for i, r := range runs {
		tr := r.Trace[bs[i].start:]
		if !hasFinite(tr, value) {
			skipped = append(skipped, r.Name)
			continue
		}
		st := r.style(i)
		s := curve(r.Name, tr, Passes, value)
		s.Color, s.Dash, s.Markers = st.Color, st.Dash, true
		f.Series = append(f.Series, s)
	}
	f.skipped(skipped, what)
	f.Marks = eventMarks(runs, bs, Passes)
}

// SpeedupCurves plots the predicted speed-up of gap sampling over uniform
// sampling, chi(g)^3 / chi(C) (Osokin et al. 2016, Thm. 2, Fig. 1c), on a
// log scale against passes, with a reference line at 1 (no speed-up).
func SpeedupCurves(runs []Run) *Figure {
	f := &Figure{Title: "Predicted speed-up of gap sampling", XLabel: Passes.String(),
		YLabel: "chi(g)^3 / chi(C)", LogY: true, HLines: []HLine{{Y: 1, Label: "no speed-up (1)"}}}
	f.addMarked(runs, func(p run.Point) float64 { return p.PredictedSpeedup }, "exact block gaps")
	return f
}

// CacheHitRates plots, for every run, the fraction of block steps served by
// the cache (Osokin et al. 2016, Alg. 5) in each interval between two
// consecutive trace points (from the differences of the cumulative
// CacheHits and CacheMisses; the first interval starts at 0), against the
// passes at the end of the interval. Intervals without a step are
// dropped; runs without a cache (no hit nor miss) are left out, noted.
func CacheHitRates(runs []Run) *Figure {
	f := &Figure{Title: "Cache hit rate", XLabel: Passes.String(), YLabel: "hit rate per interval"}
	bs := f.forks(runs, Passes)
	var skipped []string
	for i, r := range runs {
		if tr := r.Trace; len(tr) == 0 || tr[len(tr)-1].CacheHits+tr[len(tr)-1].CacheMisses == 0 {
			skipped = append(skipped, r.Name)
			continue
		}
		st := r.style(i)
		s := Series{Name: r.Name, Color: st.Color, Dash: st.Dash, Markers: true}
		var hits, misses int64
		for _, p := range r.Trace {
			dh, dm := p.CacheHits-hits, p.CacheMisses-misses
			hits, misses = p.CacheHits, p.CacheMisses
			rate := math.NaN()
			if dh+dm > 0 {
				rate = float64(dh) / float64(dh+dm)
			}
			s.X = append(s.X, p.Pass)
			s.Y = append(s.Y, rate)
		}
		s.X, s.Y = s.X[bs[i].start:], s.Y[bs[i].start:]
		f.Series = append(f.Series, s)
	}
	f.skipped(skipped, "cache")
	f.Marks = eventMarks(runs, bs, Passes)
	return f
}

// LossCurves plots the test loss (the run's style) and, when recorded, the
// training loss (same color, dashed, "name train") or else the test loss
// of the averaged iterate (same color, dashed, "name test avg") of every
// run against passes; runs without a test loss are left out, noted.
func LossCurves(runs []Run) *Figure {
	f := &Figure{Title: "Task loss", XLabel: Passes.String(), YLabel: "task loss"}
	bs := f.forks(runs, Passes)
	companion, name := func(p run.Point) float64 { return p.TrainLoss }, " train"
	if !anyFinite(runs, companion) {
		companion, name = func(p run.Point) float64 { return p.TestLossAvg }, " test avg"
	}
	f.addWithCompanion(runs, bs, Passes, " test", func(p run.Point) float64 { return p.TestLoss },
		name, companion, "test loss")
	f.Marks = eventMarks(runs, bs, Passes)
	return f
}

// Aggregate summarizes several runs of one configuration (e.g. seeds) as
// one series: at every x of grid, Y is the median and Lo, Hi the minimum
// and maximum over the runs of value at the last trace point whose x
// coordinate is <= that x (step interpolation). A run covers the x from its
// first to its last point; grid points not covered by every run are left
// out, so that the curve and its band stop where the first run ends (past
// it, a "median" would be the value of the slower runs alone: against time,
// the flat tail of the slowest seed). Non-finite values do not contribute;
// grid points without any finite value are left out. A nil grid means the
// sorted union of the x coordinates of all runs; a nil value means the
// duality gap. The x coordinates of every run must be non-decreasing, as
// those of a solver trace are. This is the median curve with its min/max
// band of the papers' figures over seeds:
//
//	f := &viz.Figure{LogY: true, Series: []viz.Series{
//		viz.Aggregate("BCFW", seeds, viz.Passes, nil, nil),
//	}}
func Aggregate(name string, runs [][]run.Point, x XAxis, value func(run.Point) float64, grid []float64) Series {
	if value == nil {
		value = func(p run.Point) float64 { return p.Gap }
	}
	if grid == nil {
		for _, r := range runs {
			for _, p := range r {
				if v := x.Of(p); ok(v, false) {
					grid = append(grid, v)
				}
			}
		}
		slices.Sort(grid)
		grid = slices.Compact(grid)
	}
	s := Series{Name: name, X: []float64{}, Y: []float64{}, Lo: []float64{}, Hi: []float64{}}
	vals := make([]float64, 0, len(runs))
	for _, r := range runs {
		if len(r) == 0 {
			return s
		}
	}
	for _, g := range grid {
		vals = vals[:0]
		covered := true
		for _, r := range runs {
			if g < x.Of(r[0]) || g > x.Of(r[len(r)-1]) {
				covered = false
				break
			}
		}
		if !covered {
			continue
		}
		for _, r := range runs {
			// The last point with x <= g (trace x coordinates are
			// non-decreasing).
			k, _ := slices.BinarySearchFunc(r, g, func(p run.Point, t float64) int {
				if x.Of(p) <= t {
					return -1
				}
				return 1
			})
			if v := value(r[k-1]); ok(v, false) {
				vals = append(vals, v)
			}
		}
		if len(vals) == 0 {
			continue
		}
		slices.Sort(vals)
		n := len(vals)
		med := vals[n/2]
		if n%2 == 0 {
			med = (vals[n/2-1] + vals[n/2]) / 2
		}
		s.X = append(s.X, g)
		s.Y = append(s.Y, med)
		s.Lo = append(s.Lo, vals[0])
		s.Hi = append(s.Hi, vals[n-1])
	}
	return s
}
