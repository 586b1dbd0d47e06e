// Command samplechart writes a standalone, offline HTML page with an ECharts
// line chart: the ECharts library is inlined from a local file (by default
// viz/assets/echarts.min.js, see `make viz-assets`), animation is off, so a
// headless browser draws the final chart at once. `make browser-check HTML=...`
// can screenshot it (its default page is the gap chart that `fwstruct
// report` exports), and `make browser-selftest` uses its negative controls.
//
// Usage:
//
//	samplechart [-echarts viz/assets/echarts.min.js] [-o chart.html] [-control NAME]
//
// With -control it writes instead a page that shows no chart, a negative
// control that screencheck must reject:
//
//	blank    an empty page
//	broken   the chart page without the ECharts library: its script fails
//	         (ReferenceError: echarts is not defined) and nothing is drawn
//	missing  a redirect to a file that does not exist: Chromium's error page
//	error    a chart that failed and says so in red text
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"strings"

	"github.com/fwstruct/fwstruct/internal/atomicfile"
)

func main() {
	echartsPath := flag.String("echarts", "viz/assets/echarts.min.js", "path of echarts.min.js to inline")
	out := flag.String("o", "", "output HTML file (default: standard output)")
	control := flag.String("control", "", "write a negative control instead: blank, broken, missing or error")
	flag.Parse()

	var page []byte
	var err error
	switch *control {
	case "":
		var lib []byte
		if lib, err = os.ReadFile(*echartsPath); err != nil {
			fatalf("%v (run `make viz-assets`)", err)
		}
		page, err = Page(lib, sampleOption())
	case "broken":
		page, err = Page(nil, sampleOption())
	default:
		var ok bool
		if page, ok = controls[*control]; !ok {
			fatalf("unknown -control %q", *control)
		}
	}
	if err != nil {
		fatalf("%v", err)
	}
	if *out == "" {
		os.Stdout.Write(page)
		return
	}
	if err := atomicfile.WriteFile(*out, 0o644, func(w io.Writer) error { _, err := w.Write(page); return err }); err != nil {
		fatalf("%v", err)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "samplechart: "+format+"\n", args...)
	os.Exit(1)
}

// sampleOption is an ECharts option: duality gaps of three made-up solvers
// against effective passes, on a log scale, as in the papers' figures.
func sampleOption() map[string]any {
	passes := make([]float64, 0, 41)
	for p := 0.0; p <= 20; p += 0.5 {
		passes = append(passes, p)
	}
	series := []map[string]any{}
	for _, s := range []struct {
		name string
		rate float64
	}{{"BCFW", 0.9}, {"BCFW-wavg", 1.3}, {"BCPFW (gap sampling)", 1.8}} {
		data := make([][2]float64, len(passes))
		for i, p := range passes {
			data[i] = [2]float64{p, 1 / (1 + s.rate*p*p*0.3) * (1 + 0.05*math.Sin(3*p))}
		}
		series = append(series, map[string]any{
			"name": s.name, "type": "line", "data": data, "showSymbol": false,
			"lineStyle": map[string]any{"width": 3},
		})
	}
	return map[string]any{
		"animation": false,
		"title":     map[string]any{"text": "Duality gap (sample chart)", "left": "center"},
		"legend":    map[string]any{"top": 30},
		"tooltip":   map[string]any{"trigger": "axis"},
		"grid":      map[string]any{"left": 70, "right": 40, "top": 70, "bottom": 60},
		"xAxis":     map[string]any{"type": "value", "name": "effective passes", "nameLocation": "middle", "nameGap": 30},
		"yAxis":     map[string]any{"type": "log", "name": "gap"},
		"series":    series,
	}
}

// controls are the static negative controls.
var controls = map[string][]byte{
	"blank": []byte(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>blank</title></head><body></body></html>
`),
	"missing": []byte(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=does-not-exist.html"></head><body></body></html>
`),
	"error": []byte(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>chart error</title></head>
<body style="font-family: sans-serif; color: #c00000">
<h1>Error: the chart could not be drawn</h1>
<p>ReferenceError: echarts is not defined. The chart data could not be loaded from trace.json;
check that the file exists and that the viz assets were installed with make viz-assets.
Uncaught TypeError: Cannot read properties of undefined (reading 'setOption') at chart.html:12:7.</p>
</body></html>
`),
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<title>fwstruct sample chart</title>
<style>html, body { margin: 0; background: #ffffff; } #chart { width: 960px; height: 640px; margin: 20px; }</style>
{{if .Lib}}<script>{{.Lib}}</script>{{end}}
</head>
<body>
<div id="chart"></div>
<script>
var chart = echarts.init(document.getElementById("chart"), null, {renderer: "canvas"});
chart.setOption({{.Option}});
</script>
</body>
</html>
`))

// Page returns the HTML page drawing option with the ECharts library lib
// inlined; an empty lib leaves the library out.
func Page(lib []byte, option map[string]any) ([]byte, error) {
	opt, err := json.Marshal(option)
	if err != nil {
		return nil, err
	}
	// The library is trusted JavaScript; only guard against a literal
	// "</script" ending the element early.
	js := strings.ReplaceAll(string(lib), "</script", `<\/script`)
	var b bytes.Buffer
	err = pageTemplate.Execute(&b, struct {
		Lib    template.JS
		Option template.JS
	}{template.JS(js), template.JS(opt)})
	return b.Bytes(), err
}
