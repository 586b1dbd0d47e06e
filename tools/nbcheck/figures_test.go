package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/viz"
)

// The constants of the check are those of the figures.
func TestConstantsMatchViz(t *testing.T) {
	if pngDrawnKey != viz.PNGDrawnKey || drawnAttr != viz.DrawnAttr || !strings.HasPrefix(viz.InlineMarker, inlineMarker) {
		t.Fatal("nbcheck and viz disagree on the markers of figures")
	}
}

// figureCell is a `// figure` cell displaying the given outputs.
func figureCell(t *testing.T, outputs ...map[string]string) string {
	t.Helper()
	var outs []map[string]any
	for _, data := range outputs {
		outs = append(outs, map[string]any{"output_type": "display_data", "data": data, "metadata": map[string]any{}})
	}
	b, err := json.Marshal(map[string]any{"cell_type": "code", "execution_count": 9, "source": "// figure\n%%\nshow()", "outputs": outs})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func pngOf(t *testing.T, f *viz.Figure) string {
	t.Helper()
	var buf bytes.Buffer
	if err := f.WritePNG(&buf, 200, 150); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

func iframeOf(t *testing.T, figs ...*viz.Figure) string {
	t.Helper()
	fr, err := viz.IFrames(300, figs...)
	if err != nil {
		t.Fatal(err)
	}
	return fr
}

// TestFigureRules renders real figures and checks what the rules make of
// them: figures with data pass; a figure without data, a blank image, a
// chart without an inlined ECharts, a cell with only a note of a figure
// not drawn fail.
func TestFigureRules(t *testing.T) {
	lib := filepath.Join(t.TempDir(), "echarts.min.js")
	if err := os.WriteFile(lib, []byte("var echarts = {};"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(viz.EChartsEnv, lib)
	data := &viz.Figure{Title: "gap", Series: []viz.Series{{Name: "bcfw", X: []float64{0, 1}, Y: []float64{1, 0.5}}}}
	empty := &viz.Figure{Title: "gap", LogY: true, Series: []viz.Series{{Name: "ssg", X: []float64{0, 1}, Y: []float64{math.NaN(), 0}}}}
	var blankPNG bytes.Buffer
	png.Encode(&blankPNG, image.NewGray(image.Rect(0, 0, 4, 4)))
	blank := base64.StdEncoding.EncodeToString(blankPNG.Bytes())
	inline := iframeOf(t, data)
	t.Setenv(viz.EChartsEnv, "cdn")
	cdn := iframeOf(t, data)
	t.Setenv(viz.EChartsEnv, lib)
	note := `<div class="fwstruct-omitted" style="x">Figure &#34;passes&#34; not drawn: no value of lambda reached gap 0.1.</div>`

	for _, c := range []struct {
		name    string
		cell    string
		rules   Rules
		wantErr string
	}{
		{"PNG figure with data", figureCell(t, map[string]string{"image/png": pngOf(t, data)}), defaultRules, ""},
		{"PNG figure without data", figureCell(t, map[string]string{"image/png": pngOf(t, empty)}), defaultRules, "PNG figure: the figure draws no data (fwstruct:drawn=0)"},
		{"blank image", figureCell(t, map[string]string{"image/png": blank}), defaultRules, "blank image"},
		{"blank image in HTML", figureCell(t, map[string]string{"text/html": `<img src="data:image/png;base64,` + blank + `">`}), defaultRules, "image in HTML: blank image"},
		{"interactive chart, ECharts inlined", figureCell(t, map[string]string{"text/html": inline}), defaultRules, ""},
		{"interactive charts, one without data", figureCell(t, map[string]string{"text/html": iframeOf(t, data, empty)}), defaultRules, "interactive chart 2 of its page draws no data"},
		{"interactive chart from the CDN", figureCell(t, map[string]string{"text/html": cdn}), defaultRules, "without an inlined ECharts"},
		{"interactive chart from the CDN, allowed", figureCell(t, map[string]string{"text/html": cdn}), Rules{Kernel: "gonb", FigureMIME: defaultRules.FigureMIME, AllowCDN: true}, ""},
		{"only a note of a figure not drawn", figureCell(t, map[string]string{"text/html": note}), defaultRules, `only notes of figures not drawn: Figure "passes" not drawn: no value of lambda reached gap 0.1.`},
		{"a note and a figure", figureCell(t, map[string]string{"text/html": note}, map[string]string{"image/png": pngOf(t, data)}), defaultRules, ""},
		{"an HTML table", figureCell(t, map[string]string{"text/html": "<table><tr><td>1</td></tr></table>"}), defaultRules, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := CheckNotebook(nb(c.cell), c.rules)
			if c.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("error = %v, want one containing %q", err, c.wantErr)
			}
		})
	}
}

// TestFiguresOutsideFigureCells: the figures of other cells (the final
// chart of a training cell) are checked too.
func TestFiguresOutsideFigureCells(t *testing.T) {
	empty := &viz.Figure{Title: "gap", Series: []viz.Series{{Name: "x", X: []float64{1}, Y: []float64{math.NaN()}}}}
	cell := strings.Replace(figureCell(t, map[string]string{"image/png": pngOf(t, empty)}), `// figure\n`, "", 1)
	_, err := CheckNotebook(nb(htmlFigure, cell), defaultRules)
	if err == nil || !strings.Contains(err.Error(), "draws no data") {
		t.Fatalf("error = %v", err)
	}
}
