package ssvmnb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/soft"
)

// Exploration says how long Explore trains, which changes it makes on its
// own (Script) and where its Save button writes.
type Exploration struct {
	// Passes is the budget of the exploration: it stops once the run has
	// made Passes more effective passes than when it started (as Run,
	// up to one pass short when a gap pass falls due). Zero: no budget of
	// passes.
	Passes float64
	// Duration bounds the wall-clock time of the exploration, pauses
	// included (zero: none). At least one of Passes and Duration must be
	// set.
	Duration time.Duration
	// Script holds changes applied when the run reaches a pass, through
	// the same path as the widgets' (Explorer.Send): what a notebook run
	// without a browser shows, and a reproducible record of an
	// exploration.
	Script []Scripted
	// SaveTo is the file the Save button (and a SaveAs event without a
	// path) writes; empty: NAME.trainer in the notebook's session folder.
	// LoadTrainer reads it back.
	SaveTo string
	// NoWidgets leaves the widgets out (the scripted changes still run).
	NoWidgets bool
}

// Scripted is a change of an exploration's Script: Event is applied once
// the run has made After passes of the exploration.
type Scripted struct {
	After float64
	Event Event
}

// Event is a change the user (a widget), a script or the program asks of
// an exploration: SetLambda, SetRho, SetCache, SetSampling, SetStep,
// Pause, Continue, ForkAs, SaveAs, StopExploring. Explore applies it at
// the run's next block step (the run's loop checks for it every few block
// steps, at most 256), through the trainer's SetLambda, Change, Fork and
// Save.
type Event interface {
	fmt.Stringer
	// kind groups the events of which only the last of a burst matters
	// (a slider dragged: its positions while the run could not take them);
	// "" for those that all count.
	kind() string
}

// SetLambda changes the run's lambda (Trainer.SetLambda).
type SetLambda struct{ Lambda float64 }

// SetRho changes the penalty rho of a soft-constraint run (soft.BCFW,
// through Trainer.Change).
type SetRho struct{ Rho float64 }

// SetCache changes the factors of the gap-based cache of a BCFW run that
// has one (solver.Cache; a zero factor keeps the run's).
type SetCache struct{ F, Nu float64 }

// SetSampling changes the sampling of a BCFW or soft run (the soft solver
// refuses it, saying why).
type SetSampling struct{ Sampling run.Sampling }

// SetStep changes the step of a BCFW run (solver.Step; from Frank-Wolfe
// steps to pairwise or away steps is refused, saying why).
type SetStep struct{ Step solver.Step }

// Pause stops training until Continue (or the end of the exploration).
type Pause struct{}

// Continue resumes training after Pause.
type Continue struct{}

// ForkAs forks the run under Name (Trainer.Fork with the run's method; empty:
// "NAME fork k"); the exploration goes on with the run itself, the fork
// keeps its state at the pass of the fork.
type ForkAs struct{ Name string }

// SaveAs saves the run to Path (empty: Exploration.SaveTo), which
// LoadTrainer reads back.
type SaveAs struct{ Path string }

// StopExploring ends the exploration.
type StopExploring struct{}

func (e SetLambda) String() string { return fmt.Sprintf("lambda = %g", e.Lambda) }
func (e SetRho) String() string    { return fmt.Sprintf("rho = %g", e.Rho) }
func (e SetCache) String() string {
	var parts []string
	if e.F > 0 {
		parts = append(parts, fmt.Sprintf("F = %g", e.F))
	}
	if e.Nu > 0 {
		parts = append(parts, fmt.Sprintf("nu = %g", e.Nu))
	}
	return strings.TrimSpace("cache " + strings.Join(parts, ", "))
}
func (e SetSampling) String() string { return "sampling " + e.Sampling.String() }
func (e SetStep) String() string     { return "step " + e.Step.String() }
func (Pause) String() string         { return "pause" }
func (Continue) String() string      { return "continue" }
func (e ForkAs) String() string      { return strings.TrimSpace("fork " + e.Name) }
func (e SaveAs) String() string      { return strings.TrimSpace("save " + e.Path) }
func (StopExploring) String() string { return "stop" }

