package viz

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"math/rand"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// crowdedMarks has events close together, at the left and right edges of
// the data and with long labels.
func crowdedMarks() *Figure {
	return &Figure{Title: "marks", XLabel: "passes", YLabel: "gap", LogY: true,
		Series: []Series{{Name: "a", X: []float64{0, 5, 10, 15, 20}, Y: []float64{1, 0.5, 0.2, 0.1, 0.05}}},
		Marks: []Mark{{X: 0, Label: "start: lambda 0.1 -> 0.01"}, {X: 10, Label: "bcfw, gap sampling: fork: sampling uniform -> gap"},
			{X: 10.2, Label: "bcfw, cache: fork: cache off -> on"}, {X: 10.5, Label: "b: fork: lambda 0.01 -> 0.005"},
			{X: 19.8, Label: "late: fork: step FW -> pairwise"}, {X: 20, Label: "end"}}}
}

type box struct{ x0, x1, y0, y1 float64 }

func (a box) meets(b box) bool { return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1 }

// TestMarkLabelsStatic renders marks at nearby x and at the edges as SVG:
// no two labels overlap, no mark's line runs through a label, and every
// label stays inside the data area (whose right edge is the line of the
// mark at the largest x).
func TestMarkLabelsStatic(t *testing.T) {
	f := crowdedMarks()
	for _, size := range [][2]int{{720, 420}, {400, 300}} {
		var buf bytes.Buffer
		if err := f.WriteSVG(&buf, size[0], size[1]); err != nil {
			t.Fatal(err)
		}
		svg := buf.String()
		sty := markTextStyle()
		asc, desc := float64(sty.FontExtents().Ascent), float64(sty.FontExtents().Descent)
		var labels []box
		for _, m := range regexp.MustCompile(`<text x="([-0-9.]+)" y="([-0-9.]+)" transform="scale\(1, -1\)"\s+style="[^"]*font-size:8px;fill:#555555">([^<]*)</text>`).FindAllStringSubmatch(svg, -1) {
			x, _ := strconv.ParseFloat(m[1], 64)
			y, _ := strconv.ParseFloat(m[2], 64)
			label := unescapeSVG(m[3])
			// y is the negated baseline (the text is drawn flipped).
			labels = append(labels, box{x, x + float64(sty.Width(label)), -y - desc, -y + asc})
		}
		var lines []box
		for _, m := range regexp.MustCompile(`<path d="M([-0-9.]+),([-0-9.]+)L([-0-9.]+),([-0-9.]+)" style="fill:none;stroke:#888888;stroke-dasharray:1,2.5"`).FindAllStringSubmatch(svg, -1) {
			v := make([]float64, 4)
			for k := range v {
				v[k], _ = strconv.ParseFloat(m[k+1], 64)
			}
			lines = append(lines, box{v[0] - 0.5, v[2] + 0.5, min(v[1], v[3]), max(v[1], v[3])})
		}
		if len(labels) != len(f.Marks) || len(lines) != len(f.Marks) {
			t.Fatalf("%v: %d labels and %d lines for %d marks", size, len(labels), len(lines), len(f.Marks))
		}
		left, right := lines[0].x0+0.5, lines[len(lines)-1].x1-0.5
		for i, a := range labels {
			if a.x0 < left-0.01 || a.x1 > right+0.01 {
				t.Errorf("%v: label %d [%.1f, %.1f] outside the data area [%.1f, %.1f]", size, i, a.x0, a.x1, left, right)
			}
			for j, b := range labels[:i] {
				if a.meets(b) {
					t.Errorf("%v: labels %d %+v and %d %+v overlap", size, i, a, j, b)
				}
			}
			for j, l := range lines {
				if a.meets(l) {
					t.Errorf("%v: the line of mark %d %+v runs through label %d %+v", size, j, l, i, a)
				}
			}
		}
	}
}

func unescapeSVG(s string) string {
	return regexp.MustCompile(`&gt;|&lt;|&amp;|&#34;|&#39;`).ReplaceAllStringFunc(s, func(e string) string {
		return map[string]string{"&gt;": ">", "&lt;": "<", "&amp;": "&", "&#34;": `"`, "&#39;": "'"}[e]
	})
}

