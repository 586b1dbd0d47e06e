package viz

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
)

// Colors of SegmentationOverlay.
var (
	// PredictionTint is blended (at PredictionAlpha) over the pixels a
	// model labels as figure.
	PredictionTint = color.RGBA{R: 255, G: 80, B: 0, A: 255}
	// PredictionAlpha is the opacity of PredictionTint.
	PredictionAlpha = 0.45
	// TruthContour colours the boundary pixels of the true figure.
	TruthContour = color.RGBA{R: 0, G: 230, B: 64, A: 255}
)

// SegmentationOverlay draws a figure/ground segmentation over its grey
// image: the pixels of pred that are non-zero (predicted figure) are tinted
// with PredictionTint, and the boundary of the non-zero pixels of truth
// (true figure pixels with a 4-neighbour outside the figure or on the image
// border) is drawn in TruthContour on top. truth or pred may be nil to draw
// only the other; both must otherwise have the size of img.
func SegmentationOverlay(img, truth, pred *image.Gray) (*image.RGBA, error) {
	if img == nil {
		return nil, fmt.Errorf("viz: segmentation overlay of a nil image")
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	for _, m := range []struct {
		name string
		g    *image.Gray
	}{{"truth", truth}, {"prediction", pred}} {
		if m.g != nil && m.g.Bounds().Size() != b.Size() {
			return nil, fmt.Errorf("viz: %s mask of size %v for an image of size %v", m.name, m.g.Bounds().Size(), b.Size())
		}
	}
	// Pixels are addressed relative to each image's bounds.
	at := func(g *image.Gray, x, y int) bool { return g.Pix[y*g.Stride+x] != 0 }
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	a := PredictionAlpha
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := float64(img.Pix[y*img.Stride+x])
			c := color.RGBA{R: uint8(v), G: uint8(v), B: uint8(v), A: 255}
			if pred != nil && at(pred, x, y) {
				c.R = uint8((1-a)*v + a*float64(PredictionTint.R) + 0.5)
				c.G = uint8((1-a)*v + a*float64(PredictionTint.G) + 0.5)
				c.B = uint8((1-a)*v + a*float64(PredictionTint.B) + 0.5)
			}
			if truth != nil && at(truth, x, y) {
				border := x == 0 || y == 0 || x == w-1 || y == h-1 ||
					!at(truth, x-1, y) || !at(truth, x+1, y) || !at(truth, x, y-1) || !at(truth, x, y+1)
				if border {
					c = TruthContour
				}
			}
			out.SetRGBA(x, y, c)
		}
	}
	return out, nil
}

// WriteSegmentationPNG writes SegmentationOverlay(img, truth, pred) to w as
// a PNG image.
func WriteSegmentationPNG(w io.Writer, img, truth, pred *image.Gray) error {
	m, err := SegmentationOverlay(img, truth, pred)
	if err != nil {
		return err
	}
	if err := png.Encode(w, m); err != nil {
		return fmt.Errorf("viz: segmentation PNG: %w", err)
	}
	return nil
}
