package ssvmnb

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/internal/gendata"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/tune"
)

// TestTune tunes BCFW on emotions-like data from a notebook cell: the
// progress line, the validation table with the chosen row and the figure
// are shown, a note says when the raw features are too large for the
// grid, and hand-made data is refused with a reason.
func TestTune(t *testing.T) {
	notes := isolated(t)
	r := record(t)
	train, err := gendata.Emotions(t.TempDir(), "emotions", 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, scaling := range []datasets.Scaling{datasets.ScaleNone, datasets.ScaleStandardize} {
		notes.Reset()
		r.html, r.pngs, r.updates = nil, nil, nil
		data := Must(Load(train, datasets.Options{Scaling: scaling}))
		res, err := Tune(context.Background(), data, solver.BCFW{GapEvery: 5, Seed: 1},
			tune.Config{Lambdas: []float64{0.01, 0.001}, Folds: 2, Stop: run.Stop{Passes: 3}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Curve) != 2 || res.Final == nil {
			t.Fatalf("%v: %d points, final %v", scaling, len(res.Curve), res.Final)
		}
		table := strings.Join(r.html, "\n")
		if !strings.Contains(table, "&lt;- chosen") || len(r.pngs) != 1 || len(r.updates) == 0 {
			t.Errorf("%v: shown %d HTML blocks (table with the chosen row: %v), %d figures, %d progress updates", scaling, len(r.html), strings.Contains(table, "&lt;- chosen"), len(r.pngs), len(r.updates))
		}
		// The conditioning note is shown in the cell once (not at the
		// chosen lambda again, not on stderr too), with the Load call
		// that fixes it, the options given kept.
		shown := strings.Join(r.html, "\n")
		ill := strings.Count(shown, "ill-conditioned training")
		if ill != map[bool]int{true: 1, false: 0}[scaling == datasets.ScaleNone] || notes.Len() != 0 ||
			(ill > 0 && !strings.Contains(shown, "datasets.Options{Scaling: datasets.ScaleStandardize}")) {
			t.Errorf("%v: %d conditioning notes, stderr %q: %s", scaling, ill, notes.String(), shown)
		}
		// A grid of two lambdas: the chosen one is at an edge, which the
		// cell says (issue 34 item 7).
		edge := fmt.Sprintf("the chosen lambda %.4g is the %s of the grid", res.Chosen().Lambda, res.Edge())
		if res.Edge() == "" || strings.Count(shown, edge) != 1 {
			t.Errorf("%v: chosen lambda %v of %v, edge %q: the cell does not say it once (%q): %s", scaling, res.Chosen().Lambda, []float64{0.01, 0.001}, res.Edge(), edge, shown)
		}
	}
	syn, tst := synthetic(t)
	if _, err := Tune(context.Background(), NewData("by hand", syn, tst), solver.BCFW{}, tune.Config{}); err == nil || !strings.Contains(err.Error(), "data loaded by ssvmnb.Load") {
		t.Errorf("hand-made data: %v", err)
	}
}

// TestAuxEdge: the chosen rho (or gamma) at an end of its grid is said,
// inside it or with one value not.
func TestAuxEdge(t *testing.T) {
	curve := []tune.Point{{Lambda: 1, Aux: 0.1}, {Lambda: 0.1, Aux: 0.1}, {Lambda: 1, Aux: 1}, {Lambda: 1, Aux: 10}}
	for _, tc := range []struct {
		name string
		res  tune.Result
		want string
	}{
		{"smallest rho", tune.Result{Aux: "rho", Curve: curve, Best: 1}, "smallest"},
		{"middle rho", tune.Result{Aux: "rho", Curve: curve, Best: 2}, ""},
		{"largest rho", tune.Result{Aux: "rho", Curve: curve, Best: 3}, "largest"},
		{"one rho", tune.Result{Aux: "rho", Curve: curve[:2], Best: 0}, ""},
		{"no aux", tune.Result{Curve: []tune.Point{{Lambda: 1}, {Lambda: 0.1}}, Best: 1}, ""},
	} {
		if got := auxEdge(&tc.res); got != tc.want {
			t.Errorf("%s: auxEdge = %q, want %q", tc.name, got, tc.want)
		}
	}
}
