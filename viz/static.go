package viz

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/fwstruct/fwstruct/internal/atomicfile"
)

// DPI is the resolution at which static figures convert pixels to lengths:
// a W x H pixel PNG is exactly W x H pixels, and an SVG or PDF of the same
// size has the same layout (W*72/DPI x H*72/DPI points).
const DPI = 96

// MaxPixels bounds the width and height accepted by the static writers.
const MaxPixels = 16384

func checkSize(width, height int) error {
	if width <= 0 || height <= 0 || width > MaxPixels || height > MaxPixels {
		return fmt.Errorf("viz: figure size %dx%d pixels outside [1, %d]", width, height, MaxPixels)
	}
	return nil
}

// px converts pixels to a vg.Length at DPI.
func px(n int) vg.Length { return vg.Length(n) * vg.Inch / DPI }

// WritePNG renders the figure with gonum/plot as a width x height pixel PNG
// image, with a tEXt chunk PNGDrawnKey saying how much data it draws.
func (f *Figure) WritePNG(w io.Writer, width, height int) error {
	if err := checkSize(width, height); err != nil {
		return err
	}
	c := vgimg.NewWith(vgimg.UseWH(px(width), px(height)), vgimg.UseDPI(DPI))
	if err := f.drawTo(c, px(width), px(height)); err != nil {
		return err
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return err
	}
	img, err := withPNGText(buf.Bytes(), PNGDrawnKey, drawnText(f))
	if err != nil {
		return err
	}
	_, err = w.Write(img)
	return err
}

// WriteSVG renders the figure with gonum/plot as an SVG document of width x
// height pixels (CSS pixels, DPI per inch).
func (f *Figure) WriteSVG(w io.Writer, width, height int) error {
	if err := checkSize(width, height); err != nil {
		return err
	}
	c := vgsvg.New(px(width), px(height))
	if err := f.drawTo(c, px(width), px(height)); err != nil {
		return err
	}
	_, err := c.WriteTo(w)
	return err
}

// WritePDF renders the figure with gonum/plot as a one-page PDF of width x
// height pixels (DPI per inch).
func (f *Figure) WritePDF(w io.Writer, width, height int) error {
	if err := checkSize(width, height); err != nil {
		return err
	}
	c := vgpdf.New(px(width), px(height))
	if err := f.drawTo(c, px(width), px(height)); err != nil {
		return err
	}
	_, err := c.WriteTo(w)
	return err
}

// Save writes the figure to a file whose extension selects the format:
// .png, .svg, .pdf (static, width x height pixels) or .html (interactive,
// WriteHTML; the size is then the browser window's). The file is written
// atomically (internal/atomicfile): a reader sees the old file or the new
// one, a symbolic link is followed.
func (f *Figure) Save(path string, width, height int) error {
	write, err := f.Encoder(path, width, height)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, 0o644, write)
}

// CheckFormat returns an error when the extension of path is none of the
// formats Save writes, so that a tool can refuse an output before the
// computation of its figure.
func CheckFormat(path string) error {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".png", ".svg", ".pdf", ".html", ".htm":
		return nil
	default:
		return fmt.Errorf("viz: unsupported file extension %q (want .png, .svg, .pdf or .html)", ext)
	}
}

// Encoder returns the function that writes the figure in the format of
// path's extension, as Save does (for a writer of its own, e.g. one that
// can be interrupted), after checking the format, the size and the figure.
func (f *Figure) Encoder(path string, width, height int) (func(io.Writer) error, error) {
	if err := CheckFormat(path); err != nil {
		return nil, err
	}
	var write func(io.Writer) error
	static := true
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png":
		write = func(w io.Writer) error { return f.WritePNG(w, width, height) }
	case ".svg":
		write = func(w io.Writer) error { return f.WriteSVG(w, width, height) }
	case ".pdf":
		write = func(w io.Writer) error { return f.WritePDF(w, width, height) }
	default:
		write, static = f.WriteHTML, false
	}
	if static {
		if err := checkSize(width, height); err != nil {
			return nil, err
		}
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return write, nil
}

