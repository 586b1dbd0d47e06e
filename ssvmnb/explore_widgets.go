package ssvmnb

import (
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/comms"
	"github.com/janpfeifer/gonb/gonbui/dom"
	"github.com/janpfeifer/gonb/gonbui/widgets"

	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/soft"
)

// The widgets of an exploration are a thin layer over its Explorer: each
// widget's values become events (Explorer.Send). GoNB's widgets talk to the
// kernel through its comms, which need a front end that runs JavaScript (a
// browser): a notebook executed headlessly (nbconvert) has none, and
// widgets.Slider's Done would wait for it forever. So the widgets are built
// on a goroutine of their own, after a probe of the front end (the run
// waits for its answer, then trains while they are built); without an
// answer they are left out and the run goes on with its scripted changes.
//
// No address of the widgets is ever unsubscribed while the program runs,
// for two defects of GoNB v0.11.4's comms: a value that reaches the
// program for an address nobody listens to leaves the dispatcher's lock
// held (every later value of every widget is then lost), and a
// subscription undone and redone at once (widgets.Button's Done, then its
// Listen) can reach the kernel as subscribe-then-unsubscribe, after which
// the kernel drops the button's clicks. So a button's address is listened
// to before the button is built (its Done's own listener comes and goes
// beside it), and the widgets' listeners stay subscribed after the
// exploration, discarding what they receive.

// probeTimeout is how long the widgets wait for the front end to answer
// (GoNB's kernel itself waits up to 3 s for the browser's connection),
// and the run with them.
const probeTimeout = 8 * time.Second

// control is one knob of the widgets: a slider over values or a select
// over options, and the event a position makes.
type control struct {
	name   string    // data-control, and the label
	values []float64 // a slider's values (nil: a select)
	labels []string  // a select's options
	at     int       // the position of the run's value
	event  func(pos int) Event
}

// controlsOf returns the knobs of the run's method.
func controlsOf(t *Trainer) []control {
	lambda := t.Lambda()
	grid := logGrid(lambda/1000, lambda*100, lambda)
	cs := []control{{name: "lambda", values: grid, at: slices.Index(grid, lambda),
		event: func(p int) Event { return SetLambda{grid[p]} }}}
	switch m := t.s.Method().(type) {
	case soft.BCFW:
		rg := logGrid(m.Rho/100, m.Rho*100, m.Rho)
		cs = append(cs, control{name: "rho", values: rg, at: slices.Index(rg, m.Rho),
			event: func(p int) Event { return SetRho{rg[p]} }})
	case solver.BCFW:
		if m.Cache != nil {
			f, nu := m.Cache.F, m.Cache.Nu
			fg := withValue(linGrid(0.05, 1, 0.05), f)
			ng := logGrid(1e-4, 1, nu)
			cs = append(cs,
				control{name: "cache F", values: fg, at: slices.Index(fg, f), event: func(p int) Event { return SetCache{F: fg[p]} }},
				control{name: "cache nu", values: ng, at: slices.Index(ng, nu), event: func(p int) Event { return SetCache{Nu: ng[p]} }})
		}
		samplings := []run.Sampling{run.Uniform, run.Permutation, run.GapSampling}
		steps := []solver.Step{solver.FWStep, solver.FWPredefined, solver.Pairwise, solver.Away}
		cs = append(cs,
			control{name: "sampling", labels: names(samplings), at: slices.Index(samplings, m.Sampling),
				event: func(p int) Event { return SetSampling{samplings[p]} }},
			control{name: "step", labels: names(steps), at: slices.Index(steps, m.Step),
				event: func(p int) Event { return SetStep{steps[p]} }})
	}
	return cs
}

func names[T fmt.Stringer](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.String()
	}
	return out
}

// logGrid returns the values 1, 2 and 5 times a power of ten in [lo, hi],
// and v, sorted: the positions of a log-scale slider.
func logGrid(lo, hi, v float64) []float64 {
	var g []float64
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for _, m := range []float64{1, 2, 5} {
			x, _ := strconv.ParseFloat(fmt.Sprintf("%ge%d", m, int(e)), 64)
			if x >= lo*(1-1e-9) && x <= hi*(1+1e-9) {
				g = append(g, x)
			}
		}
	}
	return withValue(g, v)
}

// linGrid returns lo, lo+step, ... up to hi.
func linGrid(lo, hi, step float64) []float64 {
	var g []float64
	for k := 0; ; k++ {
		x, _ := strconv.ParseFloat(fmt.Sprintf("%.10g", lo+float64(k)*step), 64)
		if x > hi*(1+1e-9) {
			return g
		}
		g = append(g, x)
	}
}

// withValue returns g with v inserted in order (unless present).
func withValue(g []float64, v float64) []float64 {
	i, found := slices.BinarySearch(g, v)
	if found {
		return g
	}
	return slices.Insert(g, i, v)
}

