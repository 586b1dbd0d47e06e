package viz

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// isolate makes the ECharts lookup deterministic: no environment variable,
// a working directory outside any module, and an empty package folder.
func isolate(t *testing.T) {
	t.Helper()
	t.Setenv(EChartsEnv, "")
	t.Chdir(t.TempDir())
	old := packageDir
	packageDir = t.TempDir()
	t.Cleanup(func() { packageDir = old })
}

// writeFile writes content to dir/rel, creating folders.
func writeFile(t *testing.T, dir, rel, content string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// parseOption turns an ECharts option of this package into plain JSON by
// replacing its JavaScript functions with null, and decodes it.
func parseOption(t *testing.T, opt []byte) map[string]interface{} {
	t.Helper()
	s := strings.ReplaceAll(string(opt), jsBand, "null")
	s = strings.ReplaceAll(s, jsValue, "null")
	s = strings.ReplaceAll(s, jsMark, "null")
	var obj map[string]interface{}
	if err := json.Unmarshal([]byte(s), &obj); err != nil {
		t.Fatalf("option is not JSON once its functions are removed: %v\n%.500s", err, s)
	}
	return obj
}

func axis(t *testing.T, obj map[string]interface{}, key string) map[string]interface{} {
	t.Helper()
	l, ok := obj[key].([]interface{})
	if !ok || len(l) != 1 {
		t.Fatalf("%s = %v", key, obj[key])
	}
	return l[0].(map[string]interface{})
}

func TestEChartsOption(t *testing.T) {
	for _, c := range allFigures(t) {
		t.Run(c.name, func(t *testing.T) {
			opt, err := c.fig.EChartsOption()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(opt, []byte(`"animation":false`)) {
				t.Error(`no "animation":false`)
			}
			if bytes.Contains(opt, []byte("__f__")) {
				t.Error("function markers left")
			}
			if bytes.Contains(opt, []byte("</")) {
				t.Error("option contains </")
			}
			obj := parseOption(t, opt)
			if obj["animation"] != false {
				t.Errorf("animation = %v", obj["animation"])
			}
			series, _ := obj["series"].([]interface{})
			x, y := axis(t, obj, "xAxis"), axis(t, obj, "yAxis")
			switch c.fig.Kind {
			case Lines:
				want := map[bool]string{false: "value", true: "log"}
				if x["type"] != want[c.fig.LogX] || y["type"] != want[c.fig.LogY] {
					t.Errorf("axis types %v, %v for LogX %v, LogY %v", x["type"], y["type"], c.fig.LogX, c.fig.LogY)
				}
				if x["name"] != nonEmpty(c.fig.XLabel) || y["name"] != nonEmpty(c.fig.YLabel) {
					t.Errorf("axis names %v, %v", x["name"], y["name"])
				}
				if dz, _ := obj["dataZoom"].([]interface{}); len(dz) != 2 {
					t.Errorf("dataZoom = %v", obj["dataZoom"])
				}
				if tt := obj["tooltip"].(map[string]interface{}); tt["trigger"] != "axis" {
					t.Errorf("tooltip = %v", tt)
				}
				ls, _ := c.fig.lines()
				bands := 0
				for _, l := range ls {
					if len(l.bx) >= 2 {
						bands++
					}
				}
				marks := 0
				if len(c.fig.marks(ls)) > 0 {
					marks = 1 // one series carries the mark lines, last
				}
				if len(series) != len(ls)+bands+marks {
					t.Fatalf("%d series, want %d lines, %d bands and %d for marks", len(series), len(ls), bands, marks)
				}
				series = series[:len(series)-marks]
				for i, s := range series {
					s := s.(map[string]interface{})
					if i < bands {
						tt, _ := s["tooltip"].(map[string]interface{})
						if s["type"] != "custom" || tt["show"] != false || s["renderItem"] != nil {
							t.Errorf("band series %d: %v", i, s)
						}
						continue
					}
					l := ls[i-bands]
					if s["type"] != "line" || s["name"] != nonEmpty(l.name) || s["color"] != l.color {
						t.Errorf("series %d: type %v, name %v, color %v; want line %q %s", i, s["type"], s["name"], s["color"], l.name, l.color)
					}
					data, _ := s["data"].([]interface{})
					if len(data) != len(l.x) {
						t.Errorf("series %d: %d points, want %d", i, len(data), len(l.x))
					}
					for _, d := range data {
						v := d.(map[string]interface{})["value"].([]interface{})
						if c.fig.LogY && !(v[1].(float64) > 0) || c.fig.LogX && !(v[0].(float64) > 0) {
							t.Errorf("series %d: point %v on a log axis", i, v)
						}
					}
				}
			case Bars:
				if x["type"] != "category" || len(series) != len(c.fig.Series) {
					t.Errorf("bars: x %v, %d series", x, len(series))
				}
			case HeatMap:
				vm, _ := obj["visualMap"].([]interface{})
				blank := 0
				if c.fig.blankCells() != nil {
					blank = 1 // the labels of blank cells
				}
				if len(vm) != 1 || len(series) != 1+blank {
					t.Fatalf("heat map: visualMap %v, %d series", obj["visualMap"], len(series))
				}
				m := vm[0].(map[string]interface{})
				lo, hi := c.fig.cellRange()
				if m["min"] != lo || m["max"] != hi {
					t.Errorf("visualMap range [%v, %v], want [%v, %v]", m["min"], m["max"], lo, hi)
				}
			}
		})
	}
}

func nonEmpty(s string) interface{} {
	if s == "" {
		return nil // omitted
	}
	return s
}

func TestWriteHTML(t *testing.T) {
	isolate(t)
	fake := writeFile(t, t.TempDir(), "echarts.min.js", "/* fake echarts */ var echarts = {s: '</script>', S: '</SCRIPT>'};")
	for _, inline := range []bool{false, true} {
		if inline {
			t.Setenv(EChartsEnv, fake)
		}
		for _, c := range allFigures(t) {
			var buf bytes.Buffer
			if err := c.fig.WriteHTML(&buf); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			page := buf.String()
			opt, _ := c.fig.EChartsOption()
			for _, want := range []string{"<!DOCTYPE html>", `<div id="fwstruct-chart-0" class="fwstruct-chart" data-fwstruct-drawn=`, `"animation":false`,
				"echarts.init(", "chart.setOption(option)", string(opt)} {
				if !strings.Contains(page, want) {
					t.Errorf("%s (inline %v): no %.80q", c.name, inline, want)
				}
			}
			if c.fig.Title != "" && !strings.Contains(page, "<title>"+html.EscapeString(c.fig.Title)+"</title>") {
				t.Errorf("%s: title missing or unescaped", c.name)
			}
			if c.fig.LogY && !strings.Contains(page, `"type":"log"`) {
				t.Errorf("%s: no log axis", c.name)
			}
			cdn := strings.Contains(page, `<script src="`+EChartsCDN+`"></script>`)
			fakeIn := strings.Contains(page, "/* fake echarts */")
			if cdn == inline || fakeIn != inline {
				t.Errorf("%s (inline %v): CDN tag %v, inlined source %v", c.name, inline, cdn, fakeIn)
			}
			if n := strings.Count(strings.ToLower(page), "</script>"); n != 2 {
				t.Errorf("%s (inline %v): %d script end tags, want 2", c.name, inline, n)
			}
		}
	}
}

func TestEChartsSource(t *testing.T) {
	const fwMod = "// the project\nmodule github.com/fwstruct/fwstruct\n\ngo 1.24\n"
	cases := []struct {
		name string
		// setup builds files under root and returns the working directory,
		// the value of $FWSTRUCT_ECHARTS, the package folder, and the path
		// expected ("" for the CDN).
		setup func(t *testing.T, root string) (wd, env, pkg, want string)
	}{
		{"nothing: CDN", func(t *testing.T, root string) (string, string, string, string) {
			return root, "", filepath.Join(root, "pkg"), ""
		}},
		{"cdn forced", func(t *testing.T, root string) (string, string, string, string) {
			writeFile(t, root, "go.mod", fwMod)
			writeFile(t, root, EChartsAsset, "y")
			pkg := filepath.Join(root, "pkg")
			writeFile(t, pkg, "assets/echarts.min.js", "z")
			return root, "cdn", pkg, ""
		}},
		{"environment first", func(t *testing.T, root string) (string, string, string, string) {
			env := writeFile(t, root, "env/e.js", "x")
			writeFile(t, root, "go.mod", fwMod)
			writeFile(t, root, EChartsAsset, "y")
			return root, env, "", env
		}},
		{"missing environment file is skipped", func(t *testing.T, root string) (string, string, string, string) {
			writeFile(t, root, "go.mod", fwMod)
			asset := writeFile(t, root, EChartsAsset, "y")
			return root, filepath.Join(root, "nope.js"), "", asset
		}},
		{"empty environment file is skipped", func(t *testing.T, root string) (string, string, string, string) {
			env := writeFile(t, root, "env/e.js", "")
			pkg := filepath.Join(root, "pkg")
			asset := writeFile(t, pkg, "assets/echarts.min.js", "z")
			return root, env, pkg, asset
		}},
		{"module root above nested foreign module", func(t *testing.T, root string) (string, string, string, string) {
			writeFile(t, root, "go.mod", fwMod)
			asset := writeFile(t, root, EChartsAsset, "y")
			writeFile(t, root, "notebooks/tmp/go.mod", "module example.com/gonb\n")
			wd := filepath.Join(root, "notebooks", "tmp", "deep")
			os.MkdirAll(wd, 0o755)
			return wd, "", filepath.Join(root, "pkg"), asset
		}},
		{"quoted module line", func(t *testing.T, root string) (string, string, string, string) {
			writeFile(t, root, "go.mod", "module \"github.com/fwstruct/fwstruct\"\n")
			asset := writeFile(t, root, EChartsAsset, "y")
			return root, "", "", asset
		}},
		{"other module only: package folder", func(t *testing.T, root string) (string, string, string, string) {
			writeFile(t, root, "go.mod", "module github.com/fwstruct/fwstructx\n")
			writeFile(t, root, EChartsAsset, "y")
			pkg := filepath.Join(root, "pkg")
			asset := writeFile(t, pkg, "assets/echarts.min.js", "z")
			return root, "", pkg, asset
		}},
		{"asset missing under module root", func(t *testing.T, root string) (string, string, string, string) {
			writeFile(t, root, "go.mod", fwMod)
			return root, "", filepath.Join(root, "pkg"), ""
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			wd, env, pkg, want := c.setup(t, root)
			t.Setenv(EChartsEnv, env)
			t.Chdir(wd)
			old := packageDir
			packageDir = pkg
			defer func() { packageDir = old }()
			inline, where := EChartsSource()
			if want == "" {
				if inline || where != EChartsCDN {
					t.Errorf("got (%v, %q), want the CDN", inline, where)
				}
				if s := loadECharts(); !strings.Contains(s, EChartsCDN) {
					t.Errorf("script tag %q", s)
				}
				return
			}
			if !inline || where != want {
				t.Errorf("got (%v, %q), want (true, %q)", inline, where, want)
			}
			content, _ := os.ReadFile(want)
			if s := loadECharts(); !strings.Contains(s, "\n"+string(content)+"\n</script>") {
				t.Errorf("script tag %q does not inline %s", s, want)
			}
		})
	}
}

func TestIFrame(t *testing.T) {
	isolate(t)
	writeFile(t, packageDir, "assets/echarts.min.js", `var echarts = {q: "a\"b", a: 'x&y', lt: 1 < 2};`)
	for _, c := range allFigures(t)[:4] {
		page, err := c.fig.page()
		if err != nil {
			t.Fatal(err)
		}
		fr, err := c.fig.IFrame(420)
		if err != nil {
			t.Fatal(err)
		}
		const pre, post = `<iframe srcdoc="`, `" style="width:100%;height:420px;border:0"></iframe>`
		if !strings.HasPrefix(fr, pre) || !strings.HasSuffix(fr, post) {
			t.Fatalf("%s: iframe %.100q ... %.100q", c.name, fr, fr[len(fr)-100:])
		}
		attr := strings.TrimSuffix(strings.TrimPrefix(fr, pre), post)
		if strings.ContainsAny(attr, `"<>`) {
			t.Errorf("%s: unescaped characters in srcdoc", c.name)
		}
		if got := html.UnescapeString(attr); got != page {
			t.Errorf("%s: srcdoc does not round-trip", c.name)
		}
	}
	f := allFigures(t)[0].fig
	for _, h := range []int{0, -5, MaxPixels + 1} {
		if _, err := f.IFrame(h); err == nil {
			t.Errorf("height %d: no error", h)
		}
	}
}

func TestJavaScriptSnippetsAreJSONSafe(t *testing.T) {
	for _, js := range []string{jsValue, jsBand, jsMark} {
		b, err := json.Marshal(js)
		if err != nil || string(b) != `"`+js+`"` {
			t.Errorf("snippet changes under JSON encoding: %s", b)
		}
	}
	// Names that look like go-echarts' function markers stay strings.
	f := &Figure{Title: `__f__"t"__f__`, Series: []Series{{Name: `a__f__`, X: []float64{1, 2}, Y: []float64{1, 2}, Lo: []float64{0, 1}, Hi: []float64{2, 3}}}}
	opt, err := f.EChartsOption()
	if err != nil {
		t.Fatal(err)
	}
	obj := parseOption(t, opt)
	if s := obj["series"].([]interface{})[1].(map[string]interface{}); s["name"] != `a__f__` {
		t.Errorf("series name %v", s["name"])
	}
	if ti := obj["title"].(map[string]interface{}); ti["text"] != `__f__"t"__f__` {
		t.Errorf("title %v", ti["text"])
	}
}

// TestEChartsRender renders the options of every figure with the real
// ECharts library in Node.js (server-side SVG rendering): ECharts must
// accept them, draw every series, and the bands as polygons. It needs node
// and a local echarts.min.js (make echarts), and skips otherwise.
func TestEChartsRender(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found")
	}
	inline, lib := EChartsSource()
	if !inline {
		t.Skip("no local echarts.min.js (run the Makefile target that fetches it)")
	}
	dir := t.TempDir()
	figs := allFigures(t)
	var files []string
	for i, c := range figs {
		opt, err := c.fig.EChartsOption()
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("%02d.js", i))
		os.WriteFile(p, opt, 0o644)
		files = append(files, p)
	}
	script := writeFile(t, dir, "render.js", `
const echarts = require(process.argv[2]);
const fs = require('fs');
for (const file of process.argv.slice(3)) {
  const option = eval('(' + fs.readFileSync(file, 'utf8') + ')');
  const chart = echarts.init(null, null, {renderer: 'svg', ssr: true, width: 800, height: 500});
  chart.setOption(option);
  const svg = chart.renderToSVGString();
  chart.dispose();
  const stroked = new Set((svg.match(/stroke="#[0-9a-f]{6}"/g) || []).map(s => s.slice(8, 15)));
  const polygons = (svg.match(/<polygon /g) || []).length;
  console.log(JSON.stringify({colors: [...stroked], polygons: polygons, texts: (svg.match(/<text/g) || []).length}));
}
`)
	cmd := exec.Command(node, append([]string{script, lib}, files...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	done := make(chan struct{})
	var out []byte
	go func() { out, err = cmd.Output(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("node timed out")
	}
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(figs) {
		t.Fatalf("%d results for %d figures:\n%s", len(lines), len(figs), out)
	}
	for i, c := range figs {
		var r struct {
			Colors   []string
			Polygons int
			Texts    int
		}
		if err := json.Unmarshal([]byte(lines[i]), &r); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if r.Texts < 3 {
			t.Errorf("%s: %d texts in the SVG", c.name, r.Texts)
		}
		if c.fig.Kind != Lines {
			continue
		}
		ls, _ := c.fig.lines()
		bands := 0
		for _, l := range ls {
			if len(l.x) >= 2 && !contains(r.Colors, l.color) {
				t.Errorf("%s: no line of %q in color %s (%v)", c.name, l.name, l.color, r.Colors)
			}
			if len(l.bx) >= 2 {
				bands++
			}
		}
		if r.Polygons < bands {
			t.Errorf("%s: %d polygons for %d bands", c.name, r.Polygons, bands)
		}
	}
}

func contains(l []string, s string) bool {
	for _, v := range l {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}