// drawTo builds the plot and draws it on c. gonum/plot panics on some
// inputs; the figure is sanitized so that it should not, and any panic
// left is returned as an error.
func (f *Figure) drawTo(c vg.Canvas, width, height vg.Length) (err error) {
	p, err := f.plot(width, height)
	if err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("viz: gonum/plot: %v", r)
		}
	}()
	dc := draw.NewCanvas(c, width, height)
	if f.Kind == HeatMap {
		main, bar := splitColorBar(dc)
		p.Draw(main)
		f.colorBar().Draw(bar)
		return nil
	}
	if p.legendOutside {
		// The data area narrows by the legend's width, which goes into the
		// strip so freed, at its top, beside the axes.
		w := legendStrip(p.Plot) - legendGap
		p.Legend.Top, p.Legend.Left, p.Legend.XOffs = true, false, w
		p.Draw(draw.Crop(dc, 0, -w-legendGap, 0, 0))
		return nil
	}
	p.Draw(dc)
	return nil
}

// legendGap separates a legend drawn outside the axes from the data area
// and from the canvas's edge.
const legendGap = vg.Length(6)

// legendStrip is the width a legend drawn beside the axes takes.
func legendStrip(p *plot.Plot) vg.Length {
	return p.Legend.Rectangle(draw.Canvas{}).Size().X + 2*legendGap
}

// legendFitsOutside reports whether the legend of p can go beside the axes
// of a canvas of the given width: its strip takes at most a third of the
// width and leaves the data area 400 pixels at least (on a smaller canvas
// the legend stays in the corner of the axes that hides the least).
func legendFitsOutside(p *plot.Plot, width vg.Length) bool {
	strip := legendStrip(p)
	return strip <= width/3 && width-strip >= px(400)
}

// builtPlot is the gonum plot of a figure and where its legend goes.
type builtPlot struct {
	*plot.Plot
	// legendOutside is set when every corner of the data area holds data
	// (placeLegend): the legend is drawn beside the axes, not over them.
	legendOutside bool
}

// plot builds the gonum plot of the figure for a canvas of the given width.
func (f *Figure) plot(width, height vg.Length) (*builtPlot, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	p := plot.New()
	p.Title.Text = wrapLines(f.title(), width-px(16), p.Title.TextStyle.Width)
	p.X.Label.Text = f.XLabel
	p.Y.Label.Text = f.YLabel
	p.Legend.Top = true
	var err error
	outside := false
	switch f.Kind {
	case Lines:
		outside, err = f.plotLines(p, width, height)
		outside = outside && legendFitsOutside(p, width)
	case Bars:
		err = f.plotBars(p, width)
	case HeatMap:
		err = f.plotHeatMap(p)
	}
	if err != nil {
		return nil, err
	}
	return &builtPlot{Plot: p, legendOutside: outside}, nil
}

func xys(x, y []float64) plotter.XYs {
	pts := make(plotter.XYs, len(x))
	for i := range x {
		pts[i] = plotter.XY{X: x[i], Y: y[i]}
	}
	return pts
}

// translucent returns c with the band's alpha.
func translucent(c color.NRGBA) color.NRGBA {
	c.A = 0x40
	return c
}