// controls is the widgets of one exploration.
type controls struct {
	x  *Explorer
	id string // the transient output holding them

	mu     sync.Mutex
	state  string // what became of them, for the summary
	closed bool
	labels chan [2]string // label updates: html id, text
	probed chan struct{}  // closed once the front end answered or not
}

// startControls shows the widgets of x in a notebook (nil elsewhere): a
// placeholder at once, above the chart, and the widgets once the front end
// answers.
func startControls(x *Explorer) *controls {
	if !gonbui.IsNotebook || !output.Active() {
		return nil
	}
	c := &controls{x: x, id: "fwstruct_controls_" + gonbui.UniqueId(), labels: make(chan [2]string, 64), probed: make(chan struct{})}
	if x.o.NoWidgets {
		c.state = "Widgets left out (NoWidgets)."
		close(c.probed)
		return c
	}
	if by := headlessExecutor(); by != "" {
		c.state = fmt.Sprintf("Widgets not shown: the notebook is executed by %s, without a browser.", by)
		close(c.probed)
		return c
	}
	c.state = fmt.Sprintf("Widgets not shown: the front end did not answer by the end (it has %s to; a notebook executed without a browser has none).", probeTimeout)
	gonbui.UpdateHTML(c.id, `<div style="font-family:sans-serif;font-size:12px;color:#555">connecting the widgets...</div>`)
	go c.build()
	return c
}

// waitProbe waits until the front end answered the probe or did not in
// time: the run trains after it, so that the front end's connection to the
// kernel is made while the cores are free (GoNB's gives up after 500 ms).
func (c *controls) waitProbe() {
	if c != nil {
		<-c.probed
	}
}

// summary says what became of the widgets.
func (c *controls) summary() string {
	if c == nil {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

// close removes the widgets (they would be dead in the saved notebook);
// what they still send is discarded.
func (c *controls) close() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	gonbui.UpdateHTML(c.id, "")
	gonbui.Sync()
}

// label asks for the text of the element id to become text (dropped when
// too many are pending: the next one of the same element follows).
func (c *controls) label(id, text string) {
	select {
	case c.labels <- [2]string{id, text}:
	default:
	}
}

// alive reports whether the exploration still runs.
func (c *controls) alive() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.closed
}

// listen forwards the values of a widget's address to fn until close, and
// discards them after it (the address stays subscribed: see above).
func (c *controls) listen(ch *comms.AddressChan[int], fn func(int)) {
	go func() {
		for v := range ch.C {
			if c.alive() {
				fn(v)
			}
		}
	}()
}

