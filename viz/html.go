package viz

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

const (
	// EChartsVersion is the version of Apache ECharts the HTML pages are
	// written for.
	EChartsVersion = "5.6.0"
	// EChartsCDN is the script URL used when no local copy of ECharts is
	// found (see EChartsSource).
	EChartsCDN = "https://cdn.jsdelivr.net/npm/echarts@" + EChartsVersion + "/dist/echarts.min.js"
	// EChartsEnv names the environment variable that may hold the path of
	// echarts.min.js, or "cdn" to always use EChartsCDN.
	EChartsEnv = "FWSTRUCT_ECHARTS"
	// EChartsAsset is the path of the local copy of echarts.min.js relative
	// to the module root (gitignored; fetched by the Makefile, see the
	// package documentation).
	EChartsAsset = "viz/assets/echarts.min.js"

	modulePath = "github.com/fwstruct/fwstruct"
	chartID    = "fwstruct-chart"
)

// EChartsSource tells where WriteHTML takes the ECharts library from: the
// first readable, non-empty file among $FWSTRUCT_ECHARTS, the
// viz/assets/echarts.min.js of the fwstruct module found by walking up from
// the working directory, and the assets/echarts.min.js next to this
// package's source files; inline is then true and where is the file's path.
// Otherwise inline is false and where is EChartsCDN, which a browser can
// only load online. A candidate that cannot be read is skipped.
// FWSTRUCT_ECHARTS=cdn selects the CDN: pages are then about 1 MB smaller
// (worth it in notebooks with many figures) but need a network connection.
func EChartsSource() (inline bool, where string) {
	if os.Getenv(EChartsEnv) == "cdn" {
		return false, EChartsCDN
	}
	for _, p := range echartsCandidates() {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Size() > 0 {
			return true, p
		}
	}
	return false, EChartsCDN
}

// echartsCandidates lists the places of echarts.min.js, in order.
func echartsCandidates() []string {
	var c []string
	if p := os.Getenv(EChartsEnv); p != "" {
		c = append(c, p)
	}
	if wd, err := os.Getwd(); err == nil {
		if root, ok := moduleRoot(wd); ok {
			c = append(c, filepath.Join(root, filepath.FromSlash(EChartsAsset)))
		}
	}
	if packageDir != "" {
		c = append(c, filepath.Join(packageDir, "assets", "echarts.min.js"))
	}
	return c
}

// packageDir is the folder of this package's source files (empty when
// unknown); tests may change it.
var packageDir = func() string {
	if _, file, _, ok := runtime.Caller(0); ok {
		return filepath.Dir(file)
	}
	return ""
}()