// plotLines adds the figure's lines to p; outside reports that its legend
// would hide data in every corner of the axes (see placeLegend).
func (f *Figure) plotLines(p *plot.Plot, width, height vg.Length) (outside bool, err error) {
	ls, err := f.lines()
	if err != nil {
		return false, err
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 0xe0}
	grid.Horizontal.Color = color.Gray{Y: 0xe0}
	p.Add(grid)
	cols := make([]color.NRGBA, len(ls))
	for i, l := range ls {
		if cols[i], err = parseColor(l.color); err != nil {
			return false, err
		}
	}
	// Bands first, so that every curve is drawn over every band.
	for i, l := range ls {
		if len(l.bx) < 2 {
			continue
		}
		pts := make(plotter.XYs, 0, 2*len(l.bx))
		for j := range l.bx {
			pts = append(pts, plotter.XY{X: l.bx[j], Y: l.bhi[j]})
		}
		for j := len(l.bx) - 1; j >= 0; j-- {
			pts = append(pts, plotter.XY{X: l.bx[j], Y: l.blo[j]})
		}
		poly, err := plotter.NewPolygon(pts)
		if err != nil {
			return false, fmt.Errorf("viz: band of %q: %w", l.name, err)
		}
		poly.Color = translucent(cols[i])
		poly.LineStyle.Width = 0
		p.Add(poly)
	}
	for i, l := range ls {
		ln, err := plotter.NewLine(xys(l.x, l.y))
		if err != nil {
			return false, fmt.Errorf("viz: series %q: %w", l.name, err)
		}
		ln.Color = cols[i]
		ln.Width = vg.Points(1.5)
		if l.ref {
			ln.Width = vg.Points(1)
		}
		if l.dash != Solid {
			ln.Dashes = l.dash.vgDashes()
		}
		var thumbs []plot.Thumbnailer
		if !l.noLine {
			thumbs = append(thumbs, ln)
			if len(l.x) > 0 {
				p.Add(ln)
			}
		}
		if l.markers || len(l.x) == 1 { // a single point has no line to show
			sc, err := plotter.NewScatter(xys(l.x, l.y))
			if err != nil {
				return false, fmt.Errorf("viz: series %q: %w", l.name, err)
			}
			sc.Color = cols[i]
			sc.Radius = vg.Points(2.5)
			sc.Shape = draw.CircleGlyph{}
			if len(l.x) > 0 {
				p.Add(sc)
			}
			if l.markers {
				thumbs = append(thumbs, sc)
			}
		}
		if l.name != "" {
			p.Legend.Add(l.name, thumbs...)
		}
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = linTicks{}, linTicks{}
	if f.LogX {
		lo, hi := logRange(ls, func(l line) ([]float64, []float64) { return l.x, l.bx })
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{}
		p.X.Min, p.X.Max = lo, hi
	}
	if f.LogY {
		lo, hi := logRange(ls, func(l line) ([]float64, []float64) { return l.y, append(append([]float64(nil), l.blo...), l.bhi...) })
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks{}
		p.Y.Min, p.Y.Max = lo, hi
	}
	if f.XRange != [2]float64{} {
		p.X.Min, p.X.Max = f.XRange[0], f.XRange[1]
	}
	if f.YRange != [2]float64{} {
		p.Y.Min, p.Y.Max = f.YRange[0], f.YRange[1]
	}
	if len(f.XTicks) > 0 {
		p.X.Tick.Marker = fixedTicks(f.XTicks)
	}
	marks := f.marks(ls)
	addMarks(p, marks)
	return placeLegend(p, append(ls, markLines(p, marks, width, height)...), width, height), nil
}

// markLines returns the marks as lines for placeLegend: each vertical line
// up to its label, and the label along its row (see markPlotter), so that
// the legend avoids them too. The data area is taken as 85% of the width
// and 80% of the height of the canvas, as placeLegend does.
func markLines(p *plot.Plot, marks []Mark, width, height vg.Length) []line {
	if len(marks) == 0 || !(p.X.Max > p.X.Min) || !(p.Y.Max > p.Y.Min) {
		return nil
	}
	xs, slots, row := markSlotsIn(p, marks, 0.85*width, 0.8*height)
	x := func(t float64) float64 { return denorm(p.X, t) }
	y := func(t float64) float64 { return denorm(p.Y, t) }
	var out []line
	for i, s := range slots {
		top := 1 - float64(s.row)*row
		mid := top - row/2
		out = append(out,
			line{x: []float64{x(xs[i]), x(xs[i])}, y: []float64{p.Y.Min, y(max(0, top-row))}},
			line{x: []float64{x(s.left), x(s.right)}, y: []float64{y(mid), y(mid)}, label: true})
	}
	return out
}

// denorm returns the value at fraction t of an axis (the inverse of
// Axis.Norm for linear and log scales).
func denorm(a plot.Axis, t float64) float64 {
	if _, isLog := a.Scale.(plot.LogScale); isLog && a.Min > 0 {
		return a.Min * math.Pow(a.Max/a.Min, t)
	}
	return a.Min + t*(a.Max-a.Min)
}

// markColor is the color of event marks.
var markColor = color.NRGBA{R: 0x88, G: 0x88, B: 0x88, A: 0xff}

// addMarks draws the marks (markPlotter) when the plot has a y range.
func addMarks(p *plot.Plot, marks []Mark) {
	if len(marks) > 0 && p.Y.Max > p.Y.Min {
		p.Add(markPlotter{marks: marks})
	}
}

// labelWeight is what hiding a point of a mark label costs in placeLegend,
// in points of curves: a legend hides a label only where every corner
// does.
const labelWeight = 1000

// placeLegend puts the legend in the corner of the data area that hides the
// fewest points of the curves (sampled along their segments), bands and
// mark labels (those weigh labelWeight). It reports whether even that
// corner hides some: then the legend belongs beside the axes when it fits
// there (legendFitsOutside).
func placeLegend(p *plot.Plot, ls []line, width, height vg.Length) (covers bool) {
	n, longest := 0, 0
	for _, l := range ls {
		if l.name != "" {
			n++
			longest = max(longest, len([]rune(l.name)))
		}
	}
	if n == 0 || !(p.X.Max > p.X.Min) || !(p.Y.Max > p.Y.Min) {
		return false
	}
	fs := p.Legend.TextStyle.Font.Size.Points()
	boxW := (0.55*fs*float64(longest) + 30) / (0.85 * width.Points())
	boxH := (1.25*fs*float64(n) + 10) / (0.8 * height.Points())
	nx := func(v float64) float64 { return p.X.Scale.Normalize(p.X.Min, p.X.Max, v) }
	ny := func(v float64) float64 { return p.Y.Scale.Normalize(p.Y.Min, p.Y.Max, v) }
	type corner struct{ top, left bool }
	corners := []corner{{true, false}, {true, true}, {false, false}, {false, true}}
	hidden := make([]int, len(corners))
	mark := func(x, y float64, weight int) {
		for i, c := range corners {
			inX := x >= 1-boxW
			if c.left {
				inX = x <= boxW
			}
			inY := y <= boxH
			if c.top {
				inY = y >= 1-boxH
			}
			if inX && inY {
				hidden[i] += weight
			}
		}
	}
	for _, l := range ls {
		weight := 1
		if l.label {
			weight = labelWeight
		}
		for j := range l.x {
			x, y := nx(l.x[j]), ny(l.y[j])
			mark(x, y, weight)
			if j+1 < len(l.x) {
				x1, y1 := nx(l.x[j+1]), ny(l.y[j+1])
				for k := 1; k < 10; k++ {
					t := float64(k) / 10
					mark(x+t*(x1-x), y+t*(y1-y), weight)
				}
			}
		}
		for j := range l.bx {
			mark(nx(l.bx[j]), ny(l.blo[j]), weight)
			mark(nx(l.bx[j]), ny(l.bhi[j]), weight)
		}
	}
	best := 0
	for i := range corners {
		if hidden[i] < hidden[best] {
			best = i
		}
	}
	p.Legend.Top, p.Legend.Left = corners[best].top, corners[best].left
	return hidden[best] > 0
}

// logRange returns the range of a log axis: the data range (all positive
// after sanitization) widened to the nearest 1, 2 or 5 times a power of
// ten; [1, 10] without data.
func logRange(ls []line, values func(line) ([]float64, []float64)) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, l := range ls {
		a, b := values(l)
		for _, v := range append(append([]float64(nil), a...), b...) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if lo > hi {
		return 1, 10
	}
	dmin, dmax := lo, hi
	lo, hi = niceDown(dmin), niceUp(dmax)
	if !(hi > lo) {
		hi = niceUp(lo * 1.5)
	}
	if !(lo > 0 && lo <= dmin && hi >= dmax && hi > lo && !math.IsInf(hi, 0)) {
		// Extreme magnitudes: fall back to the data range.
		lo, hi = dmin, dmax
		if l := lo / 2; l > 0 {
			lo = l
		}
		if h := hi * 2; !math.IsInf(h, 0) {
			hi = h
		}
		if !(hi > lo) { // the largest float64
			lo = math.Nextafter(lo, 0)
		}
	}
	return lo, hi
}

// niceDown returns the largest 1, 2 or 5 times a power of ten <= v > 0.
func niceDown(v float64) float64 {
	e := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{5, 2, 1} {
		if m*e <= v {
			return m * e
		}
	}
	return e / 2 // rounding of Log10
}

// niceUp returns the smallest 1, 2 or 5 times a power of ten >= v > 0.
func niceUp(v float64) float64 {
	e := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*e >= v {
			return m * e
		}
	}
	return 20 * e // rounding of Log10
}

