package ssvmnb

import (
	"math"
	"testing"

	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/viz"
)

// TestKeepRun: a kept run comes back equal, NaN fields included, a second
// keep replaces it, ForgetAll forgets it, and bad or unknown names are
// errors.
func TestKeepRun(t *testing.T) {
	isolated(t)
	p := run.Blank()
	p.Pass, p.Seconds, p.Primal, p.TestLoss, p.Event = 2, 0.5, 0.42, 0.2, "fork"
	r := viz.Run{Name: "LP-hard BCFW", Trace: []run.Point{run.Blank(), p}}
	if err := KeepRun(r); err != nil {
		t.Fatal(err)
	}
	got, err := KeptRun("LP-hard BCFW")
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != r.Name || len(got.Trace) != 2 || got.Trace[1].Primal != 0.42 || got.Trace[1].Event != "fork" ||
		!math.IsNaN(got.Trace[0].Primal) || !math.IsNaN(got.Trace[1].Dual) {
		t.Fatalf("kept %+v, got back %+v", r, got)
	}
	r.Trace = r.Trace[:1]
	if err := KeepRun(r); err != nil {
		t.Fatal(err)
	}
	if got, err := KeptRun(r.Name); err != nil || len(got.Trace) != 1 {
		t.Fatalf("after a second keep: %d points, %v", len(got.Trace), err)
	}
	for _, name := range []string{"other", "a/b", ""} {
		if _, err := KeptRun(name); err == nil {
			t.Errorf("KeptRun(%q) found a run", name)
		}
	}
	if err := KeepRun(viz.Run{Name: "a/b"}); err == nil {
		t.Error("kept a run named a/b")
	}
	if err := ForgetAll(); err != nil {
		t.Fatal(err)
	}
	if _, err := KeptRun(r.Name); err == nil {
		t.Fatal("a kept run survived ForgetAll")
	}
}

// TestRestyle: series named after a method, alone or with a suffix, take
// the method's color, the longest method winning; others keep theirs.
func TestRestyle(t *testing.T) {
	isolated(t)
	a, b := StyleOf("soft rho=1"), StyleOf("soft rho=10")
	if a.Color == b.Color {
		t.Fatal("two methods share a color")
	}
	f := &viz.Figure{Series: []viz.Series{
		{Name: "soft rho=10 g_rho", Color: "#000000"},
		{Name: "soft rho=1 g", Color: "#000000"},
		{Name: "soft rho=1"},
		{Name: "soft rho=100", Color: "#123456"},
		{Name: "g*", Color: "#654321"},
	}}
	Restyle(f, "soft rho=1", "soft rho=10")
	for k, want := range []string{b.Color, a.Color, a.Color, "#123456", "#654321"} {
		if f.Series[k].Color != want {
			t.Errorf("series %q: color %s, want %s", f.Series[k].Name, f.Series[k].Color, want)
		}
	}
}
