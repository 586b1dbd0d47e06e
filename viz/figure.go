package viz

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"
)

// Kind selects the chart type of a Figure.
type Kind int

const (
	// Lines draws every Series as a polyline through its (X, Y) points,
	// with an optional shaded band between Lo and Hi. It is the default.
	Lines Kind = iota
	// Bars draws grouped vertical bars: one group per entry of
	// Figure.Categories, one bar per Series in each group (Series.Y[j] is
	// the bar of category j; Series.X is ignored).
	Bars
	// HeatMap draws Figure.Cells as a grid of colored, labeled cells, rows
	// bottom to top and columns left to right (a 2-D parameter sweep such as
	// cache F x nu).
	HeatMap
)

// String returns the name of the kind.
func (k Kind) String() string {
	switch k {
	case Lines:
		return "lines"
	case Bars:
		return "bars"
	case HeatMap:
		return "heatmap"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Series is one curve (Lines) or one group of bars (Bars).
//
// On a log axis, points whose coordinate on that axis is <= 0 are dropped
// when the figure is rendered, and so are points with a NaN or infinite
// coordinate on any axis: a trace with a zero or missing gap simply shows
// a shorter curve. A series whose points are all dropped is still drawn
// (empty) and keeps its legend entry. The band is sanitized the same way,
// point by point, on (X, Lo, Hi). The Series itself is never modified.
type Series struct {
	// Name is the legend label; an empty name has no legend entry.
	Name string
	// X and Y are the coordinates of the points; they must have the same
	// length (Lines). For Bars, X is ignored and Y has one value per
	// category; a NaN or infinite value draws no bar.
	X, Y []float64
	// Lo and Hi, when set, describe a band drawn as a translucent area
	// between (X, Lo) and (X, Hi), e.g. the min/max over seeds of a median
	// curve (see Aggregate). Both or neither must be set, with the length of
	// X (Lines only).
	Lo, Hi []float64
	// Markers draws a marker at every point.
	Markers bool
	// MarkersOnly draws the markers without the line between them (points
	// that are not a curve, e.g. values clipped to the axis).
	MarkersOnly bool
	// Dashed draws a dashed line: shorthand for Dash: Dashed (Dash wins
	// when both are set).
	Dashed bool
	// Dash is the dash pattern of the line (Solid by default).
	Dash Dash
	// Color is a "#rrggbb" color; empty means Color(i) for the i-th series
	// of the figure.
	Color string
}

// HLine is a horizontal reference line of a line chart (e.g. a target
// gap), drawn thin in gray across the x range of the data. Successive
// reference lines get distinct dash patterns (dashed, dotted, dash-dot,
// long dashes) unless Dash says otherwise; no method curve is gray (see
// MethodStyle), so a reference line never looks like a method.
type HLine struct {
	// Y is the height of the line; a line with a non-finite Y, or Y <= 0 on
	// a log y axis, is not drawn.
	Y float64
	// Label is the legend label; empty means none.
	Label string
	// Dash is the dash pattern; Solid (the zero value) means the pattern
	// of the line's position.
	Dash Dash
}

// Mark is a vertical marker of a line chart at X, labeled: where something
// changed during a run (a knob switched, a fork). It is drawn as a thin
// gray dotted line with its label at the top: labels of nearby marks go on
// rows one under the other, a label that would leave the plot goes left of
// its mark, and each line stops under its own label, so that labels
// neither overlap nor cross other marks' lines nor get clipped.
type Mark struct {
	X     float64
	Label string
}

// Figure is a renderer-independent description of a chart. Build one by
// hand or with the trace helpers (GapCurves, ...), then render it with
// WritePNG, WriteSVG, WritePDF, Save (static, gonum/plot) or WriteHTML and
// IFrame (interactive, ECharts). Rendering never modifies the figure.
type Figure struct {
	// Title, XLabel and YLabel label the chart and its axes.
	Title, XLabel, YLabel string
	// Kind is Lines (the zero value), Bars or HeatMap.
	Kind Kind
	// LogX and LogY select logarithmic axes (Lines only): non-positive,
	// NaN and infinite coordinates on a log axis are dropped (see Series).
	LogX, LogY bool
	// Series are the curves (Lines) or bar groups (Bars).
	Series []Series
	// HLines are horizontal reference lines (Lines only).
	HLines []HLine
	// Marks are vertical event markers (Lines only); marks outside the x
	// range of the data, or at a non-positive x on a log axis, are not
	// drawn.
	Marks []Mark
	// Notes are short remarks shown under the title: what the figure
	// leaves out and why ("ssg: no duality gap"), or what it cannot show
	// ("no value reached the target").
	Notes []string
	// XRange and YRange, when not zero, fix the range {min, max} of an axis
	// (min < max, min > 0 on a log axis) instead of fitting the data, e.g.
	// {0, 1} for a rate. XRange applies to line charts, YRange to line and
	// bar charts.
	XRange, YRange [2]float64
	// XTicks, when set, are the labeled ticks of the x axis of a line
	// chart in place of the automatic ones (increasing, finite, > 0 on a
	// log axis), e.g. the worker counts 1, 2, 4, ..., 64 on a log axis.
	// Static figures only: the interactive charts keep ECharts' ticks.
	XTicks []float64

	// Categories label the bar groups (Bars).
	Categories []string

	// Rows and Cols label the rows and columns of a HeatMap, and
	// Cells[r][c] is the value of row r and column c; NaN and infinite
	// cells are left blank.
	Rows, Cols []string
	Cells      [][]float64
	// CellFormat is the fmt verb of the cell labels of a heat map; empty
	// means "%.3g".
	CellFormat string
	// BlankLabel labels the NaN and infinite cells of a heat map, e.g.
	// "not reached"; empty leaves them unlabeled.
	BlankLabel string
}

// ErrEmptyFigure is returned when a figure has nothing to draw: no series
// and no reference line (Lines, Bars), or no cell (HeatMap).
var ErrEmptyFigure = errors.New("viz: empty figure")

// palette is the default series palette (matplotlib's tab10), shared by
// the static and the interactive renderers.
var palette = [...]string{
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
}

// refColor is the color of reference lines.
const refColor = "#555555"

// Color returns the i-th color of the default palette (cycling), the color
// of the i-th series of a figure whose Series.Color is empty. Negative i
// count from the end.
func Color(i int) string {
	n := len(palette)
	return palette[((i%n)+n)%n]
}

// parseColor parses "#rrggbb" or "#rgb".
func parseColor(s string) (color.NRGBA, error) {
	h := strings.TrimPrefix(s, "#")
	if len(h) == 3 {
		h = string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
	}
	if len(s) == 0 || s[0] != '#' || len(h) != 6 {
		return color.NRGBA{}, fmt.Errorf("viz: color %q is not #rrggbb", s)
	}
	v, err := strconv.ParseUint(h, 16, 32)
	if err != nil {
		return color.NRGBA{}, fmt.Errorf("viz: color %q is not #rrggbb", s)
	}
	return color.NRGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}, nil
}

// seriesColor returns the color of the i-th series of a valid figure as
// "#rrggbb".
func seriesColor(s Series, i int) string {
	if s.Color == "" {
		return Color(i)
	}
	c, _ := parseColor(s.Color)
	return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
}

// Validate reports whether the figure can be rendered: a known kind,
// consistent lengths, valid colors, log axes only on line charts, and
// something to draw. It does not reject NaN, infinite or (on log axes)
// non-positive values: those are dropped at render time.
func (f *Figure) Validate() error {
	if f == nil {
		return errors.New("viz: nil figure")
	}
	for i, s := range f.Series {
		if s.Color != "" {
			if _, err := parseColor(s.Color); err != nil {
				return fmt.Errorf("viz: series %d (%q): %w", i, s.Name, err)
			}
		}
		if err := checkDash(s.Dash, fmt.Sprintf("series %d (%q)", i, s.Name)); err != nil {
			return err
		}
	}
	for i, h := range f.HLines {
		if err := checkDash(h.Dash, fmt.Sprintf("reference line %d (%q)", i, h.Label)); err != nil {
			return err
		}
	}
	if len(f.Marks) > 0 && f.Kind != Lines {
		return fmt.Errorf("viz: marks are only supported by line charts, not %s", f.Kind)
	}
	if err := checkRange("XRange", f.XRange, f.LogX); err != nil {
		return err
	}
	if err := checkRange("YRange", f.YRange, f.LogY); err != nil {
		return err
	}
	if f.XRange != [2]float64{} && f.Kind != Lines || f.YRange != [2]float64{} && f.Kind == HeatMap {
		return fmt.Errorf("viz: axis ranges are not supported by %s charts", f.Kind)
	}
	if err := checkTicks(f.XTicks, f.LogX); err != nil {
		return err
	}
	if len(f.XTicks) > 0 && f.Kind != Lines {
		return fmt.Errorf("viz: x ticks are only supported by line charts, not %s", f.Kind)
	}
	switch f.Kind {
	case Lines:
		if len(f.Series) == 0 && len(f.HLines) == 0 {
			return ErrEmptyFigure
		}
		for i, s := range f.Series {
			if len(s.X) != len(s.Y) {
				return fmt.Errorf("viz: series %d (%q): len(X) = %d but len(Y) = %d", i, s.Name, len(s.X), len(s.Y))
			}
			if (s.Lo == nil) != (s.Hi == nil) {
				return fmt.Errorf("viz: series %d (%q): a band needs both Lo and Hi", i, s.Name)
			}
			if s.Lo != nil && (len(s.Lo) != len(s.X) || len(s.Hi) != len(s.X)) {
				return fmt.Errorf("viz: series %d (%q): len(Lo) = %d and len(Hi) = %d, want len(X) = %d", i, s.Name, len(s.Lo), len(s.Hi), len(s.X))
			}
		}
	case Bars:
		if f.LogX || f.LogY {
			return errors.New("viz: log axes are only supported by line charts")
		}
		if len(f.HLines) > 0 {
			return errors.New("viz: reference lines are only supported by line charts")
		}
		if len(f.Series) == 0 {
			return ErrEmptyFigure
		}
		if len(f.Categories) == 0 {
			return errors.New("viz: a bar chart needs Categories")
		}
		for i, s := range f.Series {
			if len(s.Y) != len(f.Categories) {
				return fmt.Errorf("viz: series %d (%q): len(Y) = %d, want one value per category (%d)", i, s.Name, len(s.Y), len(f.Categories))
			}
			if s.Lo != nil || s.Hi != nil {
				return fmt.Errorf("viz: series %d (%q): bands are only supported by line charts", i, s.Name)
			}
		}
	case HeatMap:
		if f.LogX || f.LogY {
			return errors.New("viz: log axes are only supported by line charts")
		}
		if len(f.Series) > 0 || len(f.HLines) > 0 {
			return errors.New("viz: a heat map has Cells, not Series or HLines")
		}
		if len(f.Rows) == 0 || len(f.Cols) == 0 {
			return ErrEmptyFigure
		}
		if len(f.Cells) != len(f.Rows) {
			return fmt.Errorf("viz: heat map has %d rows of cells for %d row labels", len(f.Cells), len(f.Rows))
		}
		for r, row := range f.Cells {
			if len(row) != len(f.Cols) {
				return fmt.Errorf("viz: heat map row %d has %d cells for %d column labels", r, len(row), len(f.Cols))
			}
		}
	default:
		return fmt.Errorf("viz: unknown figure kind %d", int(f.Kind))
	}
	return nil
}

func checkRange(name string, r [2]float64, log bool) error {
	if r == [2]float64{} {
		return nil
	}
	if !ok(r[0], log) || !ok(r[1], log) || !(r[0] < r[1]) {
		return fmt.Errorf("viz: %s %v: want finite min < max (min > 0 on a log axis)", name, r)
	}
	return nil
}

func checkTicks(ticks []float64, log bool) error {
	for i, v := range ticks {
		if !ok(v, log) || i > 0 && !(v > ticks[i-1]) {
			return fmt.Errorf("viz: XTicks %v: want increasing finite values (> 0 on a log axis)", ticks)
		}
	}
	return nil
}

// line is a sanitized series of a line chart, ready for a renderer.
type line struct {
	name         string
	x, y         []float64 // kept points
	bx, blo, bhi []float64 // kept band points
	markers      bool
	noLine       bool // markers only
	dash         Dash
	color        string
	ref          bool // a reference line
	label        bool // a mark label (placeLegend only)
}

// ok reports whether v can be drawn on an axis.
func ok(v float64, log bool) bool {
	return !math.IsNaN(v) && !math.IsInf(v, 0) && (!log || v > 0)
}

// lines validates f (a line chart) and returns its sanitized series,
// reference lines last.
func (f *Figure) lines() ([]line, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	out := make([]line, 0, len(f.Series)+len(f.HLines))
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for i, s := range f.Series {
		l := line{name: s.Name, markers: s.Markers || s.MarkersOnly, noLine: s.MarkersOnly, dash: s.lineDash(), color: seriesColor(s, i)}
		for j := range s.X {
			if ok(s.X[j], f.LogX) && ok(s.Y[j], f.LogY) {
				l.x = append(l.x, s.X[j])
				l.y = append(l.y, s.Y[j])
				xmin, xmax = math.Min(xmin, s.X[j]), math.Max(xmax, s.X[j])
			}
		}
		if s.Lo != nil {
			for j := range s.X {
				if ok(s.X[j], f.LogX) && ok(s.Lo[j], f.LogY) && ok(s.Hi[j], f.LogY) {
					l.bx = append(l.bx, s.X[j])
					l.blo = append(l.blo, s.Lo[j])
					l.bhi = append(l.bhi, s.Hi[j])
					xmin, xmax = math.Min(xmin, s.X[j]), math.Max(xmax, s.X[j])
				}
			}
		}
		out = append(out, l)
	}
	if xmin > xmax { // no data: a unit range
		xmin, xmax = 0, 1
		if f.LogX {
			xmin, xmax = 1, 10
		}
	}
	for k, h := range f.HLines {
		if !ok(h.Y, f.LogY) {
			continue
		}
		d := h.Dash
		if d == Solid {
			d = refDashes[k%len(refDashes)]
		}
		out = append(out, line{name: h.Label, x: []float64{xmin, xmax}, y: []float64{h.Y, h.Y},
			dash: d, color: refColor, ref: true})
	}
	return out, nil
}

// marks returns the marks of a line chart that fall inside the x range of
// its sanitized series (reference lines aside).
func (f *Figure) marks(ls []line) []Mark {
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for _, l := range ls {
		if l.ref {
			continue
		}
		for _, x := range append(append([]float64(nil), l.x...), l.bx...) {
			xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
		}
	}
	var out []Mark
	for _, m := range f.Marks {
		if ok(m.X, f.LogX) && m.X >= xmin && m.X <= xmax {
			out = append(out, m)
		}
	}
	return out
}

// cellFormat returns the fmt verb of heat-map cell labels.
func (f *Figure) cellFormat() string {
	if f.CellFormat == "" {
		return "%.3g"
	}
	return f.CellFormat
}

// cellRange returns the range of the finite cells, widened when it is
// empty or a single value.
func (f *Figure) cellRange() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, row := range f.Cells {
		for _, v := range row {
			if ok(v, false) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	switch {
	case lo > hi:
		return 0, 1
	case lo == hi:
		d := math.Max(math.Abs(lo)*0.1, 0.5)
		return lo - d, hi + d
	}
	return lo, hi
}

// heatStops are the colors of the heat-map scale (viridis), low to high.
var heatStops = []string{"#440154", "#3b528b", "#21918c", "#5ec962", "#fde725"}