// logTicks marks every decade (every k-th when there are many), labels
// 2 and 5 times a decade too when the range spans at most two decades, and
// puts minor ticks at the other multiples. Unlike plot.LogTicks it never
// panics and always labels at least the ends of a whole-decade range.
type logTicks struct{}

func (logTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > min) || math.IsInf(max, 0) {
		return nil
	}
	e0 := int(math.Floor(math.Log10(min)))
	e1 := int(math.Ceil(math.Log10(max)))
	decades := e1 - e0
	step := 1
	if decades > 8 {
		step = (decades + 7) / 8
	}
	var ticks []plot.Tick
	in := func(v float64) bool { return v >= min*(1-1e-9) && v <= max*(1+1e-9) }
	for e := e0; e <= e1; e++ {
		base := math.Pow10(e)
		if in(base) {
			t := plot.Tick{Value: base}
			if (e-e0)%step == 0 {
				t.Label = decadeLabel(1, e)
			}
			ticks = append(ticks, t)
		}
		if step > 1 {
			continue
		}
		for m := 2; m <= 9; m++ {
			v := float64(m) * base
			if !in(v) {
				continue
			}
			t := plot.Tick{Value: v}
			if decades <= 2 && (m == 2 || m == 5) {
				t.Label = decadeLabel(m, e)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// decadeLabel formats m * 10^e: plain decimals for e in [-4, 5], else
// "1e-05" style.
func decadeLabel(m, e int) string {
	if e >= -4 && e <= 5 {
		return strconv.FormatFloat(float64(m)*math.Pow10(e), 'f', max(0, -e), 64)
	}
	return fmt.Sprintf("%de%+03d", m, e)
}

// fixedTicks labels the given values (Figure.XTicks), %g.
func fixedTicks(values []float64) plot.ConstantTicks {
	t := make(plot.ConstantTicks, len(values))
	for i, v := range values {
		t[i] = plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)}
	}
	return t
}

// linTicks puts 3 to 7 labeled ticks at multiples of 1, 2 or 5 times a
// power of ten, with a minor tick between two labels.
type linTicks struct{}

func (linTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil
	}
	span := hi - lo
	e := math.Pow(10, math.Floor(math.Log10(span/5)))
	step := 10 * e
	for _, m := range []float64{1, 2, 5} {
		if span/(m*e) <= 7 {
			step = m * e
			break
		}
	}
	prec := max(0, -int(math.Floor(math.Log10(step))))
	first := math.Ceil(lo/step-1e-9) * step
	var ticks []plot.Tick
	for i := 0; ; i++ {
		v := first + float64(i)*step
		if v > hi+step*1e-9 {
			break
		}
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		label := strconv.FormatFloat(v, 'f', prec, 64)
		if math.Abs(v) >= 1e6 {
			label = strconv.FormatFloat(v, 'g', -1, 64)
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: label})
		if h := v + step/2; h <= hi {
			ticks = append(ticks, plot.Tick{Value: h})
		}
	}
	if h := first - step/2; h >= lo {
		ticks = append(ticks, plot.Tick{Value: h})
	}
	return ticks
}

