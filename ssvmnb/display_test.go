package ssvmnb

import (
	"context"
	"html"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/viz"
)

// TestShowInteractiveSharesTheLibrary: several figures go into one iframe
// with one copy of ECharts; a figure without data becomes a note.
func TestShowInteractiveSharesTheLibrary(t *testing.T) {
	isolated(t)
	rec := record(t)
	tr, te := synthetic(t)
	a, _ := New("a", NewData("test", tr, te), solver.BCFW{Lambda: 0.01, GapEvery: 1})
	a.Live = false
	Must(a.Run(3))
	empty := HitRates(a) // a has no cache
	Check(ShowInteractive(Gaps(viz.Passes, a), Objectives(viz.Passes, a), empty))
	if len(rec.html) != 2 || !strings.Contains(rec.html[0], "fwstruct-omitted") {
		t.Fatalf("outputs %d: %.200q", len(rec.html), rec.html)
	}
	page := html.UnescapeString(rec.html[1])
	if strings.Count(page, `class="fwstruct-chart"`) != 2 || strings.Count(page, "<iframe") != 1 {
		t.Fatalf("want one iframe with two charts")
	}
	if inline, _ := viz.EChartsSource(); inline && strings.Count(page, viz.InlineMarker) != 1 {
		t.Fatalf("%d copies of ECharts", strings.Count(page, viz.InlineMarker))
	}
}

// TestProgressLines: long calls show a transient progress line naming the
// run and its pass, and leave a summary.
func TestProgressLines(t *testing.T) {
	isolated(t)
	rec := record(t)
	tr, te := synthetic(t)
	if _, err := CacheSweep(solver.BCFW{Lambda: 0.01, GapEvery: 1}, []float64{0.25}, []float64{0.01, float64(tr.Len())}, run.Stop{Passes: 3}, 0.1).Run(context.Background(), NewData("test", tr, te)); err != nil {
		t.Fatal(err)
	}
	var running bool
	for _, u := range rec.updates {
		running = running || strings.Contains(u, "sweep over F x nu: run 2 of 2") && strings.Contains(u, "F=0.25 nu=n")
	}
	if !running || rec.updates[len(rec.updates)-1] != "" || !strings.Contains(rec.html[len(rec.html)-1], "sweep over F x nu: 2 runs in") {
		t.Fatalf("progress updates %q, last output %q", rec.updates, rec.html[len(rec.html)-1])
	}
}
