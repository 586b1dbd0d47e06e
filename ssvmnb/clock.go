package ssvmnb

import (
	"math"
	"time"

	"github.com/fwstruct/fwstruct/solver/run"
)

// wallClock is the wall-clock time of a trainer's runs: the time its Run
// and RunUntil calls took, the exact evaluations included (the gap passes,
// test losses, the final evaluation) and the trainer's own displays (live
// charts) left out, and its value at every trace point they made. Solver
// time (run.Point.Seconds) leaves the exact evaluations out; this is what
// the run cost in all, the gap passes included, which the workers
// parallelize too (SpeedupTable). It is saved with the trainer, and a fork
// starts from a copy of its parent's.
type wallClock struct {
	// Total is the seconds of the runs so far.
	Total float64
	// Marks holds the clock at the trace points the runs made, in order.
	Marks []wallMark
}

// wallMark is the clock at one trace point, which its Steps and Seconds
// identify in the trace.
type wallMark struct {
	Steps   int64
	Seconds float64
	Wall    float64
}

// copy returns a copy that shares no storage with c.
func (c *wallClock) copy() wallClock {
	return wallClock{Total: c.Total, Marks: append([]wallMark(nil), c.Marks...)}
}

// at returns the clock at trace point p: NaN when no run of the trainer
// (or of the run it was forked from) made p or a point at the same step
// and solver time (a fork's first point shares the clock of its parent's
// last), e.g. an evaluation outside Run (Current) after more steps.
func (c *wallClock) at(p run.Point) float64 {
	for _, m := range c.Marks {
		if m.Steps == p.Steps && m.Seconds == p.Seconds {
			return m.Wall
		}
	}
	return math.NaN()
}

// runTimer times one RunUntil call on a clock.
type runTimer struct {
	c      *wallClock
	base   float64       // the clock when the call started
	start  time.Time     // when it started
	paused time.Duration // time spent in displays, left out
	done   bool
}

// start starts timing a run on c.
func (c *wallClock) start() *runTimer {
	return &runTimer{c: c, base: c.Total, start: time.Now()}
}

// now returns the clock.
func (r *runTimer) now() float64 {
	return r.base + (time.Since(r.start) - r.paused).Seconds()
}

// mark records the clock at trace point p.
func (r *runTimer) mark(p run.Point) {
	r.c.Marks = append(r.c.Marks, wallMark{Steps: p.Steps, Seconds: p.Seconds, Wall: r.now()})
}

// pause leaves the time until the returned function is called out of the
// clock (defer r.pause()()).
func (r *runTimer) pause() func() {
	t0 := time.Now()
	return func() { r.paused += time.Since(t0) }
}

// stop ends the run's timing (again: nothing).
func (r *runTimer) stop() {
	if !r.done {
		r.done = true
		r.c.Total = r.now()
	}
}