func (SetLambda) kind() string     { return "lambda" }
func (SetRho) kind() string        { return "rho" }
func (SetCache) kind() string      { return "cache" }
func (SetSampling) kind() string   { return "sampling" }
func (SetStep) kind() string       { return "step" }
func (Pause) kind() string         { return "" }
func (Continue) kind() string      { return "" }
func (ForkAs) kind() string        { return "" }
func (SaveAs) kind() string        { return "" }
func (StopExploring) kind() string { return "" }

// Applied is an event an exploration applied: where, and what it left in
// the trace.
type Applied struct {
	// Event is what was asked (Event.String).
	Event string
	// Pass and Steps are the run's when it was applied.
	Pass  float64
	Steps int64
	// Marks are the events of the trace points the change recorded (the
	// marks of the figures, "lambda 0.01 -> 0.001"); none for
	// Pause, Continue, ForkAs and SaveAs, and for a value the run already
	// has.
	Marks []string
	// Fork is the name of the trainer ForkAs made, File the file SaveAs
	// wrote.
	Fork, File string
	// Unchanged is true for a value the run already had (nothing to do).
	Unchanged bool
	// Err says why the change was not made ("" when it was).
	Err string
}

// Explorer drives an exploration (Trainer.Explore): it trains its run and
// applies the events sent to it between block steps.
type Explorer struct {
	t *Trainer
	o Exploration

	mu     sync.Mutex
	queue  []Event
	cancel context.CancelFunc // of the running segment, nil between them
	poked  bool               // an event canceled the running segment
	wake   chan struct{}      // an event arrived (buffered: 1)
	closed bool               // the exploration ended: Send ignores events

	paused, stopped bool
	start           float64 // the run's passes when the exploration started
	applied         []Applied
	forks           []*Trainer
	view            *exploreView
}

// Explore keeps training t while the user changes its knobs with widgets
// in the cell (in a notebook whose front end answers; GoNB's
// gonbui/widgets): lambda on a log scale, rho for a soft-constraint run,
// the cache factors F and nu of a BCFW run with a cache, the sampling and
// the step of a BCFW run, and buttons to pause and continue, fork, save
// and stop. Each change is applied at the run's next block step through
// t's SetLambda, Change, Fork and saving, so that it is recorded in the
// trace and drawn as a mark, exactly as the same call in a cell would;
// a change the method cannot make is reported, and the run goes on. The
// scripted changes of o (Exploration.Script) are applied the same way, so
// that a notebook run without a browser shows them. A chart, redrawn in
// place while the run trains, shows the progress, the run's lambda and
// the marks of its trace; at the end it is replaced by the final figure and
// the table of the changes applied.
//
// Explore returns when the budget of o is spent, the Stop button is
// pressed or a StopExploring event is sent; its Explorer holds what was
// applied (Applied) and the forks made (Forks). The session is saved after
// every change and at the end.
func (t *Trainer) Explore(o Exploration) (*Explorer, error) {
	x, err := t.explorer(o)
	if err != nil {
		return nil, err
	}
	x.view = newExploreView(x)
	c := startControls(x)
	c.waitProbe()
	err = x.run(context.Background())
	x.view.finish(c.summary())
	c.close()
	return x, err
}

// explorer returns the controller of an exploration of t under o.
func (t *Trainer) explorer(o Exploration) (*Explorer, error) {
	if !(o.Passes > 0) && !(o.Duration > 0) {
		return nil, fmt.Errorf("ssvmnb: %s: Explore needs a budget: Passes or Duration", t.Name)
	}
	if math.IsInf(o.Passes, 0) || math.IsNaN(o.Passes) {
		return nil, fmt.Errorf("ssvmnb: %s: Explore: passes must be finite, got %v", t.Name, o.Passes)
	}
	for _, s := range o.Script {
		if s.Event == nil || !(s.After >= 0) {
			return nil, fmt.Errorf("ssvmnb: %s: Explore: a scripted change needs an event and After >= 0, got %+v", t.Name, s)
		}
	}
	o.Script = slices.Clone(o.Script)
	slices.SortStableFunc(o.Script, func(a, b Scripted) int {
		switch {
		case a.After < b.After:
			return -1
		case a.After > b.After:
			return 1
		}
		return 0
	})
	return &Explorer{t: t, o: o, wake: make(chan struct{}, 1)}, nil
}