func (f *Figure) plotBars(p *plot.Plot, width vg.Length) error {
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	grid.Horizontal.Color = color.Gray{Y: 0xe0}
	p.Add(grid)
	nc, ns := len(f.Categories), len(f.Series)
	// The data area is about 85% of the canvas; bars fill 80% of a group.
	w := width * 0.85 * 0.8 / vg.Length(nc*ns)
	if w <= 0 {
		return errors.New("viz: figure too narrow for its bars")
	}
	for j, s := range f.Series {
		vals := make(plotter.Values, nc)
		for i, v := range s.Y {
			if ok(v, false) {
				vals[i] = v
			}
		}
		bc, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return fmt.Errorf("viz: series %q: %w", s.Name, err)
		}
		col, err := parseColor(seriesColor(s, j))
		if err != nil {
			return err
		}
		bc.Color = col
		bc.LineStyle.Width = 0
		bc.Offset = vg.Length(float64(j)-float64(ns-1)/2) * w
		p.Add(bc)
		if s.Name != "" {
			p.Legend.Add(s.Name, bc)
		}
	}
	p.NominalX(f.Categories...)
	p.X.Min, p.X.Max = -0.5, float64(nc)-0.5
	p.Y.Tick.Marker = linTicks{}
	if f.YRange != [2]float64{} {
		p.Y.Min, p.Y.Max = f.YRange[0], f.YRange[1]
	}
	return nil
}

