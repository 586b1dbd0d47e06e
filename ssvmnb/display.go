package ssvmnb

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"os"
	"strings"
	"time"

	"github.com/janpfeifer/gonb/gonbui"

	"github.com/fwstruct/fwstruct/viz"
)

// display is where ssvmnb shows its output. The default sends it to the GoNB
// notebook when the program runs inside one and drops it otherwise; tests or
// other front ends may install their own.
type display interface {
	// Active reports whether output is shown at all; when false, figures
	// are not even rendered.
	Active() bool
	// HTML shows HTML as a new output of the cell.
	HTML(html string)
	// PNG shows a PNG image as a new output of the cell.
	PNG(png []byte)
	// Markdown shows Markdown as a new output of the cell.
	Markdown(md string)
	// UpdateHTML creates or replaces the transient output block id.
	UpdateHTML(id, html string)
	// NewID returns a fresh id for UpdateHTML.
	NewID() string
	// Sync waits until everything shown so far has reached the notebook.
	Sync()
}

// output is the current display.
var output display = gonbDisplay{}

// stdout is the cell program's standard output, which drainStdout waits
// on (at most drainLimit, then drainSettle more once it had to wait).
var (
	stdout                  = os.Stdout
	drainLimit, drainSettle = time.Second, 20 * time.Millisecond
)

// gonbDisplay shows output through gonbui.
type gonbDisplay struct{}

// Every display first lets GoNB read what the cell printed before it
// (drainStdout), so that a line printed before a figure shows above it.
func (gonbDisplay) Active() bool               { return gonbui.IsNotebook }
func (gonbDisplay) HTML(html string)           { drainStdout(); gonbui.DisplayHTML(html) }
func (gonbDisplay) PNG(png []byte)             { drainStdout(); gonbui.DisplayPNG(png) }
func (gonbDisplay) Markdown(md string)         { drainStdout(); gonbui.DisplayMarkdown(md) }
func (gonbDisplay) UpdateHTML(id, html string) { drainStdout(); gonbui.UpdateHTML(id, html) }
func (gonbDisplay) NewID() string              { return "fwstruct_" + gonbui.UniqueId() }
func (gonbDisplay) Sync()                      { gonbui.Sync() }

func displayHTML(html string) {
	if output.Active() {
		output.HTML(html)
		output.Sync()
	}
}

// Figure sizes of the static figures, in pixels.
const (
	figureWidth  = 720
	figureHeight = 420
)

// Show displays a figure as a static PNG image in a notebook (nothing
// elsewhere). A figure that draws no data (viz.Figure.Drawn is 0: every
// lambda missed the target, no run has a cache) is not shown: a note says
// which figure and why, from its Notes. The error is only about rendering.
func Show(f *viz.Figure) error {
	if err := validate(f); err != nil {
		return err
	}
	if !output.Active() {
		return nil
	}
	if f.Drawn() == 0 {
		output.HTML(omittedHTML(f))
		output.Sync()
		return nil
	}
	png, err := renderPNG(f)
	if err != nil {
		return err
	}
	output.PNG(png)
	output.Sync()
	return nil
}

// validate accepts figures that can be rendered and those with nothing at
// all to draw (no series), which Show replaces by a note.
func validate(f *viz.Figure) error {
	if err := f.Validate(); err != nil && !errors.Is(err, viz.ErrEmptyFigure) {
		return err
	}
	return nil
}

// omittedHTML is the note that replaces a figure with nothing to draw.
func omittedHTML(f *viz.Figure) string {
	why := "it has no data to draw"
	if len(f.Notes) > 0 {
		why = strings.Join(f.Notes, "; ")
	}
	title := f.Title
	if title == "" {
		title = "untitled"
	}
	return noteHTML("omitted", fmt.Sprintf("Figure %q not drawn: %s.", title, why))
}

