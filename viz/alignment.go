package viz

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Colors of AlignmentGrid.
var (
	// SureCell fills the cells of sure gold links.
	SureCell = color.NRGBA{R: 0x30, G: 0x30, B: 0x30, A: 0xff}
	// PossibleCell fills the cells of possible (not sure) gold links.
	PossibleCell = color.NRGBA{R: 0xb8, G: 0xb8, B: 0xb8, A: 0xff}
	// PredictedMark draws the ring of a predicted link.
	PredictedMark = color.NRGBA{R: 0xe0, G: 0x30, B: 0x10, A: 0xff}
)

// AlignmentGrid draws a word alignment of a sentence pair as the grids of
// Taskar, Lacoste-Julien and Klein (2005, Fig. 1): one row per English
// word, one column per French word (its word written vertically above
// it), sure gold links as dark squares, possible ones as light squares,
// and predicted links as rings over them, so that a ring on a dark square
// is a correct link, a ring on a light one an acceptable one, a ring on an
// empty cell an error, and a dark square without a ring a miss. Links are
// (English position, French position) pairs, 0-based.
type AlignmentGrid struct {
	Title     string
	English   []string
	French    []string
	Sure      [][2]int32
	Possible  [][2]int32
	Predicted [][2]int32
}

// Layout of the grid, in pixels at DPI.
const (
	gridCell     = 22 // side of a cell
	gridFontSize = 10 // points
	gridMargin   = 8
)

// gridLegend are the labels of the legend.
var gridLegend = [3]string{"sure", "possible", "predicted"}

// validate checks the links against the sentence lengths.
func (g *AlignmentGrid) validate() error {
	if len(g.English) == 0 || len(g.French) == 0 {
		return fmt.Errorf("viz: alignment grid of %d English and %d French words", len(g.English), len(g.French))
	}
	for _, set := range []struct {
		name  string
		links [][2]int32
	}{{"sure", g.Sure}, {"possible", g.Possible}, {"predicted", g.Predicted}} {
		for _, l := range set.links {
			if l[0] < 0 || int(l[0]) >= len(g.English) || l[1] < 0 || int(l[1]) >= len(g.French) {
				return fmt.Errorf("viz: %s link (%d, %d) outside the %d x %d grid", set.name, l[0], l[1], len(g.English), len(g.French))
			}
		}
	}
	return nil
}

// gridStyle returns the text style of the labels.
func gridStyle() text.Style {
	return text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, vg.Points(gridFontSize)), Handler: plot.DefaultTextHandler}
}

// layout returns the width of the English labels, the height of the French
// labels and of the title, and the size of the image, in pixels.
func (g *AlignmentGrid) layout() (left, top, title, width, height int) {
	st := gridStyle()
	toPx := toPixels
	for _, w := range g.English {
		left = max(left, toPx(st.Width(w)))
	}
	for _, w := range g.French {
		top = max(top, toPx(st.Width(w)))
	}
	left += gridMargin
	top += gridMargin
	if g.Title != "" {
		title = toPx(st.Height(g.Title)) + gridMargin
	}
	width = gridMargin + left + gridCell*len(g.French) + gridMargin
	height = gridMargin + title + top + gridCell*len(g.English) + gridMargin + gridCell + gridMargin // the legend below the grid
	if g.Title != "" {
		width = max(width, 2*gridMargin+toPx(st.Width(g.Title)))
	}
	legend := gridMargin
	for _, label := range gridLegend {
		legend += gridCell + 3 + toPx(st.Width(label)) + 2*gridMargin
	}
	width = max(width, legend)
	return left, top, title, width, height
}

// Size returns the width and height in pixels of the grid's image: a cell
// of 18 pixels per word pair plus the labels.
func (g *AlignmentGrid) Size() (width, height int) {
	_, _, _, width, height = g.layout()
	return width, height
}

// origin returns the pixel position of the top left corner of the cell
// grid, from the top left corner of the image.
func (g *AlignmentGrid) origin() (x0, y0 float64) {
	left, top, title, _, _ := g.layout()
	return float64(gridMargin + left), float64(gridMargin + title + top)
}