// cellGrid adapts the cells of a figure to plotter.GridXYZ.
type cellGrid struct{ f *Figure }

func (g cellGrid) Dims() (c, r int)   { return len(g.f.Cols), len(g.f.Rows) }
func (g cellGrid) Z(c, r int) float64 { return g.f.Cells[r][c] }
func (g cellGrid) X(c int) float64    { return float64(c) }
func (g cellGrid) Y(r int) float64    { return float64(r) }
func (g cellGrid) Min() (v float64)   { v, _ = g.f.cellRange(); return v }
func (g cellGrid) Max() (v float64)   { _, v = g.f.cellRange(); return v }

// heatPalette is the heat-map color scale as a gonum palette.
type heatPalette struct{}

func (heatPalette) Colors() []color.Color { return heatColors(256) }

// heatColors interpolates heatStops linearly to n colors.
func heatColors(n int) []color.Color {
	stops := make([]color.NRGBA, len(heatStops))
	for i, s := range heatStops {
		stops[i], _ = parseColor(s)
	}
	out := make([]color.Color, n)
	for i := range out {
		t := float64(i) / float64(n-1) * float64(len(stops)-1)
		k := min(int(t), len(stops)-2)
		u := t - float64(k)
		a, b := stops[k], stops[k+1]
		mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x)*(1-u) + float64(y)*u)) }
		out[i] = color.NRGBA{R: mix(a.R, b.R), G: mix(a.G, b.G), B: mix(a.B, b.B), A: 0xff}
	}
	return out
}

// blank is the color of NaN and infinite heat-map cells.
var blank = color.NRGBA{R: 0xf0, G: 0xf0, B: 0xf0, A: 0xff}

func (f *Figure) plotHeatMap(p *plot.Plot) error {
	g := cellGrid{f}
	hm := plotter.NewHeatMap(g, heatPalette{})
	hm.NaN, hm.Underflow, hm.Overflow = blank, blank, blank
	p.Add(hm)
	var pts plotter.XYs
	var labels []string
	for r, row := range f.Cells {
		for c, v := range row {
			switch {
			case ok(v, false):
				labels = append(labels, fmt.Sprintf(f.cellFormat(), v))
			case f.BlankLabel != "":
				labels = append(labels, f.BlankLabel)
			default:
				continue
			}
			pts = append(pts, plotter.XY{X: float64(c), Y: float64(r)})
		}
	}
	if len(pts) > 0 {
		lab, err := plotter.NewLabels(plotter.XYLabels{XYs: pts, Labels: labels})
		if err != nil {
			return err
		}
		pal := heatColors(256)
		lo, hi := f.cellRange()
		for i := range lab.TextStyle {
			v := f.Cells[int(pts[i].Y)][int(pts[i].X)]
			if !ok(v, false) { // a blank cell's label
				lab.TextStyle[i].Color = color.NRGBA{R: 0x66, G: 0x66, B: 0x66, A: 0xff}
				lab.TextStyle[i].XAlign = draw.XCenter
				lab.TextStyle[i].YAlign = draw.YCenter
				continue
			}
			k := int(math.Round((v - lo) / (hi - lo) * 255))
			lab.TextStyle[i].Color = textOn(pal[max(0, min(255, k))])
			lab.TextStyle[i].XAlign = draw.XCenter
			lab.TextStyle[i].YAlign = draw.YCenter
		}
		p.Add(lab)
	}
	p.X.Tick.Marker = nominal(f.Cols)
	p.Y.Tick.Marker = nominal(f.Rows)
	p.X.Tick.Width, p.Y.Tick.Width = 0, 0
	p.X.Min, p.X.Max = -0.5, float64(len(f.Cols))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(f.Rows))-0.5
	return nil
}

// nominal labels the integer positions 0, 1, ... with names.
func nominal(names []string) plot.ConstantTicks {
	t := make(plot.ConstantTicks, len(names))
	for i, n := range names {
		t[i] = plot.Tick{Value: float64(i), Label: n}
	}
	return t
}

// textOn returns black or white, whichever reads better on c.
func textOn(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	if 0.299*float64(r)+0.587*float64(g)+0.114*float64(b) > 0.5*0xffff {
		return color.Black
	}
	return color.White
}