// Send asks the exploration for a change; it may be called from any
// goroutine (a widget's). The change is applied at the next block step;
// of several changes of one knob sent while the run could not take them,
// the last is applied. After the exploration, Send does nothing.
func (x *Explorer) Send(e Event) {
	if e == nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return
	}
	x.queue = append(x.queue, e)
	if x.cancel != nil {
		x.cancel()
		x.poked = true
	}
	select {
	case x.wake <- struct{}{}:
	default:
	}
}

// Applied returns the events applied so far, in order.
func (x *Explorer) Applied() []Applied {
	x.mu.Lock()
	defer x.mu.Unlock()
	return slices.Clone(x.applied)
}

// Forks returns the trainers the exploration forked, in order.
func (x *Explorer) Forks() []*Trainer {
	x.mu.Lock()
	defer x.mu.Unlock()
	return slices.Clone(x.forks)
}

// run trains until the budget is spent, ctx is canceled or the
// exploration is stopped, applying the events between block steps.
func (x *Explorer) run(ctx context.Context) error {
	t := x.t
	prev := t.onPoint
	explorations.Store(t, true) // the exploration's own view redraws the chart
	t.onPoint = func(p run.Point) {
		if prev != nil {
			prev(p)
		}
		x.view.update(false)
	}
	defer func() {
		t.onPoint = prev
		explorations.Delete(t)
		x.mu.Lock()
		x.closed = true
		x.mu.Unlock()
	}()
	x.start = t.Passes()
	var deadline time.Time
	if x.o.Duration > 0 {
		deadline = time.Now().Add(x.o.Duration)
	}
	script := x.o.Script
	for {
		for len(script) > 0 && t.Passes() >= x.start+script[0].After-1e-9 {
			x.apply(script[0].Event)
			script = script[1:]
		}
		x.drain()
		spent := x.o.Passes > 0 && t.Passes() >= x.start+x.o.Passes-1e-9
		late := !deadline.IsZero() && !time.Now().Before(deadline)
		if x.stopped || spent || late || ctx.Err() != nil {
			break
		}
		if x.paused {
			x.view.update(true)
			x.waitEvent(ctx, deadline)
			continue
		}
		stop, toScript := x.segment(script, deadline)
		seg, cancel := context.WithCancel(ctx)
		x.mu.Lock()
		x.cancel, x.poked = cancel, len(x.queue) > 0
		if x.poked {
			cancel()
		}
		x.mu.Unlock()
		st, err := t.RunUntil(seg, stop)
		x.mu.Lock()
		x.cancel = nil
		poked := x.poked
		x.mu.Unlock()
		cancel()
		if err != nil {
			return err
		}
		if st == run.StatusCanceled && !poked {
			break // canceled by no event of ours: ctx, or an interrupt of the run
		}
		if st == run.StatusPasses {
			// The run stopped at its budget, up to a pass short of it when a
			// gap pass fell due: the budget is spent, or the scripted change
			// is due (the run cannot get closer to it).
			if !toScript {
				break
			}
			x.apply(script[0].Event)
			script = script[1:]
		}
	}
	return t.save()
}

// explorations holds the trainers being explored, whose runs draw no live
// chart of their own (startLive): the exploration's view draws it.
var explorations sync.Map

// exploring reports whether t is being explored.
func exploring(t *Trainer) bool {
	_, ok := explorations.Load(t)
	return ok
}

// segment returns the stop of the next stretch of training: the budget,
// the next scripted change (toScript: it comes first) and the deadline.
func (x *Explorer) segment(script []Scripted, deadline time.Time) (stop run.Stop, toScript bool) {
	if x.o.Passes > 0 {
		stop.Passes = x.start + x.o.Passes
	}
	if len(script) > 0 {
		if at := x.start + script[0].After; stop.Passes == 0 || at < stop.Passes {
			stop.Passes, toScript = at, true
		}
	}
	if !deadline.IsZero() {
		stop.Duration = max(time.Until(deadline), time.Millisecond)
	}
	return stop, toScript
}

// waitEvent waits for an event, the deadline or the end of ctx.
func (x *Explorer) waitEvent(ctx context.Context, deadline time.Time) {
	var timeout <-chan time.Time
	if !deadline.IsZero() {
		timer := time.NewTimer(time.Until(deadline))
		defer timer.Stop()
		timeout = timer.C
	}
	select {
	case <-x.wake:
	case <-timeout:
	case <-ctx.Done():
	}
}

