package viz

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"testing"
)

// squareMask is a w x h mask with the square [x0, x1) x [y0, y1) set.
func squareMask(w, h, x0, y0, x1, y1 int) *image.Gray {
	m := image.NewGray(image.Rect(0, 0, w, h))
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			m.Pix[y*m.Stride+x] = 255
		}
	}
	return m
}

func TestSegmentationOverlay(t *testing.T) {
	const w, h = 20, 16
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(10 * (i % 20))
	}
	truth := squareMask(w, h, 4, 4, 12, 12)
	pred := squareMask(w, h, 8, 2, 18, 10)
	out, err := SegmentationOverlay(img, truth, pred)
	if err != nil {
		t.Fatal(err)
	}
	if out.Bounds() != img.Bounds() {
		t.Fatalf("bounds %v", out.Bounds())
	}
	grey := func(x, y int) color.RGBA {
		v := img.Pix[y*img.Stride+x]
		return color.RGBA{v, v, v, 255}
	}
	tint := func(x, y int) color.RGBA {
		v := float64(img.Pix[y*img.Stride+x])
		mix := func(c uint8) uint8 { return uint8((1-PredictionAlpha)*v + PredictionAlpha*float64(c) + 0.5) }
		return color.RGBA{mix(PredictionTint.R), mix(PredictionTint.G), mix(PredictionTint.B), 255}
	}
	for _, tc := range []struct {
		name string
		x, y int
		want color.RGBA
	}{
		{"background", 1, 14, grey(1, 14)},
		{"truth-inside-not-predicted", 6, 8, grey(6, 8)},
		{"truth-corner", 4, 4, TruthContour},
		{"truth-edge", 11, 7, TruthContour},
		{"predicted-only", 16, 4, tint(16, 4)},
		{"predicted-and-truth-inside", 9, 7, tint(9, 7)},
		{"contour-over-prediction", 11, 5, TruthContour},
		{"outside-below-truth", 6, 12, grey(6, 12)},
	} {
		if got := out.RGBAAt(tc.x, tc.y); got != tc.want {
			t.Errorf("%s (%d, %d): %v, want %v", tc.name, tc.x, tc.y, got, tc.want)
		}
	}
	// Border pixels of a figure touching the image edge are contour.
	edge, err := SegmentationOverlay(img, squareMask(w, h, 0, 0, w, h), nil)
	if err != nil {
		t.Fatal(err)
	}
	if edge.RGBAAt(0, 5) != TruthContour || edge.RGBAAt(5, 5) != grey(5, 5) {
		t.Errorf("full mask: border %v, inside %v", edge.RGBAAt(0, 5), edge.RGBAAt(5, 5))
	}
	// Masks with bounds away from the origin are read relative to them.
	shifted := squareMask(w, h, 4, 4, 12, 12)
	shifted.Rect = shifted.Rect.Add(image.Pt(3, 7))
	if got, _ := SegmentationOverlay(img, shifted, pred); got.RGBAAt(4, 4) != TruthContour {
		t.Error("a shifted mask is not read relative to its bounds")
	}
}

func TestWriteSegmentationPNG(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 12, 9))
	truth, pred := squareMask(12, 9, 2, 2, 8, 7), squareMask(12, 9, 3, 1, 10, 6)
	var buf bytes.Buffer
	if err := WriteSegmentationPNG(&buf, img, truth, pred); err != nil {
		t.Fatal(err)
	}
	dec, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := SegmentationOverlay(img, truth, pred)
	for y := 0; y < 9; y++ {
		for x := 0; x < 12; x++ {
			r, g, b, a := dec.At(x, y).RGBA()
			c := want.RGBAAt(x, y)
			if uint8(r>>8) != c.R || uint8(g>>8) != c.G || uint8(b>>8) != c.B || uint8(a>>8) != 255 {
				t.Fatalf("pixel (%d, %d) decodes to %v, want %v", x, y, dec.At(x, y), c)
			}
		}
	}
	for _, tc := range []struct {
		name             string
		img, truth, pred *image.Gray
	}{
		{"nil-image", nil, truth, pred},
		{"truth-size", img, squareMask(11, 9, 0, 0, 1, 1), pred},
		{"pred-size", img, truth, squareMask(12, 10, 0, 0, 1, 1)},
	} {
		if err := WriteSegmentationPNG(&bytes.Buffer{}, tc.img, tc.truth, tc.pred); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// Overlay a predicted mask (tinted) and the true figure (outlined) on a grey
// image and write the result as a PNG.
func ExampleSegmentationOverlay() {
	img := image.NewGray(image.Rect(0, 0, 40, 30))
	for i := range img.Pix {
		img.Pix[i] = 128
	}
	truth := squareMask(40, 30, 10, 8, 30, 22)
	pred := squareMask(40, 30, 12, 6, 32, 20)
	overlay, err := SegmentationOverlay(img, truth, pred)
	if err != nil {
		panic(err)
	}
	fmt.Println(overlay.Bounds().Size(), overlay.RGBAAt(10, 15) == TruthContour, overlay.RGBAAt(31, 10) != overlay.RGBAAt(0, 0))
	var buf bytes.Buffer
	if err := WriteSegmentationPNG(&buf, img, truth, pred); err != nil {
		panic(err)
	}
	fmt.Println("PNG written:", buf.Len() > 0)
	// Output:
	// (40,30) true true
	// PNG written: true
}
