package viz

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWritePNG(t *testing.T) {
	for _, c := range allFigures(t) {
		t.Run(c.name, func(t *testing.T) {
			for _, size := range [][2]int{{640, 400}, {333, 211}} {
				var buf bytes.Buffer
				if err := c.fig.WritePNG(&buf, size[0], size[1]); err != nil {
					t.Fatal(err)
				}
				img, err := png.Decode(&buf)
				if err != nil {
					t.Fatal(err)
				}
				b := img.Bounds()
				if b.Dx() != size[0] || b.Dy() != size[1] {
					t.Fatalf("size %dx%d, want %dx%d", b.Dx(), b.Dy(), size[0], size[1])
				}
				colors := map[[4]uint32]bool{}
				ink := 0
				for y := b.Min.Y; y < b.Max.Y; y++ {
					for x := b.Min.X; x < b.Max.X; x++ {
						r, g, bl, a := img.At(x, y).RGBA()
						colors[[4]uint32{r, g, bl, a}] = true
						if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
							ink++
						}
					}
				}
				if len(colors) < 8 {
					t.Errorf("%v: only %d distinct colors", size, len(colors))
				}
				if frac := float64(ink) / float64(b.Dx()*b.Dy()); frac < 0.005 {
					t.Errorf("%v: only %.4f of the pixels are not white", size, frac)
				}
			}
		})
	}
}

// TestWritePNGColors checks that the data, not only the axes, is drawn: the
// series color and the translucent band appear in the image.
func TestWritePNGColors(t *testing.T) {
	f := &Figure{Series: []Series{{Name: "s", X: []float64{0, 1, 2}, Y: []float64{1, 2, 3},
		Lo: []float64{0, 1, 2}, Hi: []float64{2, 3, 4}, Color: "#ff0000"}}}
	var buf bytes.Buffer
	if err := f.WritePNG(&buf, 300, 200); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	red, pink := 0, 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			switch {
			case r > 0xf000 && g < 0x1000 && bl < 0x1000:
				red++
			case r > 0xf000 && g > 0xb000 && g < 0xd000 && bl > 0xb000 && bl < 0xd000:
				pink++ // 25% red over white
			}
		}
	}
	if red < 50 || pink < 1000 {
		t.Errorf("red pixels %d, band pixels %d", red, pink)
	}
}

func TestWriteSVG(t *testing.T) {
	for _, c := range allFigures(t) {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := c.fig.WriteSVG(&buf, 640, 400); err != nil {
				t.Fatal(err)
			}
			dec := xml.NewDecoder(&buf)
			root, elems := "", 0
			for {
				tok, err := dec.Token()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("SVG does not parse: %v", err)
				}
				if se, ok := tok.(xml.StartElement); ok {
					if root == "" {
						root = se.Name.Local
					}
					elems++
				}
			}
			if root != "svg" || elems < 5 {
				t.Errorf("root element %q with %d elements", root, elems)
			}
		})
	}
}

func TestWritePDF(t *testing.T) {
	for _, c := range allFigures(t)[:3] {
		var buf bytes.Buffer
		if err := c.fig.WritePDF(&buf, 640, 400); err != nil {
			t.Fatal(c.name, err)
		}
		if !bytes.HasPrefix(buf.Bytes(), []byte("%PDF-")) {
			t.Errorf("%s: not a PDF", c.name)
		}
	}
}

func TestSave(t *testing.T) {
	dir := t.TempDir()
	f := GapCurves(solverRuns(t), Passes)
	magic := map[string]string{".png": "\x89PNG", ".svg": "<?xml", ".pdf": "%PDF-", ".html": "<!DOCTYPE html>", ".PNG": "\x89PNG"}
	for ext, want := range magic {
		p := filepath.Join(dir, "gap"+ext)
		if err := f.Save(p, 400, 300); err != nil {
			t.Fatalf("%s: %v", ext, err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte(want)) {
			t.Errorf("%s: starts with %q", ext, b[:min(len(b), 16)])
		}
	}
	for _, c := range []struct {
		name string
		path string
		w, h int
		fig  *Figure
	}{
		{"extension", filepath.Join(dir, "gap.gif"), 400, 300, f},
		{"no extension", filepath.Join(dir, "gap"), 400, 300, f},
		{"size", filepath.Join(dir, "bad.png"), 0, 300, f},
		{"invalid figure", filepath.Join(dir, "bad.svg"), 400, 300, &Figure{}},
		{"folder", filepath.Join(dir, "missing", "gap.png"), 400, 300, f},
	} {
		if err := c.fig.Save(c.path, c.w, c.h); err == nil {
			t.Errorf("%s: no error", c.name)
		}
		if _, err := os.Stat(c.path); err == nil {
			t.Errorf("%s: %s was created by an invalid call", c.name, c.path)
		}
	}
}

func TestStaticSizeErrors(t *testing.T) {
	f := GapCurves(solverRuns(t), Passes)
	for _, size := range [][2]int{{0, 100}, {100, 0}, {-1, -1}, {MaxPixels + 1, 100}} {
		for name, write := range map[string]func(io.Writer, int, int) error{
			"png": f.WritePNG, "svg": f.WriteSVG, "pdf": f.WritePDF,
		} {
			if err := write(io.Discard, size[0], size[1]); err == nil || !strings.Contains(err.Error(), "size") {
				t.Errorf("%s %v: error %v", name, size, err)
			}
		}
	}
}

func TestRenderInvalid(t *testing.T) {
	bad := &Figure{Series: []Series{{X: []float64{1, 2}, Y: []float64{1}}}}
	var nilFig *Figure
	for _, f := range []*Figure{bad, nilFig, {}} {
		if err := f.WritePNG(io.Discard, 100, 100); err == nil {
			t.Error("PNG: no error")
		}
		if err := f.WriteSVG(io.Discard, 100, 100); err == nil {
			t.Error("SVG: no error")
		}
		if err := f.WriteHTML(io.Discard); err == nil {
			t.Error("HTML: no error")
		}
		if _, err := f.IFrame(400); err == nil {
			t.Error("IFrame: no error")
		}
		if _, err := f.EChartsOption(); err == nil {
			t.Error("EChartsOption: no error")
		}
	}
}

// TestRenderDoesNotModify checks that rendering leaves the figure as it was
// (sanitization works on copies).
func TestRenderDoesNotModify(t *testing.T) {
	f := GapCurves([]Run{nastyRun()}, Passes)
	before := f.Series[0].Y[2]
	n := len(f.Series[0].Y)
	if err := f.WritePNG(io.Discard, 200, 100); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteHTML(io.Discard); err != nil {
		t.Fatal(err)
	}
	if len(f.Series[0].Y) != n || f.Series[0].Y[2] != before {
		t.Error("the figure was modified")
	}
}