// draw draws the grid on a canvas of its Size.
func (g *AlignmentGrid) draw(c vg.Canvas) {
	_, _, _, width, height := g.layout()
	dc := draw.NewCanvas(c, px(width), px(height))
	// Pixel coordinates from the top left corner to canvas points.
	at := func(x, y float64) vg.Point {
		return vg.Point{X: vg.Length(x) * vg.Inch / DPI, Y: px(height) - vg.Length(y)*vg.Inch/DPI}
	}
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	st := gridStyle()
	if g.Title != "" {
		ts := st
		ts.YAlign = text.YTop
		dc.FillText(ts, at(gridMargin, gridMargin), g.Title)
	}
	x0, y0 := g.origin()
	cell := func(j, k int32) (x, y float64) { return x0 + float64(k)*gridCell, y0 + float64(j)*gridCell }
	// box fills the cell whose top left corner is (x, y), inset pixels in.
	box := func(x, y, inset float64, col color.Color) {
		var p vg.Path
		p.Move(at(x+inset, y+inset))
		p.Line(at(x+gridCell-inset, y+inset))
		p.Line(at(x+gridCell-inset, y+gridCell-inset))
		p.Line(at(x+inset, y+gridCell-inset))
		p.Close()
		dc.SetColor(col)
		dc.Fill(p)
	}
	// ring draws a predicted link's ring in the cell at (x, y).
	ring := func(x, y float64) {
		center := at(x+gridCell/2, y+gridCell/2)
		r := vg.Length(gridCell*0.34) * vg.Inch / DPI
		var p vg.Path
		p.Move(vg.Point{X: center.X + r, Y: center.Y})
		p.Arc(center, r, 0, 2*math.Pi)
		p.Close()
		dc.SetLineStyle(draw.LineStyle{Color: PredictedMark, Width: vg.Points(1.6)})
		dc.Stroke(p)
	}
	for _, l := range g.Possible {
		x, y := cell(l[0], l[1])
		box(x, y, 2, PossibleCell)
	}
	for _, l := range g.Sure {
		x, y := cell(l[0], l[1])
		box(x, y, 2, SureCell)
	}
	// Grid lines.
	grid := draw.LineStyle{Color: color.NRGBA{R: 0xd0, G: 0xd0, B: 0xd0, A: 0xff}, Width: vg.Points(0.5)}
	line := func(xa, ya, xb, yb float64) {
		a, b := at(xa, ya), at(xb, yb)
		dc.StrokeLine2(grid, a.X, a.Y, b.X, b.Y)
	}
	rows, cols := float64(len(g.English)), float64(len(g.French))
	for k := 0.0; k <= cols; k++ {
		line(x0+k*gridCell, y0, x0+k*gridCell, y0+rows*gridCell)
	}
	for j := 0.0; j <= rows; j++ {
		line(x0, y0+j*gridCell, x0+cols*gridCell, y0+j*gridCell)
	}
	for _, l := range g.Predicted {
		ring(cell(l[0], l[1]))
	}
	// Labels: English words right-aligned at the left, French words
	// written upwards above their columns.
	ls := st
	ls.XAlign, ls.YAlign = text.XRight, text.YCenter
	for j, w := range g.English {
		dc.FillText(ls, at(x0-4, y0+(float64(j)+0.5)*gridCell), w)
	}
	fs := st
	fs.XAlign, fs.YAlign, fs.Rotation = text.XLeft, text.YCenter, math.Pi/2
	for k, w := range g.French {
		dc.FillText(fs, at(x0+(float64(k)+0.5)*gridCell, y0-4), w)
	}
	// The legend, below the grid.
	ly := y0 + float64(len(g.English))*gridCell + gridMargin
	lx := float64(gridMargin)
	ts := st
	ts.YAlign = text.YCenter
	for _, item := range []struct {
		label string
		col   color.Color
		ring  bool
	}{{gridLegend[0], SureCell, false}, {gridLegend[1], PossibleCell, false}, {gridLegend[2], nil, true}} {
		if item.ring {
			ring(lx, ly)
		} else {
			box(lx, ly, 2, item.col)
		}
		lx += gridCell + 3
		dc.FillText(ts, at(lx, ly+gridCell/2), item.label)
		lx += float64(toPixels(st.Width(item.label))) + 2*gridMargin
	}
}

// toPixels converts a length to whole pixels at DPI, rounding up.
func toPixels(l vg.Length) int { return int(math.Ceil(float64(l) / float64(vg.Inch) * DPI)) }

// WritePNG renders the grid as a PNG image of its Size.
func (g *AlignmentGrid) WritePNG(w io.Writer) error {
	if err := g.validate(); err != nil {
		return err
	}
	width, height := g.Size()
	if err := checkSize(width, height); err != nil {
		return err
	}
	c := vgimg.NewWith(vgimg.UseWH(px(width), px(height)), vgimg.UseDPI(DPI))
	g.draw(c)
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return fmt.Errorf("viz: alignment grid PNG: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// WriteSVG renders the grid as an SVG document of its Size.
func (g *AlignmentGrid) WriteSVG(w io.Writer) error {
	if err := g.validate(); err != nil {
		return err
	}
	width, height := g.Size()
	if err := checkSize(width, height); err != nil {
		return err
	}
	c := vgsvg.New(px(width), px(height))
	g.draw(c)
	_, err := c.WriteTo(w)
	return err
}