// drain applies the events sent so far, in order, the last of each burst
// of one knob only.
func (x *Explorer) drain() {
	x.mu.Lock()
	q := x.queue
	x.queue = nil
	x.mu.Unlock()
	for i, e := range q {
		if k := e.kind(); k != "" && i+1 < len(q) && q[i+1].kind() == k {
			continue // superseded by the next one
		}
		x.apply(e)
	}
}

// apply applies e now and records what it did.
func (x *Explorer) apply(e Event) {
	t := x.t
	before := len(t.Trace())
	a := Applied{Event: e.String(), Pass: t.Passes(), Steps: t.s.Steps()}
	if err := x.change(e, &a); err != nil {
		a.Err = err.Error()
	}
	tr := t.Trace()
	for _, p := range tr[min(before, len(tr)):] {
		if p.Event != "" {
			a.Marks = append(a.Marks, p.Event)
		}
	}
	a.Unchanged = e.kind() != "" && a.Err == "" && len(a.Marks) == 0
	x.mu.Lock()
	x.applied = append(x.applied, a)
	x.mu.Unlock()
	x.view.update(true)
}

// errNotHere is the error of a change the run's method has no knob for.
var errNotHere = errors.New("the run's method has no such knob")

// change makes the change e asks for.
func (x *Explorer) change(e Event, a *Applied) error {
	t := x.t
	m := t.s.Method()
	switch e := e.(type) {
	case SetLambda:
		if e.Lambda == t.Lambda() {
			return nil
		}
		return t.SetLambda(e.Lambda)
	case SetRho:
		sm, ok := m.(soft.BCFW)
		if !ok {
			return fmt.Errorf("rho: %w (%s; rho is the soft solver's)", errNotHere, m.Name())
		}
		sm.Rho = e.Rho
		return x.switchTo(m, sm)
	case SetCache:
		bm, ok := m.(solver.BCFW)
		if !ok || bm.Cache == nil {
			return fmt.Errorf("cache: %w (%s without a cache)", errNotHere, m.Name())
		}
		c := *bm.Cache
		if e.F > 0 {
			c.F = e.F
		}
		if e.Nu > 0 {
			c.Nu = e.Nu
		}
		if c == *bm.Cache {
			return nil
		}
		bm.Cache = &c
		return t.Change(bm)
	case SetSampling:
		switch mm := m.(type) {
		case solver.BCFW:
			mm.Sampling = e.Sampling
			return x.switchTo(m, mm)
		case soft.BCFW:
			mm.Sampling = e.Sampling
			return x.switchTo(m, mm)
		}
		return fmt.Errorf("sampling: %w (%s)", errNotHere, m.Name())
	case SetStep:
		bm, ok := m.(solver.BCFW)
		if !ok {
			return fmt.Errorf("step: %w (%s)", errNotHere, m.Name())
		}
		bm.Step = e.Step
		return x.switchTo(m, bm)
	case Pause:
		x.paused = true
	case Continue:
		x.paused = false
	case ForkAs:
		name := e.Name
		if name == "" {
			name = fmt.Sprintf("%s fork %d", t.Name, len(x.Forks())+1)
		}
		f, err := t.Fork(name, nil)
		if err != nil {
			return err
		}
		a.Fork = f.Name
		x.mu.Lock()
		x.forks = append(x.forks, f)
		x.mu.Unlock()
	case SaveAs:
		path, err := x.savePath(e.Path)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := t.saveFile(path); err != nil {
			return err
		}
		a.File = path
	case StopExploring:
		x.stopped = true
	default:
		return fmt.Errorf("unknown event %T", e)
	}
	return nil
}

// switchTo changes the run from its method old to m, unless they are the
// same (nothing to do).
func (x *Explorer) switchTo(old, m run.Method) error {
	if run.Same(old, m) {
		return nil
	}
	return x.t.Change(m)
}

// savePath returns the file a SaveAs event writes.
func (x *Explorer) savePath(path string) (string, error) {
	switch {
	case path != "":
		return path, nil
	case x.o.SaveTo != "":
		return x.o.SaveTo, nil
	}
	if !plainName(x.t.Name) {
		return "", fmt.Errorf("save: the run's name %q cannot name a file: set Exploration.SaveTo", x.t.Name)
	}
	dir, err := sessionFolder()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, x.t.Name+".trainer"), nil
}
