package ssvmnb

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"time"

	"github.com/janpfeifer/gonb/gonbui"

	"github.com/fwstruct/fwstruct/viz"
)

// Display is where ssvmnb shows its output. The default sends it to the GoNB
// notebook when the program runs inside one and drops it otherwise; tests or
// other front ends may install their own.
type Display interface {
	// Active reports whether output is shown at all; when false, figures
	// are not even rendered.
	Active() bool
	// HTML shows HTML as a new output of the cell.
	HTML(html string)
	// PNG shows a PNG image as a new output of the cell.
	PNG(png []byte)
	// UpdateHTML creates or replaces the transient output block id.
	UpdateHTML(id, html string)
	// NewID returns a fresh id for UpdateHTML.
	NewID() string
	// Sync waits until everything shown so far has reached the notebook.
	Sync()
}

// Output is the current Display.
var Output Display = gonbDisplay{}

// gonbDisplay shows output through gonbui.
type gonbDisplay struct{}

func (gonbDisplay) Active() bool               { return gonbui.IsNotebook }
func (gonbDisplay) HTML(html string)           { gonbui.DisplayHTML(html) }
func (gonbDisplay) PNG(png []byte)             { gonbui.DisplayPNG(png) }
func (gonbDisplay) UpdateHTML(id, html string) { gonbui.UpdateHTML(id, html) }
func (gonbDisplay) NewID() string              { return "fwstruct_" + gonbui.UniqueId() }
func (gonbDisplay) Sync()                      { gonbui.Sync() }

func displayHTML(html string) {
	if Output.Active() {
		Output.HTML(html)
		Output.Sync()
	}
}

// Figure sizes of the static figures, in pixels.
const (
	FigureWidth  = 720
	FigureHeight = 420
)

// Show displays a figure as a static PNG image in a notebook (nothing
// elsewhere) and returns an error only if it cannot be rendered.
func Show(f *viz.Figure) error {
	if !Output.Active() {
		return nil
	}
	png, err := renderPNG(f)
	if err != nil {
		return err
	}
	Output.PNG(png)
	Output.Sync()
	return nil
}

// ShowInteractive displays a figure as an interactive ECharts chart (in an
// iframe, which works beside Jupyter's RequireJS) in a notebook.
func ShowInteractive(f *viz.Figure) error {
	if !Output.Active() {
		return nil
	}
	frame, err := f.IFrame(FigureHeight + 40)
	if err != nil {
		return err
	}
	Output.HTML(frame)
	Output.Sync()
	return nil
}

func renderPNG(f *viz.Figure) ([]byte, error) {
	var buf bytes.Buffer
	if err := f.WritePNG(&buf, FigureWidth, FigureHeight); err != nil {
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
	if t.Live && Output.Active() {
		v.on = true
		v.id = Output.NewID()
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
		Output.UpdateHTML(v.id, fmt.Sprintf("<div>%s: pass %.1f, gap %s</div>%s", v.t.Name, last.Pass, Cell(last.Gap), imgTag(png)))
	}
}

// finish clears the transient chart and shows the final static figure.
func (v *liveView) finish() {
	if !v.on {
		return
	}
	Output.UpdateHTML(v.id, "")
	if png, err := renderPNG(v.t.ProgressFigure()); err == nil {
		Output.PNG(png)
	}
	Output.Sync()
}
