package ssvmnb

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/fwstruct/fwstruct/solver/run"
)

// exploreView is the chart of an exploration, redrawn in place while the
// run trains (a transient output), with the run's lambda and the marks of
// its trace; finish replaces it by the final figure and the tables of the
// marks and of the changes applied.
type exploreView struct {
	x    *Explorer
	id   string
	on   bool
	last time.Time
}

func newExploreView(x *Explorer) *exploreView {
	v := &exploreView{x: x}
	if output.Active() {
		v.on = true
		v.id = output.NewID()
	}
	return v
}

// update redraws the view, at most every LiveEvery unless forced (after a
// change, so that its mark shows at once).
func (v *exploreView) update(force bool) {
	if v == nil || !v.on {
		return
	}
	t := v.x.t
	every := t.LiveEvery
	if every == 0 {
		every = 500 * time.Millisecond
	}
	if !force && time.Since(v.last) < every {
		return
	}
	v.last = time.Now()
	png, err := renderPNG(t.ProgressFigure())
	if err != nil {
		return
	}
	state := "running"
	if v.x.paused {
		state = "paused"
	}
	last := t.Last()
	var b strings.Builder
	fmt.Fprintf(&b, `<div class="fwstruct-explore" %s data-state="%s">%s`, v.attrs(), state, tableCSS)
	fmt.Fprintf(&b, `<div style="font-family:monospace;font-size:12px">%s: pass %.1f, %s, gap %s (%s)</div>`,
		html.EscapeString(t.Name), t.Passes(), knobs(last), Cell(last.Gap), state)
	b.WriteString(imgTag(png))
	b.WriteString(marksTable(t.Trace()))
	b.WriteString(appliedTable(v.x.Applied(), 5))
	b.WriteString(`</div>`)
	output.UpdateHTML(v.id, b.String())
}

// attrs are the data attributes of the view (read by tools/widgetcheck):
// the run, its pass and lambda (rho for a soft run), and the number of
// marks its trace holds.
func (v *exploreView) attrs() string {
	t := v.x.t
	marks := 0
	for _, p := range t.Trace() {
		if p.Event != "" {
			marks++
		}
	}
	a := fmt.Sprintf(`data-run="%s" data-pass="%s" data-lambda="%s" data-marks="%d"`,
		html.EscapeString(t.Name), num(t.Passes()), num(t.Lambda()), marks)
	if rho := t.Last().Rho; !math.IsNaN(rho) {
		a += fmt.Sprintf(` data-rho="%s"`, num(rho))
	}
	return a
}

// finish replaces the view by the final figure and the tables; widgets
// says what became of the widgets.
func (v *exploreView) finish(widgets string) {
	if v == nil || !v.on {
		return
	}
	t := v.x.t
	output.UpdateHTML(v.id, "")
	if png, err := renderPNG(t.ProgressFigure()); err == nil {
		output.PNG(png)
	}
	applied := v.x.Applied()
	refused := 0
	for _, a := range applied {
		if a.Err != "" {
			refused++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<div class="fwstruct-explore-summary" %s>%s`, v.attrs(), tableCSS)
	fmt.Fprintf(&b, `<div style="font-family:sans-serif;font-size:13px">%s: explored from pass %.4g to %.4g, %s; %d changes applied, %d refused. %s</div>`,
		html.EscapeString(t.Name), v.x.start, t.Passes(), knobs(t.Last()), len(applied)-refused, refused, html.EscapeString(widgets))
	b.WriteString(marksTable(t.Trace()))
	b.WriteString(appliedTable(applied, 0))
	b.WriteString(`</div>`)
	output.HTML(b.String())
	output.Sync()
}

// knobs describes the point's lambda (and rho).
func knobs(p run.Point) string {
	s := fmt.Sprintf("lambda %g", p.Lambda)
	if !math.IsNaN(p.Rho) {
		s += fmt.Sprintf(", rho %g", p.Rho)
	}
	return s
}

// num writes v for a data attribute: the shortest form that reads back
// as v.
func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

const tableStyle = `style="border-collapse:collapse;font-family:monospace;font-size:12px;margin:4px 0"`

// tableCSS aligns the cells of the tables left (Jupyter's own style
// aligns them right).
const tableCSS = `<style>.fwstruct-marks td, .fwstruct-marks th, .fwstruct-applied td, .fwstruct-applied th {text-align:left; padding:1px 8px}</style>`

// marksTable lists the trace points that record a change (the marks of
// the figures), with the rho of a soft run.
func marksTable(tr []run.Point) string {
	var rows []string
	soft := false
	for _, p := range tr {
		if p.Event == "" {
			continue
		}
		rho, rhoCell := "", ""
		if !math.IsNaN(p.Rho) {
			soft = true
			rho, rhoCell = fmt.Sprintf(` data-rho="%s"`, num(p.Rho)), fmt.Sprintf(`<td>%g</td>`, p.Rho)
		}
		rows = append(rows, fmt.Sprintf(`<tr class="fwstruct-mark" data-pass="%s" data-lambda="%s"%s><td>%.4g</td><td>%g</td>%s<td>%s</td></tr>`,
			num(p.Pass), num(p.Lambda), rho, p.Pass, p.Lambda, rhoCell, html.EscapeString(p.Event)))
	}
	if len(rows) == 0 {
		return `<div style="font-family:sans-serif;font-size:12px;color:#555">no change in the trace yet</div>`
	}
	head := `<tr><th>pass</th><th>lambda</th><th>mark in the trace</th></tr>`
	if soft {
		head = `<tr><th>pass</th><th>lambda</th><th>rho</th><th>mark in the trace</th></tr>`
	}
	return `<table class="fwstruct-marks" ` + tableStyle + `>` + head + strings.Join(rows, "") + `</table>`
}

// appliedTable lists the changes applied, the last n (0: all).
func appliedTable(applied []Applied, n int) string {
	if len(applied) == 0 {
		return ""
	}
	if n > 0 && len(applied) > n {
		applied = applied[len(applied)-n:]
	}
	var b strings.Builder
	b.WriteString(`<table class="fwstruct-applied" ` + tableStyle + `><tr><th>pass</th><th>change</th><th>result</th></tr>`)
	for _, a := range applied {
		var res []string
		res = append(res, a.Marks...)
		if a.Fork != "" {
			res = append(res, "forked as "+a.Fork)
		}
		if a.File != "" {
			res = append(res, "saved to "+a.File)
		}
		if a.Err != "" {
			res = append(res, "refused: "+a.Err)
		}
		if a.Unchanged {
			res = append(res, "no change: the run has it already")
		}
		if len(res) == 0 {
			res = append(res, "done")
		}
		fmt.Fprintf(&b, `<tr><td>%.4g</td><td>%s</td><td>%s</td></tr>`, a.Pass, html.EscapeString(a.Event), html.EscapeString(strings.Join(res, "; ")))
	}
	b.WriteString(`</table>`)
	return b.String()
}
