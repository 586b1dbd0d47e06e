package main

import (
	"image"
	"image/color"
	"math"
	"strings"
	"testing"
)

var (
	white = color.RGBA{255, 255, 255, 255}
	gray  = color.RGBA{110, 112, 121, 255} // ECharts axis line
	grid  = color.RGBA{224, 230, 241, 255} // ECharts split line
	text  = color.RGBA{70, 70, 70, 255}
	blue  = color.RGBA{84, 112, 198, 255} // ECharts palette
	green = color.RGBA{145, 204, 117, 255}
	red   = color.RGBA{200, 0, 0, 255}
)

func canvas(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	fill(img, 0, 0, w, h, white)
	return img
}

func fill(img *image.RGBA, x0, y0, x1, y1 int, c color.RGBA) {
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			img.SetRGBA(x, y, c)
		}
	}
}

// glyphs draws text-like marks: small blocks separated by gaps.
func glyphs(img *image.RGBA, x0, y0, n int, c color.RGBA) {
	for i := 0; i < n; i++ {
		x := x0 + i*9
		fill(img, x, y0, x+6, y0+12, c)
	}
}

// chart draws a line chart: axes, grid lines, labels and curves.
func chart(series ...color.RGBA) *image.RGBA {
	img := canvas(1000, 700)
	for y := 100; y < 600; y += 100 {
		fill(img, 90, y, 940, y+1, grid)
	}
	fill(img, 90, 600, 940, 601, gray) // x axis
	fill(img, 90, 90, 91, 601, gray)   // y axis
	glyphs(img, 380, 20, 25, text)
	for k, c := range series {
		for x := 90; x < 940; x++ {
			y := 100 + int(480*math.Exp(-float64(x-90)/(150+80*float64(k))))
			fill(img, x, 700-y-2, x+1, 700-y+1, c)
		}
	}
	return img
}

func TestThresholds(t *testing.T) {
	textPage := canvas(1000, 700)
	for row := 0; row < 30; row++ {
		glyphs(textPage, 20, 20+row*20, 100, text)
	}
	redError := canvas(1000, 700)
	for row := 0; row < 6; row++ {
		glyphs(redError, 20, 40+row*24, 80, red)
	}
	for _, tc := range []struct {
		name string
		img  image.Image
		want string // "" means a chart
	}{
		{"three series", chart(blue, green, red), ""},
		{"one series", chart(blue), ""},
		{"blank", canvas(1000, 700), "ink"},
		{"axes only", chart(), "saturated"},
		{"gray text", textPage, "saturated"},
		{"red text", redError, "longest line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := Analyze(tc.img)
			problems := DefaultThresholds.Check(st)
			got := strings.Join(problems, "; ")
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("%s: problems %q, want %q", st, got, tc.want)
			}
		})
	}
}

func TestAnalyze(t *testing.T) {
	st := Analyze(chart(blue, green))
	if st.Background != white {
		t.Errorf("background %v, want white", st.Background)
	}
	if st.Hues != 2 {
		t.Errorf("%d hues, want 2 (blue, green)", st.Hues)
	}
	if st.Line < 0.84 || st.Line > 0.86 {
		t.Errorf("longest line %.3f, want the x axis, 850/1000", st.Line)
	}
	// A dark page: the background is the most frequent color, whatever it is.
	dark := image.NewRGBA(image.Rect(0, 0, 200, 100))
	fill(dark, 0, 0, 200, 100, color.RGBA{16, 16, 16, 255})
	fill(dark, 10, 50, 190, 52, blue)
	st = Analyze(dark)
	if st.Background != (color.RGBA{16, 16, 16, 255}) || st.Ink != 360 || st.Chromatic != 360 || st.Line != 0.9 {
		t.Errorf("dark page: %s", st)
	}
}

func TestHue(t *testing.T) {
	for _, tc := range []struct {
		c    color.RGBA
		want float64
	}{
		{color.RGBA{255, 0, 0, 255}, 0},
		{color.RGBA{0, 255, 0, 255}, 120},
		{color.RGBA{0, 0, 255, 255}, 240},
		{color.RGBA{255, 0, 255, 255}, 300},
		{color.RGBA{128, 128, 128, 255}, 0},
	} {
		if got := hue(tc.c); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("hue(%v) = %v, want %v", tc.c, got, tc.want)
		}
	}
}