// TestLayoutLabels: on random marks, labels on one row never overlap,
// stay in the area, and a label is on a row above those of the marks it
// spans (whose lines stop under their labels) unless they span each
// other's, directly or through others.
func TestLayoutLabels(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 500; trial++ {
		n := 1 + rng.Intn(8)
		xs, ws := make([]float64, n), make([]float64, n)
		for i := range xs {
			xs[i] = rng.Float64() * 100
			if rng.Intn(3) == 0 && i > 0 {
				xs[i] = min(100, xs[i-1]+rng.Float64()*2)
			}
			ws[i] = 5 + rng.Float64()*40
		}
		slots := layoutLabels(xs, ws, 0, 102, 1, 2)
		// reach[i][j]: label i spans mark j, directly or through others;
		// labels in a cycle cannot all be above the marks they span.
		reach := make([][]bool, n)
		for i := range reach {
			reach[i] = make([]bool, n)
			for j := range reach[i] {
				reach[i][j] = i != j && slots[i].left <= xs[j] && xs[j] <= slots[i].right
			}
		}
		for k := range reach {
			for i := range reach {
				for j := range reach {
					reach[i][j] = reach[i][j] || reach[i][k] && reach[k][j]
				}
			}
		}
		for i, s := range slots {
			if s.left < 0 || s.right > 102+1e-9 || math.Abs(s.right-s.left-ws[i]) > 1e-9 {
				t.Fatalf("trial %d: slot %d %+v outside [0, 102] or not %g wide", trial, i, s, ws[i])
			}
			for j, o := range slots {
				if j == i {
					continue
				}
				if s.row == o.row && s.left < o.right+2 && o.left < s.right+2 {
					t.Fatalf("trial %d: slots %d %+v and %d %+v overlap", trial, i, s, j, o)
				}
				spans := s.left <= xs[j] && xs[j] <= s.right
				if spans && o.row <= s.row && !reach[j][i] {
					t.Fatalf("trial %d: label %d %+v spans mark %d at %g on row %d\n%v\n%+v", trial, i, s, j, xs[j], o.row, xs, slots)
				}
			}
		}
	}
}

