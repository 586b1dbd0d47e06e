package viz

import (
	"bytes"
	"html"
	"image/png"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestDrawn(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name string
		fig  *Figure
		want int
	}{
		{"two curves", &Figure{Series: []Series{{X: []float64{1, 2}, Y: []float64{1, 2}}, {X: []float64{1}, Y: []float64{3}}}}, 2},
		{"a curve without a point left on a log axis", &Figure{LogY: true, Series: []Series{{X: []float64{1, 2}, Y: []float64{0, -1}}, {X: []float64{1}, Y: []float64{nan}}}}, 0},
		{"only a band", &Figure{Series: []Series{{X: []float64{1, 2}, Y: []float64{nan, nan}, Lo: []float64{1, 1}, Hi: []float64{2, 2}}}}, 1},
		{"reference lines and marks only", &Figure{HLines: []HLine{{Y: 1}}, Marks: []Mark{{X: 1}}}, 0},
		{"bars, one missing", &Figure{Kind: Bars, Categories: []string{"a", "b"}, Series: []Series{{Y: []float64{3, nan}}}}, 1},
		{"no bar", &Figure{Kind: Bars, Categories: []string{"a", "b"}, Series: []Series{{Y: []float64{nan, math.Inf(1)}}}}, 0},
		{"heat map", &Figure{Kind: HeatMap, Rows: []string{"a"}, Cols: []string{"b", "c"}, Cells: [][]float64{{1, nan}}}, 1},
		{"invalid", &Figure{Series: []Series{{X: []float64{1}}}}, 0},
	} {
		if got := c.fig.Drawn(); got != c.want {
			t.Errorf("%s: Drawn() = %d, want %d", c.name, got, c.want)
		}
	}
}

// TestDrawnInOutputs: PNG images carry Drawn() in a tEXt chunk (and stay
// valid PNG), HTML pages on every chart element.
func TestDrawnInOutputs(t *testing.T) {
	isolate(t)
	for _, c := range allFigures(t) {
		var buf bytes.Buffer
		if err := c.fig.WritePNG(&buf, 300, 200); err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(bytes.NewReader(buf.Bytes())); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := pngText(buf.Bytes())[PNGDrawnKey]; got != strconv.Itoa(c.fig.Drawn()) {
			t.Errorf("%s: PNG says drawn %q, figure %d", c.name, got, c.fig.Drawn())
		}
		page, err := c.fig.page()
		if err != nil {
			t.Fatal(err)
		}
		if want := DrawnAttr + `="` + strconv.Itoa(c.fig.Drawn()) + `"`; !strings.Contains(page, want) {
			t.Errorf("%s: page without %s", c.name, want)
		}
	}
	if _, err := withPNGText([]byte("not a png"), "k", "v"); err == nil {
		t.Error("withPNGText accepted a non-PNG")
	}
	if len(pngText([]byte("\x89PNG\r\n\x1a\n\x00\x00\xff\xff"))) != 0 {
		t.Error("pngText read a malformed chunk")
	}
}

// TestIFrames: several figures in one iframe share one copy of ECharts,
// each in its own chart element.
func TestIFrames(t *testing.T) {
	isolate(t)
	writeFile(t, packageDir, "assets/echarts.min.js", `var echarts = {lib: "LIBRARY"};`)
	figs := allFigures(t)[:3]
	fr, err := IFrames(300, figs[0].fig, figs[1].fig, figs[2].fig)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(fr, `style="width:100%;height:900px;border:0"></iframe>`) {
		t.Errorf("iframe %q", fr[len(fr)-80:])
	}
	page := html.UnescapeString(strings.TrimPrefix(strings.Split(fr, `" style=`)[0], `<iframe srcdoc="`))
	if n := strings.Count(page, "LIBRARY"); n != 1 {
		t.Errorf("%d copies of the library", n)
	}
	if n := strings.Count(page, InlineMarker); n != 1 {
		t.Errorf("%d inline markers", n)
	}
	divs := regexp.MustCompile(`<div id="fwstruct-chart-(\d)" class="fwstruct-chart" `+DrawnAttr+`="(\d+)">`).FindAllStringSubmatch(page, -1)
	if len(divs) != 3 {
		t.Fatalf("%d chart elements", len(divs))
	}
	for i, d := range divs {
		if d[1] != strconv.Itoa(i) || d[2] != strconv.Itoa(figs[i].fig.Drawn()) {
			t.Errorf("chart %d: %v", i, d)
		}
	}
	for _, bad := range [][]*Figure{nil, {figs[0].fig, {Series: []Series{{X: []float64{1}}}}}} {
		if _, err := IFrames(300, bad...); err == nil {
			t.Errorf("IFrames(%d figures) accepted", len(bad))
		}
	}
	if _, err := IFrames(0, figs[0].fig); err == nil {
		t.Error("height 0 accepted")
	}
}
