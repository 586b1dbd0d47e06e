package ssvmnb

import (
	"fmt"
	"html"
	"io"
	"os"
	"sync/atomic"
)

// Must returns v, or panics with err: the one-line form of a call that
// returns a value and an error, for notebook cells, e.g.
//
//	ocr := ssvmnb.Must(ssvmnb.Load("ocr"))
func Must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Check panics with err unless it is nil: the one-line form of a call that
// returns only an error, e.g. ssvmnb.Check(ssvmnb.Show(fig)).
func Check(err error) {
	if err != nil {
		panic(err)
	}
}

// Notes is where notes that must not go unnoticed (a data fallback, a
// resumed fork) are written outside a notebook; nil writes none. In a
// notebook they are shown in the cell, and only there: GoNB shows a
// cell program's stderr in the cell too, which would show them twice.
var Notes io.Writer = os.Stderr

// note shows msg in the notebook as a highlighted box, or elsewhere
// writes it to Notes.
func note(msg string) {
	if output.Active() {
		displayHTML(noteHTML("note", msg))
		return
	}
	if Notes != nil {
		fmt.Fprintln(Notes, "ssvmnb: "+msg)
	}
}

// noteOnce is note for a note that every run of a call may make (the
// conditioning of the data, for each seed of Seeds, before and after
// Tune): the first call with a given flag shows it and sets the flag (a
// flag of the value the note is about, so that a value freed and another
// allocated in its place is noted again).
func noteOnce(shown *atomic.Bool, msg string) {
	if !shown.Swap(true) {
		note(msg)
	}
}

// noteHTML renders a note; class is "note" or "omitted" (a figure not
// drawn), the latter marked so that a notebook check does not take it for
// a figure.
func noteHTML(class, msg string) string {
	return fmt.Sprintf(`<div class="fwstruct-%s" style="border-left:4px solid #d62728;background:#fff4f4;padding:6px 10px;margin:4px 0;font-family:sans-serif;font-size:13px">%s</div>`,
		class, html.EscapeString(msg))
}

// inform shows msg in the notebook as a plain line (what a call did, e.g.
// the bytes ForgetAll freed), or elsewhere writes it to Notes.
func inform(msg string) {
	if !output.Active() {
		if Notes != nil {
			fmt.Fprintln(Notes, "ssvmnb: "+msg)
		}
		return
	}
	displayHTML(fmt.Sprintf(`<div class="fwstruct-info" style="font-family:monospace;font-size:12px;color:#555">%s</div>`, html.EscapeString(msg)))
}
