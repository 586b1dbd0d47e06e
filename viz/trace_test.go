package viz

import (
	"math"
	"reflect"
	"testing"

	"github.com/fwstruct/fwstruct/solver/run"
)

// pts builds a trace of (pass, gap) pairs.
func pts(pg ...float64) []run.Point {
	var tr []run.Point
	for i := 0; i+1 < len(pg); i += 2 {
		tr = append(tr, run.Point{Pass: pg[i], Gap: pg[i+1], OracleCalls: int64(100 * pg[i]), Seconds: pg[i] / 10})
	}
	return tr
}

func TestAggregate(t *testing.T) {
	nan := math.NaN()
	a := pts(0, 10, 2, 8, 4, 6)
	b := pts(0, 20, 1, 4, 5, 2, 6, 1)
	c := pts(1, 30, 3, 3)
	cases := []struct {
		name      string
		runs      [][]run.Point
		x         XAxis
		value     func(run.Point) float64
		grid      []float64
		X, Y      []float64
		Lo, Hi    []float64
		wantEmpty bool
	}{
		{
			name: "median of three, step interpolation, only where every run is",
			runs: [][]run.Point{a, b, c},
			grid: []float64{0, 1, 2, 3, 4, 5, 6, 7},
			// x=0: c starts at 1                   -> left out
			// x=1: a 10, b 4, c 30                 -> 10, [4, 30]
			// x=2: a 8, b 4, c 30                  -> 8, [4, 30]
			// x=3: a 8, b 4, c 3                   -> 4, [3, 8]
			// x=4..7: c ended at 3 (a at 4, b at 6) -> left out
			X:  []float64{1, 2, 3},
			Y:  []float64{10, 8, 4},
			Lo: []float64{4, 4, 3},
			Hi: []float64{30, 30, 8},
		},
		{
			name: "nil grid is the union of the x coordinates",
			runs: [][]run.Point{a, c},
			X:    []float64{1, 2, 3},
			Y:    []float64{20, 19, 5.5},
			Lo:   []float64{10, 8, 3},
			Hi:   []float64{30, 30, 8},
		},
		{
			name:  "custom value skips NaN",
			runs:  [][]run.Point{pts(0, 1, 1, nan), pts(0, 3, 1, 5)},
			value: func(p run.Point) float64 { return p.Gap * 2 },
			grid:  []float64{0, 1},
			X:     []float64{0, 1}, Y: []float64{4, 10}, Lo: []float64{2, 10}, Hi: []float64{6, 10},
		},
		{
			name: "x axis oracle calls",
			runs: [][]run.Point{a, b},
			x:    OracleCalls,
			grid: []float64{150, 350, 450},
			X:    []float64{150, 350}, Y: []float64{7, 6}, Lo: []float64{4, 4}, Hi: []float64{10, 8},
		},
		{
			name:      "no runs",
			wantEmpty: true,
		},
		{
			name:      "empty runs",
			runs:      [][]run.Point{nil, {}},
			grid:      []float64{0, 1},
			wantEmpty: true,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := Aggregate("agg", c.runs, c.x, c.value, c.grid)
			if s.Name != "agg" {
				t.Errorf("name %q", s.Name)
			}
			if len(s.X) != len(s.Y) || len(s.Lo) != len(s.X) || len(s.Hi) != len(s.X) {
				t.Fatalf("lengths %d %d %d %d", len(s.X), len(s.Y), len(s.Lo), len(s.Hi))
			}
			if c.wantEmpty {
				if len(s.X) != 0 {
					t.Errorf("got %v, want no point", s.X)
				}
				return
			}
			for _, v := range []struct {
				name      string
				got, want []float64
			}{{"X", s.X, c.X}, {"Y", s.Y, c.Y}, {"Lo", s.Lo, c.Lo}, {"Hi", s.Hi, c.Hi}} {
				if !reflect.DeepEqual(v.got, v.want) {
					t.Errorf("%s = %v, want %v", v.name, v.got, v.want)
				}
			}
			// The aggregate is a valid band series.
			f := &Figure{LogY: true, Series: []Series{s}}
			if err := f.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestCacheHitRates(t *testing.T) {
	tr := []run.Point{
		{Pass: 1, CacheHits: 0, CacheMisses: 10},  // 0
		{Pass: 2, CacheHits: 5, CacheMisses: 15},  // 5/10
		{Pass: 3, CacheHits: 5, CacheMisses: 15},  // no step: NaN
		{Pass: 4, CacheHits: 14, CacheMisses: 16}, // 9/10
	}
	f := CacheHitRates([]Run{{Name: "c", Trace: tr}})
	s := f.Series[0]
	want := []float64{0, 0.5, math.NaN(), 0.9}
	if !reflect.DeepEqual(s.X, []float64{1, 2, 3, 4}) {
		t.Errorf("X = %v", s.X)
	}
	for i := range want {
		if s.Y[i] != want[i] && !(math.IsNaN(s.Y[i]) && math.IsNaN(want[i])) {
			t.Errorf("rate %d = %g, want %g", i, s.Y[i], want[i])
		}
	}
}

func TestTraceFigures(t *testing.T) {
	runs := solverRuns(t)
	names := func(f *Figure) []string {
		var n []string
		for _, s := range f.Series {
			n = append(n, s.Name)
		}
		return n
	}
	cases := []struct {
		name   string
		fig    *Figure
		series []string
		logY   bool
		xlabel string
	}{
		{"gap", GapCurves(runs, Passes), []string{"BCFW", "BCPFW gap cache", "BCPFW gap cache avg", "FW"}, true, "effective passes"},
		{"gap seconds", GapCurves(runs[:1], Seconds), []string{"BCFW"}, true, "solver time (s)"},
		{"objective", ObjectiveCurves(runs[2:], OracleCalls), []string{"FW primal", "FW dual", "SSG primal"}, false, "oracle calls"},
		{"staleness", StalenessCurves(runs[:2]), []string{"BCFW", "BCPFW gap cache"}, true, "effective passes"},
		{"speedup", SpeedupCurves(runs[:1]), []string{"BCFW"}, true, "effective passes"},
		{"cache", CacheHitRates(runs[1:2]), []string{"BCPFW gap cache"}, false, "effective passes"},
		{"loss", LossCurves(runs), []string{"BCFW test", "BCPFW gap cache test", "BCPFW gap cache train"}, false, "effective passes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.fig.Validate(); err != nil {
				t.Fatal(err)
			}
			if got := names(c.fig); !reflect.DeepEqual(got, c.series) {
				t.Errorf("series %q, want %q", got, c.series)
			}
			if c.fig.LogY != c.logY || c.fig.XLabel != c.xlabel || c.fig.Title == "" || c.fig.YLabel == "" {
				t.Errorf("LogY %v, labels %q %q %q", c.fig.LogY, c.fig.Title, c.fig.XLabel, c.fig.YLabel)
			}
		})
	}
	// Series of one run share its color; runs get distinct colors.
	g := GapCurves(runs, Passes)
	if g.Series[1].Color != g.Series[2].Color || g.Series[2].Dash != Dashed || g.Series[0].Color == g.Series[1].Color {
		t.Errorf("colors %s %s %s", g.Series[0].Color, g.Series[1].Color, g.Series[2].Color)
	}
	// What a figure leaves out, it says.
	for _, c := range []struct {
		fig  *Figure
		note string
	}{
		{g, "not shown: SSG (no duality gap)"},
		{ObjectiveCurves(runs, Passes), "not shown: SSG dual (no dual objective)"},
		{LossCurves(runs), "not shown: FW, SSG (no test loss)"},
		{CacheHitRates(runs), "not shown: BCFW, FW, SSG (no cache)"},
		{StalenessCurves(runs), "not shown: FW, SSG (no gap estimate)"},
	} {
		if !reflect.DeepEqual(c.fig.Notes, []string{c.note}) {
			t.Errorf("%s: notes %q, want %q", c.fig.Title, c.fig.Notes, c.note)
		}
	}
	// Styles given to runs are kept, the companion curve gets the
	// companion dash.
	styled := []Run{{Name: "a", Trace: runs[1].Trace, Style: Style{Color: "#123456", Dash: LongDash}}}
	sg := GapCurves(styled, Passes)
	if sg.Series[0].Color != "#123456" || sg.Series[0].Dash != LongDash || sg.Series[1].Color != "#123456" || sg.Series[1].Dash != Dotted {
		t.Errorf("styled series %+v", sg.Series)
	}
	// The staleness of observe-only points differs from 1, and stays 1 at
	// the exact gap passes.
	st := StalenessCurves(runs[:1]).Series[0]
	var stale, fresh int
	for i, p := range runs[0].Trace {
		switch {
		case math.IsNaN(st.Y[i]):
		case p.Refresh && math.Abs(st.Y[i]-1) < 1e-9:
			fresh++
		case !p.Refresh && math.Abs(st.Y[i]-1) > 1e-6:
			stale++
		}
	}
	if stale == 0 || fresh == 0 {
		t.Errorf("staleness: %d stale and %d fresh points in %v", stale, fresh, st.Y)
	}
}

func TestXAxis(t *testing.T) {
	p := run.Point{Pass: 2.5, Seconds: 0.25, OracleCalls: 250}
	for _, c := range []struct {
		x     XAxis
		v     float64
		label string
	}{{Passes, 2.5, "effective passes"}, {Seconds, 0.25, "solver time (s)"}, {OracleCalls, 250, "oracle calls"}, {XAxis(7), 2.5, "XAxis(7)"}} {
		if c.x.Of(p) != c.v || c.x.String() != c.label {
			t.Errorf("%d: %g %q", int(c.x), c.x.Of(p), c.x.String())
		}
	}
}

// TestLossCurvesAveraged: without training losses, the companion of a
// run's test loss is the averaged iterate's, dashed in the run's color.
func TestLossCurvesAveraged(t *testing.T) {
	pt := func(pass, test, avg float64) run.Point {
		p := run.Blank()
		p.Pass, p.TestLoss, p.TestLossAvg = pass, test, avg
		return p
	}
	f := LossCurves([]Run{
		{Name: "avg", Trace: []run.Point{pt(0, 0.9, 0.9), pt(1, 0.5, 0.4)}},
		{Name: "plain", Trace: []run.Point{pt(0, 0.9, math.NaN()), pt(1, 0.6, math.NaN())}},
	})
	var names []string
	for _, s := range f.Series {
		names = append(names, s.Name)
	}
	if want := []string{"avg test", "avg test avg", "plain test"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("series %q, want %q", names, want)
	}
	if s := f.Series[1]; s.Color != f.Series[0].Color || s.Dash == f.Series[0].Dash || s.Y[1] != 0.4 {
		t.Errorf("the averaged curve %+v", s)
	}
}