// TestMarkLabelsECharts renders the crowded marks with the real ECharts
// library in Node.js (server-side SVG, 800 x 500 and 420 x 500 pixels):
// the labels jsMark lays out do not overlap and stay inside the grid, and
// in the wider chart no mark's line runs through a label (the narrow one
// is too narrow for these labels: they span each other's marks). It needs node and a
// local echarts.min.js, and skips otherwise.
func TestMarkLabelsECharts(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found")
	}
	inline, lib := EChartsSource()
	if !inline {
		t.Skip("no local echarts.min.js (make viz-assets)")
	}
	f := crowdedMarks()
	f.XRange = [2]float64{0, 20}
	opt, err := f.EChartsOption()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	optFile := writeFile(t, dir, "option.js", string(opt))
	script := writeFile(t, dir, "render.js", `
const echarts = require(process.argv[2]);
const fs = require('fs');
const option = eval('(' + fs.readFileSync(process.argv[3], 'utf8') + ')');
for (const width of [800, 420]) {
  const chart = echarts.init(null, null, {renderer: 'svg', ssr: true, width: width, height: 500});
  chart.setOption(option);
  console.log(JSON.stringify(chart.renderToSVGString()));
  chart.dispose();
}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, script, lib, optFile).Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	widths := map[string]float64{}
	for _, s := range parseOption(t, opt)["series"].([]interface{}) {
		if m := s.(map[string]interface{}); m["type"] == "custom" && m["renderItem"] == nil {
			if d := m["data"].([]interface{}); len(d) > 0 && len(d[0].([]interface{})) == 3 {
				own := int(d[0].([]interface{})[2].(float64))
				widths[m["name"].(string)] = d[own].([]interface{})[1].(float64)
			}
		}
	}
	textRE := regexp.MustCompile(`<text [^>]*transform="translate\(([-0-9.]+) ([-0-9.]+)\)" fill="#555555">([^<]*)</text>`)
	lineRE := regexp.MustCompile(`<path d="M([-0-9.]+) ([-0-9.]+)L([-0-9.]+) ([-0-9.]+)" fill="#000" stroke="#888888"`)
	for k, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var svg string
		if err := json.Unmarshal([]byte(line), &svg); err != nil {
			t.Fatal(err)
		}
		var labels, lines []box
		for _, m := range textRE.FindAllStringSubmatch(svg, -1) {
			x, _ := strconv.ParseFloat(m[1], 64)
			y, _ := strconv.ParseFloat(m[2], 64)
			w, ok := widths[unescapeSVG(m[3])]
			if !ok {
				t.Fatalf("label %q not a mark's", m[3])
			}
			labels = append(labels, box{x, x + w, y, y + markFontPixels})
		}
		for _, m := range lineRE.FindAllStringSubmatch(svg, -1) {
			v := make([]float64, 4)
			for i := range v {
				v[i], _ = strconv.ParseFloat(m[i+1], 64)
			}
			lines = append(lines, box{v[0] - 0.5, v[2] + 0.5, min(v[1], v[3]), max(v[1], v[3])})
		}
		if len(labels) != len(f.Marks) || len(lines) != len(f.Marks) {
			t.Fatalf("chart %d: %d labels and %d lines for %d marks", k, len(labels), len(lines), len(f.Marks))
		}
		left, right := lines[0].x0+0.5, lines[len(lines)-1].x1-0.5
		for i, a := range labels {
			if a.x0 < left-0.01 || a.x1 > right+0.01 {
				t.Errorf("chart %d: label %d [%.1f, %.1f] outside the grid [%.1f, %.1f]", k, i, a.x0, a.x1, left, right)
			}
			for j, b := range labels[:i] {
				if a.meets(b) {
					t.Errorf("chart %d: labels %d %+v and %d %+v overlap", k, i, a, j, b)
				}
			}
			for j, l := range lines {
				if k == 0 && a.meets(l) {
					t.Errorf("chart %d: the line of mark %d %+v runs through label %d %+v", k, j, l, i, a)
				}
			}
		}
	}
}

// TestLegendAvoidsMarkLabels: the legend never goes over mark labels:
// with the curves along the bottom and the labels along the top, every
// corner holds data, and the legend goes outside the axes.
func TestLegendAvoidsMarkLabels(t *testing.T) {
	f := &Figure{Series: []Series{{Name: "along the bottom", X: []float64{0, 2, 4, 6, 8, 10}, Y: []float64{0, 0.01, 0, 0.01, 0, 0.01}},
		{Name: "second", X: []float64{0, 10}, Y: []float64{0.02, 0.02}}},
		YRange: [2]float64{0, 1},
		Marks:  []Mark{{X: 0.2, Label: "a long label at the left: fork: sampling uniform -> gap"}, {X: 9.8, Label: "a long label at the right: lambda 0.1 -> 0.01"}}}
	p, err := f.plot(px(640), px(400))
	if err != nil {
		t.Fatal(err)
	}
	if !p.legendOutside {
		t.Errorf("the legend is inside the axes (top %v, left %v), over the mark labels or the curves", p.Legend.Top, p.Legend.Left)
	}
}

// TestLegendOutsideWhenEveryCornerHoldsData: the legend goes to a free
// corner when there is one, and beside the axes, not over them, when every
// corner holds curve points (issue 34: legends covered curves); the figure
// still renders.
func TestLegendOutsideWhenEveryCornerHoldsData(t *testing.T) {
	x := []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	falling := Series{Name: "falling", X: x, Y: []float64{1, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0}}
	rising := Series{Name: "rising, a long name", X: x, Y: []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}}
	for _, tc := range []struct {
		name    string
		series  []Series
		outside bool
	}{
		{"one diagonal: two corners free", []Series{falling}, false},
		{"two diagonals: every corner holds a curve", []Series{falling, rising}, true},
	} {
		f := &Figure{Kind: Lines, Series: tc.series, YRange: [2]float64{0, 1}, XRange: [2]float64{0, 10}}
		p, err := f.plot(px(640), px(400))
		if err != nil {
			t.Fatal(err)
		}
		if p.legendOutside != tc.outside {
			t.Errorf("%s: legend outside %v, want %v (top %v, left %v)", tc.name, p.legendOutside, tc.outside, p.Legend.Top, p.Legend.Left)
		}
		var buf bytes.Buffer
		if err := f.WritePNG(&buf, 640, 400); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
