package ssvmnb

import (
	"math"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/viz"
)

func TestOrder(t *testing.T) {
	nan := math.NaN()
	b := viz.Series{Name: "b", X: []float64{0, 10, 20}, Y: []float64{1, 0.5, 0.3}}
	for _, tc := range []struct {
		name            string
		a               viz.Series
		compared, below int
		since, from, to float64
		always, never   bool
		wantString      string
	}{
		{"always below", viz.Series{Name: "a", X: []float64{5, 10, 15}, Y: []float64{0.5, 0.4, 0.3}}, 3, 3, 5, 5, 15, true, false, "a below b at 3 of 3 points, x from 5 to 15"},
		{"never below", viz.Series{Name: "a", X: []float64{0, 20}, Y: []float64{1.5, 0.4}}, 2, 0, nan, 0, 20, false, true, "a below b at 0 of 2 points"},
		{"level start left out", viz.Series{Name: "a", X: []float64{0, 10, 20}, Y: []float64{1, 0.4, 0.2}}, 2, 2, 10, 10, 20, true, false, "a below b at 2 of 2 points, x from 10 to 20 (level at 1 more)"},
		// b interpolated: 0.75 at 5, 0.4 at 15
		{"drops below late", viz.Series{Name: "a", X: []float64{0, 10, 15, 20}, Y: []float64{0.9, 0.6, 0.35, 0.2}}, 4, 3, 15, 0, 20, false, false, "a below b at 3 of 4 points, x from 0 to 20, below from x = 15 on"},
		{"ends above", viz.Series{Name: "a", X: []float64{0, 10, 20}, Y: []float64{0.9, 0.4, 0.35}}, 3, 2, nan, 0, 20, false, false, "a below b at 2 of 3 points, x from 0 to 20"},
		{"outside b's range", viz.Series{Name: "a", X: []float64{30, 40}, Y: []float64{0.1, 0.1}}, 0, 0, nan, nan, nan, false, false, "a and b differ nowhere on a shared x range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Order(tc.a, b)
			same := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
			if o.Compared != tc.compared || o.Below != tc.below || !same(o.Since, tc.since) || !same(o.From, tc.from) || !same(o.To, tc.to) {
				t.Errorf("Order = %+v, want compared %d below %d since %v from %v to %v", o, tc.compared, tc.below, tc.since, tc.from, tc.to)
			}
			if o.Always() != tc.always || o.Never() != tc.never {
				t.Errorf("Always %v Never %v, want %v %v", o.Always(), o.Never(), tc.always, tc.never)
			}
			if !strings.Contains(o.String(), tc.wantString) {
				t.Errorf("String() = %q, want it to contain %q", o.String(), tc.wantString)
			}
		})
	}
}

func TestOrderSince(t *testing.T) {
	b := viz.Series{Name: "bcfw", X: []float64{0, 40}, Y: []float64{1, 1}}
	a := viz.Series{Name: "cache", X: []float64{0, 5, 10, 16, 20, 30}, Y: []float64{2, 0.5, 1.5, 0.9, 0.8, 0.7}}
	o := Order(a, b)
	if o.Since != 16 {
		t.Errorf("Since = %v, want 16 (below from there on, not from 5: it went above at 10)", o.Since)
	}
	if !strings.Contains(o.String(), "below from x = 16 on") {
		t.Errorf("String() = %q", o.String())
	}
}

func TestValueAt(t *testing.T) {
	s := viz.Series{X: []float64{0, 10, 10, 20}, Y: []float64{1, 0.5, 0.4, 0.2}}
	for _, tc := range []struct{ x, want float64 }{{0, 1}, {5, 0.75}, {10, 0.5}, {15, 0.3}, {20, 0.2}} {
		if got := ValueAt(s, tc.x); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("ValueAt(%v) = %v, want %v", tc.x, got, tc.want)
		}
	}
	for _, x := range []float64{-1, 21} {
		if got := ValueAt(s, x); !math.IsNaN(got) {
			t.Errorf("ValueAt(%v) = %v, want NaN outside", x, got)
		}
	}
}

