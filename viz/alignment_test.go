package viz

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"
)

func exampleGrid() AlignmentGrid {
	return AlignmentGrid{
		Title:     "the house is not red",
		English:   []string{"the", "house", "is", "not", "red", "."},
		French:    []string{"la", "maison", "ne", "est", "pas", "rouge", "."},
		Sure:      [][2]int32{{0, 0}, {1, 1}, {2, 3}, {3, 2}, {3, 4}, {5, 6}},
		Possible:  [][2]int32{{4, 5}, {2, 2}},
		Predicted: [][2]int32{{0, 0}, {1, 1}, {2, 3}, {3, 4}, {4, 5}, {5, 0}},
	}
}

// near reports whether two colours differ by at most tol in every channel.
func near(a, b color.Color, tol int) bool {
	r1, g1, b1, _ := a.RGBA()
	r2, g2, b2, _ := b.RGBA()
	d := func(x, y uint32) bool { return int(x>>8)-int(y>>8) <= tol && int(y>>8)-int(x>>8) <= tol }
	return d(r1, r2) && d(g1, g2) && d(b1, b2)
}

func TestAlignmentGridPixels(t *testing.T) {
	g := exampleGrid()
	var buf bytes.Buffer
	if err := g.WritePNG(&buf); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	w, h := g.Size()
	if img.Bounds() != image.Rect(0, 0, w, h) {
		t.Fatalf("image bounds %v, Size %dx%d", img.Bounds(), w, h)
	}
	x0, y0 := g.origin()
	center := func(j, k int) (int, int) {
		return int(x0 + (float64(k)+0.5)*gridCell), int(y0 + (float64(j)+0.5)*gridCell)
	}
	for _, tc := range []struct {
		name string
		j, k int
		want color.Color
	}{
		{"sure, missed", 3, 2, SureCell},
		{"sure, predicted", 0, 0, SureCell}, // the ring leaves the centre dark
		{"possible, missed", 2, 2, PossibleCell},
		{"possible, predicted", 4, 5, PossibleCell},
		{"empty", 0, 6, color.White},
		{"predicted, wrong", 5, 0, color.White},
	} {
		x, y := center(tc.j, tc.k)
		if c := img.At(x, y); !near(c, tc.want, 8) {
			t.Errorf("%s cell (%d, %d): centre colour %v, want %v", tc.name, tc.j, tc.k, c, tc.want)
		}
	}
	// A ring crosses the right half of the cells of the predicted links,
	// 0.34 cell from the centre, and no other cell.
	ringAt := func(j, k int) bool {
		x, y := center(j, k)
		r := gridCell * 34 / 100
		for dx := r - 2; dx <= r+2; dx++ {
			if near(img.At(x+dx, y), PredictedMark, 40) {
				return true
			}
		}
		return false
	}
	for _, l := range g.Predicted {
		if !ringAt(int(l[0]), int(l[1])) {
			t.Errorf("no ring in the cell of the predicted link %v", l)
		}
	}
	for _, jk := range [][2]int{{3, 2}, {2, 2}, {0, 6}} {
		if ringAt(jk[0], jk[1]) {
			t.Errorf("a ring in the cell %v of no predicted link", jk)
		}
	}
}

func TestAlignmentGridSVGAndErrors(t *testing.T) {
	g := exampleGrid()
	var buf bytes.Buffer
	if err := g.WriteSVG(&buf); err != nil || !strings.Contains(buf.String(), "<svg") {
		t.Fatalf("SVG: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(*AlignmentGrid)
		want string
	}{
		{"no words", func(g *AlignmentGrid) { g.French = nil }, "viz: alignment grid of 6 English and 0 French words"},
		{"outside", func(g *AlignmentGrid) { g.Predicted = append(g.Predicted, [2]int32{6, 0}) }, "viz: predicted link (6, 0) outside the 6 x 7 grid"},
		{"negative", func(g *AlignmentGrid) { g.Sure = [][2]int32{{0, -1}} }, "viz: sure link (0, -1) outside the 6 x 7 grid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := exampleGrid()
			tc.edit(&g)
			for _, write := range []func() error{func() error { return g.WritePNG(&buf) }, func() error { return g.WriteSVG(&buf) }} {
				if err := write(); err == nil || err.Error() != tc.want {
					t.Fatalf("error %v, want %q", err, tc.want)
				}
			}
		})
	}
}
