package ssvmnb

import (
	"fmt"
	"html"
	"time"

	"github.com/fwstruct/fwstruct/solver/run"
)

// Progress is the live line of a long call (Seeds, sweeps, the paper
// reproductions of package papers): one transient line in the cell,
// updated in place at most every progressEvery, replaced at the end by a
// permanent summary. Outside a notebook it shows nothing.
type Progress struct {
	title string
	id    string
	on    bool
	start time.Time
	last  time.Time
	run   string // the run in progress
	done  int    // runs finished
	total int    // runs in all
	// interrupted says that SIGINT stopped the call: the summary says so.
	interrupted bool
}

const progressEvery = 300 * time.Millisecond

// NewProgress starts the line of a call of total runs titled title.
func NewProgress(title string, total int) *Progress {
	p := &Progress{title: title, total: total, start: time.Now()}
	if output.Active() {
		p.on = true
		p.id = output.NewID()
		p.Show("starting")
	}
	return p
}

// track makes t report its trace points to the line while it runs.
func (p *Progress) track(t *Trainer, stop run.Stop) {
	p.run = t.Name
	t.onPoint = func(pt run.Point) {
		if time.Since(p.last) < progressEvery {
			return
		}
		budget := ""
		if stop.Passes > 0 {
			budget = fmt.Sprintf(" of %g", stop.Passes)
		}
		p.Show(fmt.Sprintf("%s: pass %.1f%s, gap %s", t.Name, pt.Pass, budget, Cell(pt.Gap)))
	}
}

// Step counts a finished run.
func (p *Progress) Step() { p.done++ }

// finished counts a finished run of a trainer.
func (p *Progress) finished(t *Trainer) {
	t.onPoint = nil
	p.Step()
	p.Show(fmt.Sprintf("%s done at pass %.4g", t.Name, t.Passes()))
}

// Show says what the call is doing now.
func (p *Progress) Show(what string) {
	if !p.on {
		return
	}
	p.last = time.Now()
	output.UpdateHTML(p.id, fmt.Sprintf(`<div style="font-family:monospace;font-size:12px">%s: run %d of %d, %.0f s: %s</div>`,
		html.EscapeString(p.title), min(p.done+1, p.total), p.total, time.Since(p.start).Seconds(), html.EscapeString(what)))
}

// End replaces the line by a summary.
func (p *Progress) End() {
	if !p.on {
		return
	}
	output.UpdateHTML(p.id, "")
	how := ""
	if p.interrupted {
		how = fmt.Sprintf(" (interrupted: %d of %d finished)", p.done, p.total)
	}
	output.HTML(fmt.Sprintf(`<div style="font-family:monospace;font-size:12px;color:#555">%s: %d runs in %.1f s%s</div>`,
		html.EscapeString(p.title), p.done, time.Since(p.start).Seconds(), how))
	output.Sync()
}
