package viz

import (
	"image"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// colorBarWidth is the share of a heat map's width taken by its color bar.
const colorBarWidth = 0.13

// splitColorBar splits the canvas of a heat map into the map (left) and
// its color bar (right, inset from the top and bottom by about the title
// and the x axis of the map, so that the bar spans the cells).
func splitColorBar(c draw.Canvas) (main, bar draw.Canvas) {
	w := c.Max.X - c.Min.X
	main = draw.Crop(c, 0, -w*colorBarWidth, 0, 0)
	bar = draw.Crop(c, w*(1-colorBarWidth)+px(8), -px(28), px(50), -px(45))
	return main, bar
}

// colorBar returns the color bar of a heat map: the color scale of its
// cells from the lowest to the highest finite value, with value ticks.
func (f *Figure) colorBar() *plot.Plot {
	lo, hi := f.cellRange()
	p := plot.New()
	p.HideX()
	p.Y.Tick.Marker = linTicks{}
	p.Y.Padding = 0
	cols := heatColors(256)
	img := image.NewRGBA(image.Rect(0, 0, 1, len(cols)))
	for k, c := range cols {
		img.Set(0, len(cols)-1-k, c) // row 0 is the top
	}
	p.Add(plotter.NewImage(img, 0, lo, 1, hi))
	p.Y.Min, p.Y.Max = lo, hi
	p.X.Min, p.X.Max = 0, 1
	p.Y.Tick.Label.Font.Size = vg.Points(9)
	return p
}
