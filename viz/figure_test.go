package viz

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

func TestValidate(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	good := Series{Name: "s", X: []float64{1, 2}, Y: []float64{3, 4}}
	cases := []struct {
		name string
		fig  *Figure
		want string // substring of the error; "" for none
	}{
		{"nil", nil, "nil figure"},
		{"empty lines", &Figure{}, "empty figure"},
		{"lines", &Figure{Series: []Series{good}}, ""},
		{"lines with NaN, Inf and <= 0 on log axes", &Figure{LogX: true, LogY: true,
			Series: []Series{{X: []float64{nan, -1, 0}, Y: []float64{inf, 0, -2}}}}, ""},
		{"empty series", &Figure{Series: []Series{{}}}, ""},
		{"reference lines only", &Figure{HLines: []HLine{{Y: 1}}}, ""},
		{"X/Y mismatch", &Figure{Series: []Series{{X: []float64{1}, Y: []float64{1, 2}}}}, "len(X) = 1 but len(Y) = 2"},
		{"Lo without Hi", &Figure{Series: []Series{{X: []float64{1}, Y: []float64{1}, Lo: []float64{1}}}}, "both Lo and Hi"},
		{"band length", &Figure{Series: []Series{{X: []float64{1}, Y: []float64{1}, Lo: []float64{1, 2}, Hi: []float64{1, 2}}}}, "len(Lo) = 2"},
		{"bad color", &Figure{Series: []Series{{Color: "red"}}}, `color "red"`},
		{"bad hex", &Figure{Series: []Series{{Color: "#12345z"}}}, "#rrggbb"},
		{"short hex", &Figure{Series: []Series{{Color: "#abc"}}}, ""},
		{"unknown kind", &Figure{Kind: Kind(7), Series: []Series{good}}, "unknown figure kind"},
		{"bars", &Figure{Kind: Bars, Categories: []string{"a", "b"}, Series: []Series{{Y: []float64{1, nan}}}}, ""},
		{"bars without series", &Figure{Kind: Bars, Categories: []string{"a"}}, "empty figure"},
		{"bars without categories", &Figure{Kind: Bars, Series: []Series{{Y: []float64{1}}}}, "needs Categories"},
		{"bars length", &Figure{Kind: Bars, Categories: []string{"a"}, Series: []Series{{Y: []float64{1, 2}}}}, "one value per category"},
		{"bars log", &Figure{Kind: Bars, LogY: true, Categories: []string{"a"}, Series: []Series{{Y: []float64{1}}}}, "log axes"},
		{"bars band", &Figure{Kind: Bars, Categories: []string{"a"}, Series: []Series{{Y: []float64{1}, Lo: []float64{0}, Hi: []float64{2}}}}, "bands"},
		{"bars hlines", &Figure{Kind: Bars, Categories: []string{"a"}, Series: []Series{{Y: []float64{1}}}, HLines: []HLine{{Y: 1}}}, "reference lines"},
		{"heat map", &Figure{Kind: HeatMap, Rows: []string{"a"}, Cols: []string{"b", "c"}, Cells: [][]float64{{1, nan}}}, ""},
		{"heat map empty", &Figure{Kind: HeatMap}, "empty figure"},
		{"heat map rows", &Figure{Kind: HeatMap, Rows: []string{"a", "b"}, Cols: []string{"c"}, Cells: [][]float64{{1}}}, "1 rows of cells for 2 row labels"},
		{"heat map cols", &Figure{Kind: HeatMap, Rows: []string{"a"}, Cols: []string{"c"}, Cells: [][]float64{{1, 2}}}, "row 0 has 2 cells"},
		{"heat map series", &Figure{Kind: HeatMap, Rows: []string{"a"}, Cols: []string{"c"}, Cells: [][]float64{{1}}, Series: []Series{good}}, "not Series"},
		{"heat map log", &Figure{Kind: HeatMap, LogX: true, Rows: []string{"a"}, Cols: []string{"c"}, Cells: [][]float64{{1}}}, "log axes"},
		{"range", &Figure{Series: []Series{good}, XRange: [2]float64{0, 1}, YRange: [2]float64{-1, 1}}, ""},
		{"range reversed", &Figure{Series: []Series{good}, XRange: [2]float64{1, 0}}, "XRange"},
		{"range NaN", &Figure{Series: []Series{good}, YRange: [2]float64{0, nan}}, "YRange"},
		{"log range at 0", &Figure{LogY: true, Series: []Series{good}, YRange: [2]float64{0, 1}}, "YRange"},
		{"bars x range", &Figure{Kind: Bars, XRange: [2]float64{0, 1}, Categories: []string{"a"}, Series: []Series{{Y: []float64{1}}}}, "axis ranges"},
		{"bars y range", &Figure{Kind: Bars, YRange: [2]float64{0, 1}, Categories: []string{"a"}, Series: []Series{{Y: []float64{1}}}}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.fig.Validate()
			switch {
			case c.want == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	if err := (&Figure{}).Validate(); !errors.Is(err, ErrEmptyFigure) {
		t.Errorf("empty figure: %v is not ErrEmptyFigure", err)
	}
}

func TestSanitize(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name       string
		fig        Figure
		x, y       [][]float64 // kept points per line
		bx, lo, hi [][]float64 // kept band points per line
	}{
		{
			name: "linear keeps zeros and negatives, drops NaN and Inf",
			fig:  Figure{Series: []Series{{X: []float64{0, 1, 2, 3, nan}, Y: []float64{-1, 0, nan, -inf, 5}}}},
			x:    [][]float64{{0, 1}}, y: [][]float64{{-1, 0}},
			bx: [][]float64{nil}, lo: [][]float64{nil}, hi: [][]float64{nil},
		},
		{
			name: "log y drops <= 0",
			fig:  Figure{LogY: true, Series: []Series{{X: []float64{-1, 0, 1, 2, 3}, Y: []float64{1, 1e-300, 0, -2, inf}}}},
			x:    [][]float64{{-1, 0}}, y: [][]float64{{1, 1e-300}},
			bx: [][]float64{nil}, lo: [][]float64{nil}, hi: [][]float64{nil},
		},
		{
			name: "log x drops <= 0",
			fig:  Figure{LogX: true, Series: []Series{{X: []float64{-1, 0, 1, 2}, Y: []float64{-1, 0, -5, 2}}}},
			x:    [][]float64{{1, 2}}, y: [][]float64{{-5, 2}},
			bx: [][]float64{nil}, lo: [][]float64{nil}, hi: [][]float64{nil},
		},
		{
			name: "band sanitized on its own",
			fig: Figure{LogY: true, Series: []Series{{X: []float64{1, 2, 3, 4}, Y: []float64{0, 2, 3, 4},
				Lo: []float64{1, 0, 2, 3}, Hi: []float64{2, 3, nan, 5}}}},
			x: [][]float64{{2, 3, 4}}, y: [][]float64{{2, 3, 4}},
			bx: [][]float64{{1, 4}}, lo: [][]float64{{1, 3}}, hi: [][]float64{{2, 5}},
		},
		{
			name: "all dropped stays an empty line",
			fig:  Figure{LogY: true, Series: []Series{{Name: "gone", X: []float64{1, 2}, Y: []float64{0, -1}}}},
			x:    [][]float64{nil}, y: [][]float64{nil},
			bx: [][]float64{nil}, lo: [][]float64{nil}, hi: [][]float64{nil},
		},
		{
			name: "reference lines span the data; invalid ones are dropped",
			fig: Figure{LogY: true, Series: []Series{{X: []float64{2, 5, 9}, Y: []float64{1, 1, 0}}},
				HLines: []HLine{{Y: 0.5}, {Y: 0}, {Y: nan}, {Y: 3}}},
			x: [][]float64{{2, 5}, {2, 5}, {2, 5}}, y: [][]float64{{1, 1}, {0.5, 0.5}, {3, 3}},
			bx: [][]float64{nil, nil, nil}, lo: [][]float64{nil, nil, nil}, hi: [][]float64{nil, nil, nil},
		},
		{
			name: "reference line without data on a log x axis",
			fig:  Figure{LogX: true, HLines: []HLine{{Y: -2}}},
			x:    [][]float64{{1, 10}}, y: [][]float64{{-2, -2}},
			bx: [][]float64{nil}, lo: [][]float64{nil}, hi: [][]float64{nil},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ls, err := c.fig.lines()
			if err != nil {
				t.Fatal(err)
			}
			if len(ls) != len(c.x) {
				t.Fatalf("%d lines, want %d", len(ls), len(c.x))
			}
			for i, l := range ls {
				for _, v := range []struct {
					name      string
					got, want []float64
				}{{"x", l.x, c.x[i]}, {"y", l.y, c.y[i]}, {"band x", l.bx, c.bx[i]}, {"lo", l.blo, c.lo[i]}, {"hi", l.bhi, c.hi[i]}} {
					if !reflect.DeepEqual(v.got, v.want) {
						t.Errorf("line %d %s = %v, want %v", i, v.name, v.got, v.want)
					}
				}
			}
		})
	}
}

func TestColor(t *testing.T) {
	if Color(0) != "#1f77b4" || Color(10) != Color(0) || Color(-1) != Color(9) {
		t.Errorf("Color: %s %s %s", Color(0), Color(10), Color(-1))
	}
	for _, c := range []struct {
		in   string
		want string
	}{{"", Color(3)}, {"#ABC", "#aabbcc"}, {"#102030", "#102030"}} {
		if got := seriesColor(Series{Color: c.in}, 3); got != c.want {
			t.Errorf("seriesColor(%q) = %s, want %s", c.in, got, c.want)
		}
	}
	for _, bad := range []string{"red", "#12", "#1234567", "123456", "#gggggg"} {
		if _, err := parseColor(bad); err == nil {
			t.Errorf("parseColor(%q): no error", bad)
		}
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Lines: "lines", Bars: "bars", HeatMap: "heatmap", Kind(9): "Kind(9)"} {
		if k.String() != want {
			t.Errorf("%d: %s", int(k), k.String())
		}
	}
}

func labels(ts []plot.Tick) []string {
	var l []string
	for _, t := range ts {
		if t.Label != "" {
			l = append(l, t.Label)
		}
	}
	return l
}

func TestLogTicks(t *testing.T) {
	cases := []struct {
		min, max float64
		want     []string
	}{
		{0.1, 2, []string{"0.1", "0.2", "0.5", "1", "2"}},
		{0.2, 0.5, []string{"0.2", "0.5"}},
		{1e-4, 1, []string{"0.0001", "0.001", "0.01", "0.1", "1"}},
		{1e-6, 10, []string{"1e-06", "1e-05", "0.0001", "0.001", "0.01", "0.1", "1", "10"}},
		{1e-12, 1e6, []string{"1e-12", "1e-09", "1e-06", "0.001", "1", "1000", "1e+06"}},
		{0, 1, nil},
		{-1, 1, nil},
		{1, 1, nil},
		{1, math.Inf(1), nil},
		{math.NaN(), 1, nil},
	}
	for _, c := range cases {
		got := labels(logTicks{}.Ticks(c.min, c.max))
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("logTicks(%g, %g) labels %q, want %q", c.min, c.max, got, c.want)
		}
	}
}