// ShowInteractive displays figures as interactive ECharts charts (zoom,
// tooltips, legend entries that toggle curves) in a notebook, one below the
// other in one iframe (which works beside Jupyter's RequireJS) holding one
// copy of the ECharts library for all of them (about 1 MB; it is inlined
// from viz/assets/echarts.min.js, see `make notebook-deps`, so that charts
// work offline). Figures with no data to draw are replaced by a note.
//
// A copy shared by every chart of a notebook page is not possible with
// GoNB's display model: each cell is a program of its own, and none can
// know which outputs the page holds at the moment (outputs are cleared,
// cells re-run out of order, pages reloaded), so a chart relying on a copy
// shown by an earlier cell would go blank exactly when the page changes.
func ShowInteractive(figs ...*viz.Figure) error {
	var drawn []*viz.Figure
	for _, f := range figs {
		if err := validate(f); err != nil {
			return err
		}
		if f.Drawn() > 0 {
			drawn = append(drawn, f)
		}
	}
	if !output.Active() {
		return nil
	}
	for _, f := range figs {
		if f.Drawn() == 0 {
			output.HTML(omittedHTML(f))
		}
	}
	if len(drawn) > 0 {
		frame, err := viz.IFrames(figureHeight+40, drawn...)
		if err != nil {
			return err
		}
		output.HTML(frame)
	}
	output.Sync()
	return nil
}

func renderPNG(f *viz.Figure) ([]byte, error) {
	var buf bytes.Buffer
	if err := f.WritePNG(&buf, figureWidth, figureHeight); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// imgTag embeds a PNG in an HTML img element.
func imgTag(png []byte) string {
	return fmt.Sprintf(`<img alt="figure" src="data:image/png;base64,%s">`, base64.StdEncoding.EncodeToString(png))
}

// liveView is the in-place chart of a running trainer.
type liveView struct {
	t    *Trainer
	id   string
	last time.Time
	on   bool
}

func (t *Trainer) startLive() *liveView {
	v := &liveView{t: t}
	if t.Live && output.Active() && !exploring(t) { // an exploration draws its own chart
		v.on = true
		v.id = output.NewID()
	}
	return v
}

// update redraws the transient chart, at most every LiveEvery.
func (v *liveView) update() {
	if !v.on {
		return
	}
	every := v.t.LiveEvery
	if every == 0 {
		every = 500 * time.Millisecond
	}
	if time.Since(v.last) < every {
		return
	}
	v.last = time.Now()
	if png, err := renderPNG(v.t.ProgressFigure()); err == nil {
		last := v.t.Last() // live updates happen at trace points
		output.UpdateHTML(v.id, fmt.Sprintf("<div>%s: pass %.1f, gap %s (running)</div>%s", html.EscapeString(v.t.Name), last.Pass, Cell(last.Gap), imgTag(png)))
	}
}

// finish clears the transient chart and shows the final static figure,
// under a line saying where the run stands and, for a run kept in the
// session, the size of its file and of the notebook's session.
func (v *liveView) finish() {
	if !v.on {
		return
	}
	output.UpdateHTML(v.id, "")
	if png, err := renderPNG(v.t.ProgressFigure()); err == nil {
		output.PNG(png)
	}
	output.HTML(fmt.Sprintf(`<div style="font-family:monospace;font-size:12px;color:#555">%s</div>`, html.EscapeString(v.t.standing())))
	output.Sync()
}

// standing says where the run stands: its pass and gap, and for a run
// kept in the session, the size of its file and of the notebook's
// session.
func (t *Trainer) standing() string {
	last := t.Last()
	line := fmt.Sprintf("%s: pass %.4g, gap %s", t.Name, last.Pass, Cell(last.Gap))
	if n := t.StoredSize(); n > 0 {
		line += "; stored in the session: " + sizeText(n)
		if all, err := SessionSize(); err == nil && all > n {
			line += fmt.Sprintf(" (the notebook's session: %s)", sizeText(all))
		}
	}
	return line
}