// moduleRoot walks up from dir to the folder whose go.mod declares the
// fwstruct module.
func moduleRoot(dir string) (string, bool) {
	for {
		if f, err := os.Open(filepath.Join(dir, "go.mod")); err == nil {
			mod := modulePathOf(f)
			f.Close()
			if mod == modulePath {
				return dir, true
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// modulePathOf returns the module path of a go.mod file.
func modulePathOf(r io.Reader) string {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "module" {
			if p, err := strconv.Unquote(fields[1]); err == nil {
				return p
			}
			return fields[1]
		}
	}
	return ""
}

// loadECharts returns the script tag of the page: the inlined library, or
// a reference to the CDN.
func loadECharts() string {
	if os.Getenv(EChartsEnv) == "cdn" {
		return `<script src="` + EChartsCDN + `"></script>`
	}
	for _, p := range echartsCandidates() {
		js, err := os.ReadFile(p)
		if err != nil || len(bytes.TrimSpace(js)) == 0 {
			continue
		}
		js = scriptEnd.ReplaceAll(js, []byte(`<\/script`))
		name := unsafeName.ReplaceAllString(filepath.Base(p), "_")
		return "<script>" + InlineMarker + name + " */\n" + string(js) + "\n</script>"
	}
	return `<script src="` + EChartsCDN + `"></script>`
}

var (
	scriptEnd  = regexp.MustCompile(`(?i)</script`)
	unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]`)
)

// JavaScript snippets of the options. They must survive JSON string
// encoding unchanged: no double quotes, backslashes, '<', '>' or '&'.
const (
	// jsValue formats tooltip values with 4 significant digits.
	jsValue = `function (v) { var f = function (u) { return typeof u === 'number' ? Number(u.toPrecision(4)).toString() : u; }; return Array.isArray(v) ? v.map(f).join(', ') : f(v); }`
	// jsBand draws a band series ([x, lo, hi] items) as one polygon.
	jsBand = `function (params, api) { if (params.dataIndexInside !== 0) { return null; } var n = params.dataInsideLength; var up = []; var lo = []; for (var i = 0; i !== n; i++) { up.push(api.coord([api.value(0, i), api.value(2, i)])); lo.push(api.coord([api.value(0, i), api.value(1, i)])); } return {type: 'polygon', silent: true, shape: {points: up.concat(lo.reverse())}, style: {fill: api.visual('color'), opacity: 0.25}}; }`
)

// jsMark draws the mark of its series: it lays out the label of every mark
// in view with layoutLabels (jsLayoutLabels, the translation of the Go
// function, so that the interactive charts place their labels as the
// static ones do), in pixels at the chart's size and zoom, and draws its
// own mark's line and label. Data items are [x, label width, index of the
// series' own mark]; lt stands for the comparison JSON would escape.
var jsMark = `function (params, api) { if (params.dataIndexInside !== 0) { return null; } ` +
	jsLayoutLabels +
	`var cs = params.coordSys; var lo = cs.x; var hi = cs.x + cs.width; var n = params.dataInsideLength; var own = api.value(2, 0); ` +
	`var pad = ` + strconv.Itoa(markPad) + `; var gap = ` + strconv.Itoa(markGap) + `; var rowH = ` + strconv.FormatFloat(markFontPixels*1.3, 'g', -1, 64) + `; ` +
	`var xs = []; var ws = []; var self = -1; ` +
	`for (var i = 0; i !== n; i++) { var x = api.coord([api.value(0, i), 1])[0]; if (lt(x, lo - 0.5) || lt(hi + 0.5, x)) { continue; } ` +
	`if (i === own) { self = xs.length; } xs.push(x); ws.push(api.value(1, i)); } ` +
	`if (self === -1) { return null; } ` +
	`var s = layoutLabels(xs, ws, lo, hi, pad, gap); ` +
	`var top = cs.y + s[self].row * rowH; var x0 = xs[self]; var bottom = cs.y + cs.height; var children = []; ` +
	`if (lt(top + rowH, bottom)) { children.push({type: 'line', silent: true, shape: {x1: x0, y1: bottom, x2: x0, y2: top + rowH}, style: {stroke: '#888888', lineWidth: 1, lineDash: [1, 2.5]}}); } ` +
	`children.push({type: 'text', silent: true, x: s[self].left, y: top + 1, style: {text: params.seriesName, fill: '#555555', font: '` + jsMarkFont + `', align: 'left', verticalAlign: 'top'}}); ` +
	`return {type: 'group', children: children}; }`

// jsMarkFont is the font of the ECharts mark labels (see markSeries).
const jsMarkFont = "10px Arial, Liberation Sans, sans-serif"

// bandSeries is a custom series drawing a band: go-echarts' SingleSeries
// has no tooltip.show nor clip, so they are added here (the outer fields
// win over the embedded ones in encoding/json).
type bandSeries struct {
	charts.SingleSeries
	Tooltip struct {
		Show bool `json:"show"`
	} `json:"tooltip"`
	Clip bool `json:"clip"`
}

// EChartsOption returns the ECharts option object of the figure as JSON
// (with JavaScript functions, so strictly speaking a JavaScript object
// literal): what WriteHTML passes to setOption. Animation is off. The
// figure is sanitized as for the static renderers.
func (f *Figure) EChartsOption() ([]byte, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	var obj map[string]interface{}
	var err error
	switch f.Kind {
	case Lines:
		obj, err = f.lineOption()
	case Bars:
		obj = f.barOption()
	case HeatMap:
		obj = f.heatMapOption()
	}
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("viz: echarts option: %w", err)
	}
	// go-echarts marks JavaScript functions (opts.FuncOpts) with "__f__";
	// turn exactly our marked snippets back into code, so that no user
	// string (a series name, a label) is ever touched.
	for _, js := range []string{jsValue, jsBand, jsMark} {
		quoted, _ := json.Marshal(string(opts.FuncOpts(js)))
		b = bytes.ReplaceAll(b, quoted, []byte(js))
	}
	return b, nil
}

// common sets the options shared by every kind.
func (f *Figure) common(legend []string, zoom bool) []charts.GlobalOpts {
	// The legend goes under the title and its notes (one line each).
	below := 10
	if f.Title != "" || len(f.Notes) > 0 {
		below = 36 + 16*len(f.Notes)
	}
	top := strconv.Itoa(below)
	g := []charts.GlobalOpts{
		charts.WithAnimation(false),
		charts.WithTitleOpts(opts.Title{Title: f.Title, Left: "center"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(len(legend) > 0), Type: "scroll", Top: top, Data: legend}),
		charts.WithToolboxOpts(opts.Toolbox{Show: opts.Bool(true), Right: "20", Feature: &opts.ToolBoxFeature{
			SaveAsImage: &opts.ToolBoxFeatureSaveAsImage{Show: opts.Bool(true), Type: "png", Title: "save"},
			Restore:     &opts.ToolBoxFeatureRestore{Show: opts.Bool(true), Title: "reset"},
		}}),
	}
	bottom := "40"
	if zoom {
		bottom = "70"
	}
	if f.Kind == HeatMap {
		bottom = "80"
	}
	g = append(g, charts.WithGridOpts(opts.Grid{Top: strconv.Itoa(below + 34), Bottom: bottom, Left: "50", Right: "40", ContainLabel: opts.Bool(true)}))
	return g
}

func axisType(log bool) string {
	if log {
		return "log"
	}
	return "value"
}

func (f *Figure) lineOption() (map[string]interface{}, error) {
	ls, err := f.lines()
	if err != nil {
		return nil, err
	}
	var legend []string
	seen := map[string]bool{}
	for _, l := range ls {
		if l.name != "" && !seen[l.name] {
			seen[l.name] = true
			legend = append(legend, l.name)
		}
	}
	xa := opts.XAxis{Type: axisType(f.LogX), Name: f.XLabel, NameLocation: "middle", NameGap: 30,
		SplitLine: &opts.SplitLine{Show: opts.Bool(true)}}
	ya := opts.YAxis{Type: axisType(f.LogY), Name: f.YLabel, NameLocation: "middle", NameGap: 50,
		Scale: opts.Bool(!f.LogY)}
	empty := true
	for _, l := range ls {
		if len(l.x) > 0 || len(l.bx) > 0 {
			empty = false
		}
	}
	if empty { // an empty log axis has no extent: show one decade
		if f.LogX {
			xa.Min, xa.Max = 1, 10
		}
		if f.LogY {
			ya.Min, ya.Max = 1, 10
		}
	}
	if f.XRange != [2]float64{} {
		xa.Min, xa.Max = f.XRange[0], f.XRange[1]
	}
	if f.YRange != [2]float64{} {
		ya.Min, ya.Max = f.YRange[0], f.YRange[1]
	}
	c := charts.NewLine()
	g := f.common(legend, true)
	g = append(g,
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis",
			ValueFormatter: opts.FuncOpts(jsValue), AxisPointer: &opts.AxisPointer{Type: "cross"}}),
		charts.WithXAxisOpts(xa),
		charts.WithYAxisOpts(ya),
		charts.WithDataZoomOpts(
			opts.DataZoom{Type: "inside", XAxisIndex: 0, FilterMode: "none"},
			opts.DataZoom{Type: "slider", XAxisIndex: 0, FilterMode: "none"}),
	)
	c.SetGlobalOptions(g...)
	for _, l := range ls {
		data := make([]opts.LineData, len(l.x))
		for j := range l.x {
			data[j] = opts.LineData{Value: []float64{l.x[j], l.y[j]}}
		}
		c.AddSeries(l.name, data, charts.WithSeriesOpts(func(s *charts.SingleSeries) {
			s.Color = l.color
			s.ShowSymbol = opts.Bool(l.markers || len(l.x) == 1)
			s.Symbol = "circle"
			s.SymbolSize = 6
			s.LineStyle = &opts.LineStyle{Color: l.color, Width: 2, Type: "solid"}
			if l.ref {
				s.LineStyle.Width = 1
				s.ShowSymbol = opts.Bool(false)
			}
			if l.noLine {
				s.LineStyle.Opacity = opts.Float(0)
			}
		}))
	}
	c.Validate()
	obj := c.JSON()
	obj["color"] = palette[:]
	f.addSubtitle(obj)
	// Bands first, drawn under every curve.
	series := make([]interface{}, 0, 2*len(ls))
	for _, l := range ls {
		if len(l.bx) < 2 {
			continue
		}
		data := make([]opts.CustomData, len(l.bx))
		for j := range l.bx {
			data[j] = opts.CustomData{Value: []float64{l.bx[j], l.blo[j], l.bhi[j]}}
		}
		b := bandSeries{Clip: true}
		b.Name, b.Type, b.Data, b.Color = l.name, types.ChartCustom, data, l.color
		b.RenderItem = opts.FuncOpts(jsBand)
		b.Encode = &opts.Encode{X: 0, Y: []int{1, 2}}
		series = append(series, b)
	}
	for k, s := range c.MultiSeries {
		m, err := withDash(s, ls[k].dash)
		if err != nil {
			return nil, err
		}
		series = append(series, m)
	}
	series = append(series, markSeries(f.marks(ls))...)
	obj["series"] = series
	return obj, nil
}

// withDash returns a line series as a JSON object whose lineStyle.type is
// the dash pattern (go-echarts only writes names, not on/off lengths).
func withDash(s charts.SingleSeries, d Dash) (map[string]interface{}, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("viz: echarts series: %w", err)
	}
	var m map[string]interface{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("viz: echarts series: %w", err)
	}
	if ls, ok := m["lineStyle"].(map[string]interface{}); ok {
		ls["type"] = d.echartsType()
	}
	return m, nil
}

// markSeries returns one custom series per mark, named by its label:
// jsMark lays out the labels of all the marks (each series holds every
// mark's x and label width, and the index of its own) and draws its own
// mark's line and label, in the browser, at the chart's size and zoom.
func markSeries(marks []Mark) []interface{} {
	sty := markTextStyle()
	sty.Font = font.From(font.Font{Typeface: "Liberation", Variant: "Sans"}, vg.Length(markFontPixels)*72/DPI)
	data := make([][]float64, len(marks))
	for i, m := range marks {
		// Liberation Sans measures as Arial does; a margin for other fonts.
		data[i] = []float64{m.X, 1.1 * float64(sty.Width(m.Label)) * DPI / 72, 0}
	}
	out := make([]interface{}, len(marks))
	for i, m := range marks {
		own := make([][]float64, len(data))
		for k, d := range data {
			own[k] = []float64{d[0], d[1], float64(i)}
		}
		out[i] = map[string]interface{}{
			"type": "custom", "name": m.Label, "silent": true, "clip": false, "z": 1,
			"tooltip":    map[string]interface{}{"show": false},
			"encode":     map[string]interface{}{"x": 0, "y": []int{}},
			"data":       own,
			"renderItem": opts.FuncOpts(jsMark),
		}
	}
	return out
}

// addSubtitle writes the figure's notes as the title's subtext.
func (f *Figure) addSubtitle(obj map[string]interface{}) {
	if len(f.Notes) == 0 {
		return
	}
	if t, ok := obj["title"].(map[string]interface{}); ok {
		t["subtext"] = strings.Join(f.Notes, "\n")
		return
	}
	b, _ := json.Marshal(obj["title"])
	var t map[string]interface{}
	if json.Unmarshal(b, &t) == nil && t != nil {
		t["subtext"] = strings.Join(f.Notes, "\n")
		obj["title"] = t
	}
}

func (f *Figure) barOption() map[string]interface{} {
	var legend []string
	for _, s := range f.Series {
		if s.Name != "" {
			legend = append(legend, s.Name)
		}
	}
	ya := opts.YAxis{Type: "value", Name: f.YLabel, NameLocation: "middle", NameGap: 50}
	if f.YRange != [2]float64{} {
		ya.Min, ya.Max = f.YRange[0], f.YRange[1]
	}
	c := charts.NewBar()
	g := f.common(legend, false)
	g = append(g,
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis",
			ValueFormatter: opts.FuncOpts(jsValue), AxisPointer: &opts.AxisPointer{Type: "shadow"}}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Name: f.XLabel, NameLocation: "middle", NameGap: 30}),
		charts.WithYAxisOpts(ya),
	)
	c.SetGlobalOptions(g...)
	c.SetXAxis(f.Categories)
	for i, s := range f.Series {
		data := make([]opts.BarData, len(s.Y))
		for j, v := range s.Y {
			if ok(v, false) {
				data[j] = opts.BarData{Value: v}
			} else {
				data[j] = opts.BarData{Value: "-"} // ECharts' empty value
			}
		}
		col := seriesColor(s, i)
		c.AddSeries(s.Name, data, charts.WithSeriesOpts(func(s *charts.SingleSeries) { s.Color = col }))
	}
	c.Validate()
	obj := c.JSON()
	obj["color"] = palette[:]
	f.addSubtitle(obj)
	return obj
}

func (f *Figure) heatMapOption() map[string]interface{} {
	c := charts.NewHeatMap()
	g := f.common(nil, false)
	g = append(g,
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Name: f.XLabel, NameLocation: "middle", NameGap: 30,
			Data: f.Cols, SplitArea: &opts.SplitArea{Show: opts.Bool(true)}}),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Name: f.YLabel, NameLocation: "middle", NameGap: 50,
			Data: f.Rows, SplitArea: &opts.SplitArea{Show: opts.Bool(true)}}),
	)
	c.SetGlobalOptions(g...)
	var data []opts.HeatMapData
	for r, row := range f.Cells {
		for col, v := range row {
			if !ok(v, false) {
				continue // a blank cell
			}
			data = append(data, opts.HeatMapData{
				Name:  f.Rows[r] + " / " + f.Cols[col],
				Value: []interface{}{col, r, v, fmt.Sprintf(f.cellFormat(), v)},
			})
		}
	}
	c.AddSeries(f.Title, data, charts.WithSeriesOpts(func(s *charts.SingleSeries) {
		s.Label = &opts.Label{Show: opts.Bool(true), Formatter: "{@[3]}"}
		s.SeriesTooltip = &opts.SeriesTooltip{Formatter: "{b}: {@[3]}"}
		s.Encode = &opts.Encode{X: 0, Y: 1}
	}))
	c.Validate()
	obj := c.JSON()
	f.addSubtitle(obj)
	if blank := f.blankCells(); blank != nil {
		if list, ok := obj["series"].([]interface{}); ok {
			obj["series"] = append(list, blank)
		} else {
			b, _ := json.Marshal(obj["series"])
			var l []interface{}
			json.Unmarshal(b, &l)
			obj["series"] = append(l, blank)
		}
	}
	// go-echarts' VisualMap holds float32 and drops a zero max: write it here.
	lo, hi := f.cellRange()
	obj["visualMap"] = []map[string]interface{}{{
		"type": "continuous", "min": lo, "max": hi, "calculable": true, "dimension": 2,
		"orient": "horizontal", "left": "center", "bottom": "10",
		"inRange": map[string]interface{}{"color": heatStops},
	}}
	return obj
}

// blankCells returns a scatter series that labels the NaN and infinite
// cells of a heat map with BlankLabel (nil when there is none to label).
func (f *Figure) blankCells() map[string]interface{} {
	if f.BlankLabel == "" {
		return nil
	}
	var data [][]interface{}
	for r, row := range f.Cells {
		for c, v := range row {
			if !ok(v, false) {
				data = append(data, []interface{}{c, r})
			}
		}
	}
	if len(data) == 0 {
		return nil
	}
	return map[string]interface{}{
		"type": "scatter", "name": f.BlankLabel, "symbolSize": 0, "silent": true, "data": data,
		"label": map[string]interface{}{"show": true, "formatter": f.BlankLabel, "color": "#666666", "position": "inside"},
	}
}

// WriteHTML writes the figure as a standalone interactive HTML page
// (ECharts, animation off): tooltips, a legend whose entries toggle the
// curves and their bands, zoom with the mouse wheel and a slider (line
// charts), and a save-as-PNG button. The page fills the browser window.
// ECharts is inlined when a local copy is found, else loaded from
// EChartsCDN (see EChartsSource).
func (f *Figure) WriteHTML(w io.Writer) error {
	page, err := f.page()
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, page)
	return err
}

// page returns the HTML page of the figure.
func (f *Figure) page() (string, error) { return pageOf([]*Figure{f}, 0) }

// DrawnAttr is the attribute of every chart element of the HTML pages that
// says how much of its data the chart draws (Figure.Drawn), so that a
// checker of saved notebooks can reject empty charts without running them.
const DrawnAttr = "data-fwstruct-drawn"

// InlineMarker starts the comment that precedes an inlined copy of ECharts
// in the HTML pages: a page without it loads the library from EChartsCDN,
// and shows "ECharts could not be loaded" offline.
const InlineMarker = "/* ECharts " + EChartsVersion + " inlined from "

// pageOf returns one HTML page holding every figure, one chart below the
// other, with one copy of ECharts. A single figure fills the window
// (height 0); several get height pixels each.
func pageOf(figs []*Figure, height int) (string, error) {
	if len(figs) == 0 {
		return "", errors.New("viz: no figure to show")
	}
	opts := make([][]byte, len(figs))
	for i, f := range figs {
		var err error
		if opts[i], err = f.EChartsOption(); err != nil {
			if len(figs) == 1 {
				return "", err
			}
			return "", fmt.Errorf("viz: figure %d of %d: %w", i+1, len(figs), err)
		}
	}
	title := figs[0].Title
	if title == "" {
		title = "fwstruct figure"
	}
	size := "width: 100%; height: 100%; min-height: 240px;"
	if len(figs) > 1 {
		size = "width: 100%; height: " + strconv.Itoa(height) + "px;"
	}
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>")
	b.WriteString(html.EscapeString(title))
	b.WriteString("</title>\n<style>html, body { margin: 0; height: 100%; } ." + chartID + " { " + size + " }</style>\n")
	b.WriteString(loadECharts())
	b.WriteString("\n</head>\n<body>\n")
	for i, f := range figs {
		fmt.Fprintf(&b, "<div id=\"%s-%d\" class=\"%s\" %s=\"%d\"></div>\n", chartID, i, chartID, DrawnAttr, f.Drawn())
	}
	b.WriteString("<script>\n\"use strict\";\n(function () {\n")
	b.WriteString("  var options = [\n")
	for i, o := range opts {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.Write(o)
	}
	b.WriteString("\n  ];\n")
	b.WriteString("  options.forEach(function (option, i) {\n")
	b.WriteString("    var el = document.getElementById('" + chartID + "-' + i);\n")
	b.WriteString("    if (typeof echarts === 'undefined') { el.textContent = 'ECharts could not be loaded (offline without a local copy: see the fwstruct viz package documentation).'; return; }\n")
	b.WriteString("    var chart = echarts.init(el, null, {renderer: 'canvas'});\n")
	b.WriteString("    chart.setOption(option);\n")
	b.WriteString("    window.addEventListener('resize', function () { chart.resize(); });\n  });\n})();\n</script>\n</body>\n</html>\n")
	return b.String(), nil
}

// IFrame returns the HTML page of the figure (WriteHTML) embedded in an
// iframe of the given height in pixels and the full width, through its
// escaped srcdoc attribute. Notebook front ends such as Jupyter load
// RequireJS, which clashes with ECharts' plain script; inside the iframe
// the page has its own document.
func (f *Figure) IFrame(height int) (string, error) {
	if height <= 0 || height > MaxPixels {
		return "", fmt.Errorf("viz: iframe height %d pixels outside [1, %d]", height, MaxPixels)
	}
	page, err := f.page()
	if err != nil {
		return "", err
	}
	return iframe(page, height), nil
}

func iframe(page string, height int) string {
	return `<iframe srcdoc="` + html.EscapeString(page) + `" style="width:100%;height:` +
		strconv.Itoa(height) + `px;border:0"></iframe>`
}

// IFrames returns one iframe (see Figure.IFrame) holding every figure, one
// below the other, each height pixels tall: the page inlines ECharts once
// (about 1 MB) instead of once per figure.
func IFrames(height int, figs ...*Figure) (string, error) {
	if height <= 0 || height*max(1, len(figs)) > MaxPixels {
		return "", fmt.Errorf("viz: iframe of %d figures of %d pixels outside [1, %d]", len(figs), height, MaxPixels)
	}
	page, err := pageOf(figs, height)
	if err != nil {
		return "", err
	}
	return iframe(page, height*len(figs)), nil
}
