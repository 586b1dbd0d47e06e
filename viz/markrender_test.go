package viz

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// markCase is one layout of mark labels in a chart: the marks' data x and
// label widths (pixels), the x axis' data range and the grid's pixel box.
type markCase struct {
	X, W        []float64
	X0, X1      float64 // the data range of the x axis
	Left, Width float64 // the grid's pixel left and width
	Top, Height float64
}

// randomMarkCases returns marks at random, some close together, some at
// the edges or outside the visible range.
func randomMarkCases(trials int) []markCase {
	rng := rand.New(rand.NewSource(3))
	var cases []markCase
	for trial := 0; trial < trials; trial++ {
		n := 1 + rng.Intn(8)
		c := markCase{X0: 0, X1: 10 + rng.Float64()*90, Left: 40 + rng.Float64()*20, Width: 200 + rng.Float64()*600, Top: 60, Height: 300}
		for i := 0; i < n; i++ {
			x := rng.Float64() * c.X1 * 1.1
			if rng.Intn(3) == 0 && i > 0 {
				x = c.X[i-1] + rng.Float64()*c.X1/50
			}
			c.X = append(c.X, x)
			c.W = append(c.W, 20+rng.Float64()*200)
		}
		cases = append(cases, c)
	}
	return cases
}

// nodeRun runs a Node.js script with input on its standard input and
// returns its output; it skips the test without node.
func nodeRun(t *testing.T, script string, input []byte) []byte {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "-e", script)
	cmd.Stdin = strings.NewReader(string(input))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	return out
}

// TestMarkRenderItem runs jsMark, the renderItem of the mark series, in
// Node.js against a mock of the ECharts API (a linear x axis over the
// grid), once per mark of random layouts, and checks that every mark's
// label is where layoutLabels puts it among the marks in view: the same
// left edge, on the same row, its line stopping under its row.
func TestMarkRenderItem(t *testing.T) {
	cases := randomMarkCases(300)
	in, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	script := `
const fs = require('fs');
const renderItem = eval('(' + ` + "`" + `JSMARK` + "`" + ` + ')');
const cases = JSON.parse(fs.readFileSync(0, 'utf8'));
const out = cases.map(c => c.X.map((_, own) => {
  const data = c.X.map((x, i) => [x, c.W[i], own]);
  const params = {dataIndexInside: 0, dataInsideLength: data.length, seriesName: 'm' + own,
    coordSys: {x: c.Left, y: c.Top, width: c.Width, height: c.Height}};
  const api = {value: (dim, i) => data[i][dim], coord: (p) => [c.Left + (p[0] - c.X0) / (c.X1 - c.X0) * c.Width, 0]};
  const g = renderItem(params, api);
  if (g === null) { return null; }
  const text = g.children.find(ch => ch.type === 'text');
  const line = g.children.find(ch => ch.type === 'line');
  return {left: text.x, y: text.y, lineTop: line ? line.shape.y2 : null, name: text.style.text};
}));
console.log(JSON.stringify(out));
`
	script = strings.Replace(script, "JSMARK", jsMark, 1)
	var got [][]*struct {
		Left, Y float64
		LineTop *float64
		Name    string
	}
	if err := json.Unmarshal(nodeRun(t, script, in), &got); err != nil {
		t.Fatal(err)
	}
	const rowH = markFontPixels * 1.3
	for k, c := range cases {
		lo, hi := c.Left, c.Left+c.Width
		var xs, ws []float64
		var index []int // mark -> its index among the marks in view, -1: out of view
		for i, x := range c.X {
			px := c.Left + (x-c.X0)/(c.X1-c.X0)*c.Width
			index = append(index, -1)
			if px < lo-0.5 || px > hi+0.5 {
				continue
			}
			index[i] = len(xs)
			xs, ws = append(xs, px), append(ws, c.W[i])
		}
		slots := layoutLabels(xs, ws, lo, hi, markPad, markGap)
		for i := range c.X {
			g := got[k][i]
			if index[i] < 0 {
				if g != nil {
					t.Fatalf("case %d: mark %d out of view is drawn: %+v", k, i, g)
				}
				continue
			}
			s := slots[index[i]]
			if g == nil {
				t.Fatalf("case %d: mark %d in view is not drawn", k, i)
			}
			top := c.Top + float64(s.row)*rowH
			if g.Left != s.left || math.Abs(g.Y-(top+1)) > 1e-9 || g.Name != fmt.Sprintf("m%d", i) {
				t.Fatalf("case %d: mark %d label at (%v, %v), layoutLabels says left %v row %d (y %v)\n%+v", k, i, g.Left, g.Y, s.left, s.row, top+1, c)
			}
			if bottom := c.Top + c.Height; (top+rowH < bottom) != (g.LineTop != nil) || g.LineTop != nil && math.Abs(*g.LineTop-(top+rowH)) > 1e-9 {
				t.Fatalf("case %d: mark %d line ends at %v, want under row %d", k, i, g.LineTop, s.row)
			}
		}
	}
}