func TestLinTicks(t *testing.T) {
	cases := []struct {
		min, max float64
		want     []string
	}{
		{0, 20, []string{"0", "5", "10", "15", "20"}},
		{1.1, 19.4, []string{"5", "10", "15"}},
		{0, 1, []string{"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}},
		{-1, 3, []string{"-1", "0", "1", "2", "3"}},
		{0, 3e6, []string{"0", "500000", "1e+06", "1.5e+06", "2e+06", "2.5e+06", "3e+06"}},
		{1, 1, nil},
		{0, math.Inf(1), nil},
	}
	for _, c := range cases {
		got := labels(linTicks{}.Ticks(c.min, c.max))
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("linTicks(%g, %g) labels %q, want %q", c.min, c.max, got, c.want)
		}
	}
}

func TestLogRange(t *testing.T) {
	cases := []struct {
		vals   []float64
		lo, hi float64
	}{
		{nil, 1, 10},
		{[]float64{0.3}, 0.2, 0.5},
		{[]float64{1}, 1, 2},
		{[]float64{0.104, 1.0000001}, 0.1, 2},
		{[]float64{3e-5, 0.7}, 2e-5, 1},
	}
	for _, vals := range [][]float64{{5e-324, 1e308}, {math.MaxFloat64}, {5e-324}, {1e-310, 1e-305}} {
		lo, hi := logRange([]line{{y: vals}}, func(l line) ([]float64, []float64) { return l.y, nil })
		if !(lo > 0 && hi > lo && lo <= vals[0] && hi >= vals[len(vals)-1] && !math.IsInf(hi, 0)) {
			t.Errorf("logRange(%v) = [%g, %g]", vals, lo, hi)
		}
	}
	for _, c := range cases {
		lo, hi := logRange([]line{{y: c.vals}}, func(l line) ([]float64, []float64) { return l.y, nil })
		if math.Abs(lo-c.lo) > 1e-12*c.lo || math.Abs(hi-c.hi) > 1e-12*c.hi {
			t.Errorf("logRange(%v) = [%g, %g], want [%g, %g]", c.vals, lo, hi, c.lo, c.hi)
		}
	}
}
