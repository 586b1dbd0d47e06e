package viz

import (
	"math"
	"slices"
	"strconv"

	"github.com/fwstruct/fwstruct/solver"
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
func (x XAxis) Of(p solver.TracePoint) float64 {
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
	Trace []solver.TracePoint
}

// curve returns the series of value against x over a trace.
func curve(name string, trace []solver.TracePoint, x XAxis, value func(solver.TracePoint) float64) Series {
	s := Series{Name: name, X: make([]float64, len(trace)), Y: make([]float64, len(trace))}
	for i, p := range trace {
		s.X[i], s.Y[i] = x.Of(p), value(p)
	}
	return s
}

// hasFinite reports whether some value of the trace is finite.
func hasFinite(trace []solver.TracePoint, value func(solver.TracePoint) float64) bool {
	for _, p := range trace {
		if ok(value(p), false) {
			return true
		}
	}
	return false
}

// GapCurves plots the duality gap (primal - dual, Lacoste-Julien et al.
// 2013, Fig. 1-3) of every run on a log scale against x. Run i has color
// Color(i); runs with weighted averaging also show the gap of the averaged
// iterate, dashed ("name avg"). Runs without a gap (SSG) give empty curves.
func GapCurves(runs []Run, x XAxis) *Figure {
	f := &Figure{Title: "Duality gap", XLabel: x.String(), YLabel: "duality gap", LogY: true}
	f.addWithCompanion(runs, x, "", func(p solver.TracePoint) float64 { return p.Gap },
		" avg", func(p solver.TracePoint) float64 { return p.GapAvg })
	return f
}

// addWithCompanion adds, for every run i, the curve of value (solid, color
// i, named run name + suffix) and, when the run recorded it, the curve of
// companion (dashed, same color, run name + companionSuffix).
func (f *Figure) addWithCompanion(runs []Run, x XAxis, suffix string, value func(solver.TracePoint) float64,
	companionSuffix string, companion func(solver.TracePoint) float64) {
	for i, r := range runs {
		s := curve(r.Name+suffix, r.Trace, x, value)
		s.Color = Color(i)
		f.Series = append(f.Series, s)
		if hasFinite(r.Trace, companion) {
			c := curve(r.Name+companionSuffix, r.Trace, x, companion)
			c.Color, c.Dashed = Color(i), true
			f.Series = append(f.Series, c)
		}
	}
}

// ObjectiveCurves plots the primal (solid) and dual (dashed) objectives of
// every run against x; the gap between the two curves of a run is its
// duality gap.
func ObjectiveCurves(runs []Run, x XAxis) *Figure {
	f := &Figure{Title: "Primal and dual objectives", XLabel: x.String(), YLabel: "objective"}
	for i, r := range runs {
		p := curve(r.Name+" primal", r.Trace, x, func(p solver.TracePoint) float64 { return p.Primal })
		d := curve(r.Name+" dual", r.Trace, x, func(p solver.TracePoint) float64 { return p.Dual })
		p.Color, d.Color, d.Dashed = Color(i), Color(i), true
		f.Series = append(f.Series, p, d)
	}
	return f
}

// StalenessCurves plots GapEstimate / Gap, the ratio of the sum of the
// stale block gaps the solver holds to the true duality gap (Osokin et al.
// 2016, Fig. 1b), on a log scale against passes, with a reference line at
// 1. Points without an estimate (unvisited blocks, FW, SSG) are dropped.
func StalenessCurves(runs []Run) *Figure {
	f := &Figure{Title: "Staleness of the gap estimate", XLabel: Passes.String(),
		YLabel: "gap estimate / true gap", LogY: true, HLines: []HLine{{Y: 1}}}
	for i, r := range runs {
		s := curve(r.Name, r.Trace, Passes, solver.TracePoint.StalenessRatio)
		s.Color, s.Markers = Color(i), true
		f.Series = append(f.Series, s)
	}
	return f
}

// SpeedupCurves plots the predicted speed-up of gap sampling over uniform
// sampling, chi(g)^3 / chi(C) (Osokin et al. 2016, Thm. 2, Fig. 1c), on a
// log scale against passes, with a reference line at 1 (no speed-up).
func SpeedupCurves(runs []Run) *Figure {
	f := &Figure{Title: "Predicted speed-up of gap sampling", XLabel: Passes.String(),
		YLabel: "chi(g)^3 / chi(C)", LogY: true, HLines: []HLine{{Y: 1}}}
	for i, r := range runs {
		s := curve(r.Name, r.Trace, Passes, func(p solver.TracePoint) float64 { return p.PredictedSpeedup })
		s.Color, s.Markers = Color(i), true
		f.Series = append(f.Series, s)
	}
	return f
}

// CacheHitRates plots, for every run, the fraction of block steps served by
// the cache (Osokin et al. 2016, Alg. 5) in each interval between two
// consecutive trace points (from the differences of the cumulative
// CacheHits and CacheMisses; the first interval starts at 0), against the
// passes at the end of the interval. Intervals without a step are dropped.
func CacheHitRates(runs []Run) *Figure {
	f := &Figure{Title: "Cache hit rate", XLabel: Passes.String(), YLabel: "hit rate per interval"}
	for i, r := range runs {
		s := Series{Name: r.Name, Color: Color(i), Markers: true}
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
		f.Series = append(f.Series, s)
	}
	return f
}

// LossCurves plots the test loss (solid) and, when recorded, the training
// loss (dashed, "name train") of every run against passes.
func LossCurves(runs []Run) *Figure {
	f := &Figure{Title: "Task loss", XLabel: Passes.String(), YLabel: "task loss"}
	f.addWithCompanion(runs, Passes, " test", func(p solver.TracePoint) float64 { return p.TestLoss },
		" train", func(p solver.TracePoint) float64 { return p.TrainLoss })
	return f
}

// Aggregate summarizes several runs of one configuration (e.g. seeds) as
// one series: at every x of grid, Y is the median and Lo, Hi the minimum
// and maximum over the runs of value at the last trace point whose x
// coordinate is <= that x (step interpolation). A run contributes only
// between its first and its last point, and only finite values; grid
// points without any contribution are left out. A nil grid means the
// sorted union of the x coordinates of all runs; a nil value means the
// duality gap. The x coordinates of every run must be non-decreasing, as
// those of a solver trace are. This is the median curve with its min/max
// band of the papers' figures over seeds:
//
//	f := &viz.Figure{LogY: true, Series: []viz.Series{
//		viz.Aggregate("BCFW", seeds, viz.Passes, nil, nil),
//	}}
func Aggregate(name string, runs [][]solver.TracePoint, x XAxis, value func(solver.TracePoint) float64, grid []float64) Series {
	if value == nil {
		value = func(p solver.TracePoint) float64 { return p.Gap }
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
	for _, g := range grid {
		vals = vals[:0]
		for _, r := range runs {
			if len(r) == 0 || g > x.Of(r[len(r)-1]) {
				continue
			}
			// The last point with x <= g (trace x coordinates are
			// non-decreasing).
			k, _ := slices.BinarySearchFunc(r, g, func(p solver.TracePoint, t float64) int {
				if x.Of(p) <= t {
					return -1
				}
				return 1
			})
			if k == 0 {
				continue // before the run's first point
			}
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

// PassesToGap returns the passes of the first trace point whose duality
// gap is at most eps, or NaN when the trace never gets there: the entry
// of a "passes to reach gap eps" table or bar chart of a parameter sweep.
func PassesToGap(trace []solver.TracePoint, eps float64) float64 {
	for _, p := range trace {
		if p.Gap <= eps {
			return p.Pass
		}
	}
	return math.NaN()
}
