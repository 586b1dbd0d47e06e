package viz

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Event marks are vertical lines labeled at the top of the plot. Labels of
// marks at nearby x would overlap, and a label of a mark near the right
// edge would run out of the plot. So each label goes to the right of its
// mark, or to its left when it does not fit there (shifted into the area
// when it fits on neither side), and the labels are laid out in rows: a
// label is on a row above those of the marks it spans, and on no row with a
// label it overlaps; each mark's line stops under its own label, so that no
// label crosses another mark's line (save where labels span each other's
// marks in a cycle, which only a plot too narrow for its labels forces).
// Both renderers lay the labels out with layoutLabels: the static one here,
// the interactive one in the browser (jsMark), at the chart's actual size
// and zoom, through jsLayoutLabels, its translation into JavaScript.

// Sizes of the mark labels, in points (static) and pixels (ECharts).
const (
	markFontPoints = 8  // static labels
	markFontPixels = 10 // ECharts labels
	markPad        = 3  // between a mark and its label (points or pixels)
	markGap        = 4  // between two labels on a row
)

// labelSlot is where a mark label goes: from left to right on row (0 at
// the top).
type labelSlot struct {
	left, right float64
	row         int
}

// layoutLabels places labels of the given widths for marks at positions
// xs in [lo, hi], pad from their marks and gap apart on a row (one unit:
// points, pixels or fractions of the area), as the comment above says;
// the slots are in the order of xs. jsLayoutLabels (marklayout_gen.go) is
// its translation into JavaScript, for the interactive charts: after a
// change, go test ./viz -run TestMarkLayoutJS -update-js rewrites it, and
// the function must stay within what that translation accepts.
func layoutLabels(xs, widths []float64, lo, hi, pad, gap float64) []labelSlot {
	n := len(xs)
	slots := make([]labelSlot, n)
	for i, x := range xs {
		w := widths[i]
		a := x + pad
		if a+w > hi {
			a = x - pad - w
		}
		if a < lo {
			a = max(lo, min(x+pad, hi-w))
		}
		slots[i] = labelSlot{left: a, right: a + w, row: -1}
	}
	// above[i][j]: label i spans mark j, so it goes on a row above j's;
	// reach is its transitive closure.
	above, reach := make([][]bool, n), make([][]bool, n)
	for i := range above {
		above[i], reach[i] = make([]bool, n), make([]bool, n)
		for j := range above[i] {
			above[i][j] = i != j && slots[i].left <= xs[j] && xs[j] <= slots[i].right
			reach[i][j] = above[i][j]
		}
	}
	for k := range reach {
		for i := range reach {
			for j := range reach {
				reach[i][j] = reach[i][j] || reach[i][k] && reach[k][j]
			}
		}
	}
	for placed := 0; placed < n; placed++ {
		// The next label, leftmost first: one that no unplaced label must
		// be above; else (a cycle) one that only labels of its own cycle
		// must be above.
		next := -1
		for _, strict := range []bool{true, false} {
			for i := 0; i < n; i++ {
				if slots[i].row >= 0 || next >= 0 && slots[i].left >= slots[next].left {
					continue
				}
				blocked := false
				for j := 0; j < n; j++ {
					blocked = blocked || slots[j].row < 0 && above[j][i] && (strict || !reach[i][j])
				}
				if !blocked {
					next = i
				}
			}
			if next >= 0 {
				break
			}
		}
		lower, taken := 0, map[int]bool{}
		for j := 0; j < n; j++ {
			if slots[j].row < 0 {
				continue
			}
			if !(slots[j].right+gap < slots[next].left || slots[next].right+gap < slots[j].left) {
				taken[slots[j].row] = true
			}
			if above[j][next] {
				lower = max(lower, slots[j].row+1)
			}
		}
		r := lower
		for taken[r] {
			r++
		}
		slots[next].row = r
	}
	return slots
}

// markTextStyle is the style of static mark labels.
func markTextStyle() text.Style {
	return text.Style{
		Color:   color.NRGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff},
		Font:    font.From(plot.DefaultFont, markFontPoints),
		Handler: plot.DefaultTextHandler,
		XAlign:  draw.XLeft,
		YAlign:  draw.YTop,
	}
}

// markRow is the height of a row of static mark labels.
func markRow(sty text.Style) vg.Length { return sty.Font.Size * 1.3 }

// markPlotter draws event marks on a static plot.
type markPlotter struct{ marks []Mark }

// Plot implements plot.Plotter: the lines and the labels laid out in the
// data area c.
func (m markPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	sty := markTextStyle()
	xs, ws := make([]float64, len(m.marks)), make([]float64, len(m.marks))
	for i, mk := range m.marks {
		xs[i] = float64(trX(mk.X))
		ws[i] = float64(sty.Width(mk.Label))
	}
	slots := layoutLabels(xs, ws, float64(c.Min.X), float64(c.Max.X), float64(vg.Points(markPad)), float64(vg.Points(markGap)))
	row := markRow(sty)
	line := draw.LineStyle{Color: markColor, Width: vg.Points(1), Dashes: Dotted.vgDashes()}
	for i, mk := range m.marks {
		top := c.Max.Y - vg.Length(slots[i].row)*row
		x := vg.Length(xs[i])
		if end := top - row; end > c.Min.Y {
			c.StrokeLine2(line, x, c.Min.Y, x, end)
		}
		c.FillText(sty, vg.Point{X: vg.Length(slots[i].left), Y: top}, mk.Label)
	}
}

// markSlotsIn returns the layout of the static labels of marks in a data
// area of width by height points whose x axis is that of p, as fractions
// of the area (x from the left, y from the bottom), for placeLegend; rows
// is the height of a row as a fraction.
func markSlotsIn(p *plot.Plot, marks []Mark, width, height vg.Length) (xs []float64, slots []labelSlot, rowFrac float64) {
	sty := markTextStyle()
	ws := make([]float64, len(marks))
	for i, mk := range marks {
		xs = append(xs, p.X.Norm(mk.X))
		ws[i] = float64(sty.Width(mk.Label) / width)
	}
	pad, gap := float64(vg.Points(markPad)/width), float64(vg.Points(markGap)/width)
	return xs, layoutLabels(xs, ws, 0, 1, pad, gap), float64(markRow(sty) / height)
}