// build probes the front end, then builds the widgets and applies their
// label updates (one goroutine: gonbui/dom's transient JavaScript output
// is one per program).
func (c *controls) build() {
	answered := probeFrontEnd(probeTimeout)
	close(c.probed)
	if !answered {
		c.mu.Lock()
		c.state = fmt.Sprintf("Widgets not shown: the front end did not answer within %s (a notebook executed without a browser has none).", probeTimeout)
		if !c.closed {
			gonbui.UpdateHTML(c.id, "")
		}
		c.mu.Unlock()
		return
	}
	c.mu.Lock()
	c.state = "Widgets not shown in full: the front end stopped answering while they were built."
	c.mu.Unlock()
	uid := gonbui.UniqueId()
	root := "fwstruct-controls-" + uid
	gonbui.UpdateHTML(c.id, fmt.Sprintf(`<style>.fwstruct-explore-controls input[type=range] {width:180px; vertical-align:middle}</style>`+
		`<div id="%s" class="fwstruct-explore-controls" data-run="%s" style="font-family:sans-serif;font-size:13px;margin:4px 0;line-height:2"></div>`,
		root, html.EscapeString(c.x.t.Name)))
	for k, ctl := range controlsOf(c.x.t) {
		if !c.alive() {
			return
		}
		c.addControl(root, fmt.Sprintf("%s-%d", uid, k), ctl)
	}
	for _, b := range []struct {
		name  string
		event func(clicks int) Event
	}{
		{"pause", nil},
		{"fork", func(int) Event { return ForkAs{} }},
		{"save", func(int) Event { return SaveAs{} }},
		{"stop", func(int) Event { return StopExploring{} }},
	} {
		if !c.alive() {
			return
		}
		slot := fmt.Sprintf("fwstruct-button-%s-%s", b.name, uid)
		dom.Append(root, fmt.Sprintf(`<span class="fwstruct-control" data-control="%s" id="%s" style="margin-right:6px"></span>`, b.name, slot))
		w := widgets.Button(b.name)
		event := b.event
		if event == nil { // pause and continue, one button
			id := w.HtmlId()
			event = func(clicks int) Event {
				if clicks%2 == 1 {
					c.label(id, "continue")
					return Pause{}
				}
				c.label(id, "pause")
				return Continue{}
			}
		}
		// Listened to before Done (see above); the count 0 is the button's
		// creation, a click counts from 1.
		c.listen(comms.Listen[int](w.Address()), func(clicks int) {
			if clicks > 0 {
				c.x.Send(event(clicks))
			}
		})
		w.AppendTo(slot).Done()
	}
	c.mu.Lock()
	c.state = "Widgets shown while the run trained."
	c.mu.Unlock()
	for c.alive() {
		select {
		case l := <-c.labels:
			if c.alive() {
				dom.SetInnerText(l[0], l[1])
			}
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// addControl builds the slider or select of ctl in root.
func (c *controls) addControl(root, uid string, ctl control) {
	slot, label := "fwstruct-slot-"+uid, "fwstruct-value-"+uid
	if ctl.values != nil {
		vals, _ := json.Marshal(ctl.values)
		dom.Append(root, fmt.Sprintf(`<span class="fwstruct-control" data-control="%s" data-values="%s" style="margin-right:14px;white-space:nowrap">%s <span id="%s" class="fwstruct-control-value" style="font-family:monospace">%g</span> <span id="%s"></span></span>`,
			ctl.name, html.EscapeString(string(vals)), html.EscapeString(ctl.name), label, ctl.values[ctl.at], slot))
		w := widgets.Slider(0, len(ctl.values)-1, ctl.at).AppendTo(slot).Done()
		c.listen(w.Listen().LatestOnly(), func(p int) {
			if p < 0 || p >= len(ctl.values) {
				return
			}
			c.label(label, fmt.Sprintf("%g", ctl.values[p]))
			c.x.Send(ctl.event(p))
		})
		return
	}
	dom.Append(root, fmt.Sprintf(`<span class="fwstruct-control" data-control="%s" style="margin-right:14px;white-space:nowrap">%s <span id="%s"></span></span>`,
		ctl.name, html.EscapeString(ctl.name), slot))
	w := widgets.Select(ctl.labels).SetDefault(max(ctl.at, 0)).AppendTo(slot).Done()
	c.listen(w.Listen().LatestOnly(), func(p int) {
		if p >= 0 && p < len(ctl.labels) {
			c.x.Send(ctl.event(p))
		}
	})
}

// headlessExecutor names the program that executes the notebook without a
// browser (nbconvert, nbclient, papermill: the process that started the
// kernel, $JPY_PARENT_PID), "" when there is none or it cannot tell;
// $FWSTRUCT_WIDGETS=off says so explicitly, =on that there is a browser.
// Its comms must not even be tried there: GoNB's kernel then leaves the
// script that would connect them in the saved notebook.
func headlessExecutor() string {
	switch os.Getenv("FWSTRUCT_WIDGETS") {
	case "off":
		return "a program that set FWSTRUCT_WIDGETS=off"
	case "on":
		return ""
	}
	pid := os.Getenv("JPY_PARENT_PID")
	if pid == "" {
		return ""
	}
	b, err := os.ReadFile(filepath.Join("/proc", pid, "cmdline"))
	if err != nil {
		return ""
	}
	cmd := strings.ReplaceAll(string(b), "\x00", " ")
	for _, name := range []string{"nbconvert", "nbclient", "papermill"} {
		if strings.Contains(cmd, name) {
			return name
		}
	}
	return ""
}

// probeFrontEnd reports whether the notebook's front end runs GoNB's
// JavaScript comms: a script shown in the cell sends a value back within
// timeout.
//
// It asks again, on a new address, every probeRetry: GoNB's front-end
// connection gives up when the kernel's acknowledgement takes more than
// 500 ms (a busy browser: the run trains on every core meanwhile), and
// only a later subscription makes the kernel find it dead (its heartbeat)
// and install it anew. The probes' addresses stay subscribed, as the
// widgets' (see above); without a front end, unsubscribing would also make
// GoNB's kernel wait for the front end once more before it shows the
// cell's next output.
func probeFrontEnd(timeout time.Duration) bool {
	answered := make(chan struct{}, 1)
	end := time.Now().Add(timeout)
	for {
		addr := "/fwstruct/probe/" + gonbui.UniqueId()
		ch := comms.Listen[int](addr).WithBuffer(1)
		go func() {
			if _, ok := <-ch.C; ok {
				select {
				case answered <- struct{}{}:
				default:
				}
			}
		}()
		dom.TransientJavascript(fmt.Sprintf(`(() => {
	let tries = 0;
	const send = () => {
		const c = globalThis.gonb_comm;
		if (c) { c.send(%q, 1); return; }
		if (++tries < %d) { setTimeout(send, 100); }
	};
	send();
})();`, addr, probeRetry/(100*time.Millisecond)))
		wait, last := probeRetry, false
		if left := time.Until(end); left < 2*probeRetry {
			wait, last = left, true // no whole retry fits after this one
		}
		select {
		case <-answered:
			return true
		case <-time.After(wait):
			if last {
				return false
			}
		}
	}
}

// probeRetry is how long a probe of the front end waits before it asks
// again (more than GoNB's 1 s after which the kernel checks its connection
// with a heartbeat, and its 500 ms heartbeat).
const probeRetry = 2500 * time.Millisecond