func TestClaimsShow(t *testing.T) {
	rec := record(t)
	was := standIn.Swap(false) // the real data's program (another test may have loaded the fallback)
	t.Cleanup(func() { standIn.Store(was) })
	var c Claims
	c.Title = "What the figure shows"
	c.Quote("gap at pass %d: %s", 10, Cell(0.3141))
	if !c.Check(0.3 < 0.4, "BCFW below FW at pass 10 (%s vs %s)", Cell(0.3), Cell(0.4)) {
		t.Fatal("Check returned false for a claim that holds")
	}
	c.Show()
	if len(rec.markdown) != 1 {
		t.Fatalf("%d markdown outputs, want 1", len(rec.markdown))
	}
	md := rec.markdown[0]
	for _, want := range []string{"**What the figure shows**", "- gap at pass 10: 0.3141", "- ✓ BCFW below FW at pass 10 (0.3 vs 0.4)"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, ClaimFailedMarker) || len(c.Failed()) != 0 {
		t.Errorf("claims that hold are marked failed:\n%s", md)
	}

	if c.Check(2 < 1, "FW below BCFW") {
		t.Fatal("Check returned true for a claim that fails")
	}
	c.Show()
	md = rec.markdown[1]
	if !strings.Contains(md, "- ✗ **does not hold for this run:** FW below BCFW <!-- "+ClaimFailedMarker+" -->") {
		t.Errorf("failed claim not marked:\n%s", md)
	}
	if f := c.Failed(); len(f) != 1 || f[0] != "FW below BCFW" {
		t.Errorf("Failed() = %q", f)
	}
}

// TestClaimsOnStandInData: in a program that fell back to the synthetic
// stand-in of OCR, the text's comparisons (about OCR) are shown as not
// checked, with what this run gives, and fail nothing.
func TestClaimsOnStandInData(t *testing.T) {
	rec := record(t)
	was := standIn.Load()
	t.Cleanup(func() { standIn.Store(was) })
	standIn.Store(false)
	d, err := Load("ocr", datasets.Options{Path: t.TempDir()}) // a path: no fallback
	if err == nil || d != nil || standIn.Load() {
		t.Fatalf("ocr from an empty folder: %v, %v; stand-in %v", d, err, standIn.Load())
	}
	t.Setenv(datasets.EnvVar, t.TempDir())
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	if d, err = Load("ocr"); err != nil || d.Note == "" || !standIn.Load() {
		t.Fatalf("ocr not found: %+v, %v; stand-in %v", d, err, standIn.Load())
	}
	var c Claims
	c.Quote("gap %s", Cell(0.5))
	c.Check(false, "FW below BCFW")
	c.Check(true, "BCFW below FW")
	c.Show()
	md := rec.markdown[len(rec.markdown)-1]
	for _, want := range []string{"- gap 0.5", "- ○ *not checked: the text is about the real data, this run is on stand-in data (does not hold here):* FW below BCFW",
		"(holds here):* BCFW below FW"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, ClaimFailedMarker) || len(c.Failed()) != 0 {
		t.Errorf("a claim about the real data failed on the stand-in:\n%s", md)
	}
}

func TestClaimsOutsideNotebook(t *testing.T) {
	notes := isolated(t)
	old := output
	output = gonbDisplay{} // outside a notebook: inactive
	t.Cleanup(func() { output = old })
	var c Claims
	c.Check(true, "holds")
	c.Check(false, "fails")
	c.Show()
	if got := notes.String(); got != "ssvmnb: claim does not hold: fails\n" {
		t.Errorf("notes = %q", got)
	}
}

func TestTrainerCurve(t *testing.T) {
	isolated(t)
	tr, err := New("bcfw", syntheticData(t), solver.BCFW{Lambda: 0.01, GapEvery: 1})
	if err != nil {
		t.Fatal(err)
	}
	tr.Live = false
	if _, err := tr.Run(4); err != nil {
		t.Fatal(err)
	}
	s := tr.Curve(viz.Passes, nil)
	trace := tr.Trace()
	if len(s.X) == 0 || s.X[len(s.X)-1] != trace[len(trace)-1].Pass || s.Y[len(s.Y)-1] != trace[len(trace)-1].Gap {
		t.Errorf("curve %v %v does not end at the trace's last point %+v", s.X, s.Y, trace[len(trace)-1])
	}
	g := Group{Name: "g", Trainers: []*Trainer{tr}}
	if m := g.Curve(viz.Passes, nil); len(m.X) != len(s.X) || m.Y[len(m.Y)-1] != s.Y[len(s.Y)-1] {
		t.Errorf("median of one seed %v differs from its curve %v", m.Y, s.Y)
	}
}

func TestWithin(t *testing.T) {
	s := viz.Series{Name: "s", X: []float64{0, 1, 2, 3}, Y: []float64{4, 3, 2, 1}}
	w := Within(s, 1, 2)
	if w.Name != "s" || len(w.X) != 2 || w.X[0] != 1 || w.Y[1] != 2 {
		t.Errorf("Within(s, 1, 2) = %+v", w)
	}
	if w := Within(s, 5, 6); len(w.X) != 0 {
		t.Errorf("Within outside = %+v", w)
	}
}
