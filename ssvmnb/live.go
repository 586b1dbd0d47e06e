package ssvmnb

import (
	"fmt"
	"time"

	"github.com/fwstruct/fwstruct/viz"
)

// liveChart is a transient chart redrawn in place while a run works, at
// most every `every`, and replaced by a static figure when it ends. It
// knows nothing of the run but how to caption and draw it.
type liveChart struct {
	on      bool
	id      string
	every   time.Duration
	last    time.Time
	caption func() string
	figure  func() *viz.Figure
}

func newLiveChart(live bool, every time.Duration, caption func() string, figure func() *viz.Figure) *liveChart {
	c := &liveChart{on: live && Output.Active(), every: every, caption: caption, figure: figure}
	if c.every == 0 {
		c.every = 500 * time.Millisecond
	}
	if c.on {
		c.id = Output.NewID()
	}
	return c
}

func (c *liveChart) update() {
	if !c.on || time.Since(c.last) < c.every {
		return
	}
	c.last = time.Now()
	if png, err := renderPNG(c.figure()); err == nil {
		Output.UpdateHTML(c.id, fmt.Sprintf("<div>%s</div>%s", c.caption(), imgTag(png)))
	}
}

func (c *liveChart) finish() {
	if !c.on {
		return
	}
	Output.UpdateHTML(c.id, "")
	if png, err := renderPNG(c.figure()); err == nil {
		Output.PNG(png)
	}
	Output.Sync()
}
