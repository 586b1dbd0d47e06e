package ssvmnb

import (
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/internal/gendata"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/soft"
	"github.com/fwstruct/fwstruct/viz"
)

// softRuns trains soft BCFW at lambda = 0.01 and two values of rho for a
// few passes on emotions-like data, raw or standardized.
func softRuns(t *testing.T, path string, scaling datasets.Scaling, rhos ...float64) []*Trainer {
	t.Helper()
	data := Must(Load(path, datasets.Options{Scaling: scaling}))
	var ts []*Trainer
	for _, rho := range rhos {
		tr, err := New(Cell(rho)+" "+scaling.String(), data, soft.BCFW{Lambda: 0.01, Rho: rho, GapEvery: 2, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		tr.Live = false
		if _, err := tr.Run(4); err != nil {
			t.Fatal(err)
		}
		ts = append(ts, tr)
	}
	return ts
}

// TestSoftFigures: g_rho, f_rho and g in three line styles and one color
// per run; the y range holds every curve where the runs end; Gaps notes
// soft and hard runs on one axis; runs of different rho with the same
// soft gap are noted with the reason (at lambda = 0.01 on emotions-like
// features the lambda term dominates the curvature: short steps, hardly
// any violation of the agreement constraints), and runs that differ are
// not.
func TestSoftFigures(t *testing.T) {
	isolated(t)
	path, err := gendata.Emotions(t.TempDir(), "emotions", 1)
	if err != nil {
		t.Fatal(err)
	}
	raw := softRuns(t, path, datasets.ScaleNone, 1, 10)
	f := SoftObjectives(raw...)
	if len(f.Series) != 6 {
		t.Fatalf("%d series, want 3 per run", len(f.Series))
	}
	for k, s := range f.Series {
		want := []viz.Dash{viz.Solid, viz.DashDot, viz.Dashed}[k%3]
		if s.Dash != want || s.Color != StyleOf(raw[k/3].Name).Color {
			t.Errorf("series %q: dash %v color %s, want %v in its run's color %s", s.Name, s.Dash, s.Color, want, StyleOf(raw[k/3].Name).Color)
		}
		for i, x := range s.X {
			if x >= 2 && (s.Y[i] < f.YRange[0] || s.Y[i] > f.YRange[1]) {
				t.Errorf("series %q: %v at pass %v outside the y range %v", s.Name, s.Y[i], x, f.YRange)
			}
		}
	}
	notes := strings.Join(f.Notes, "\n")
	if !strings.Contains(notes, "rho = 1 and rho = 10 give the same soft gap") || !strings.Contains(notes, "rho has nothing to act on") {
		t.Errorf("no note on the equal soft gaps of raw features: %q", f.Notes)
	}

	// At rho = 0.001 the agreement term dominates the curvature: the runs part.
	std := softRuns(t, path, datasets.ScaleStandardize, 1, 0.001)
	if n := strings.Join(SoftObjectives(std...).Notes, "\n"); strings.Contains(n, "same soft gap") {
		t.Errorf("standardized runs (gaps %v and %v) noted as equal: %q", std[0].Last().Gap, std[1].Last().Gap, n)
	}
	hard, err := New("bcfw", Must(Load(path, datasets.Options{Scaling: datasets.ScaleStandardize})), solver.BCFW{Lambda: 0.01, GapEvery: 2})
	if err != nil {
		t.Fatal(err)
	}
	hard.Live = false
	if _, err := hard.Run(2); err != nil {
		t.Fatal(err)
	}
	if n := strings.Join(Gaps(viz.Passes, std[0], hard).Notes, "\n"); !strings.Contains(n, "soft and hard runs on one axis") {
		t.Errorf("Gaps of a soft and a hard run: notes %q", n)
	}
	if n := strings.Join(Gaps(viz.Passes, std...).Notes, "\n"); strings.Contains(n, "soft and hard") {
		t.Errorf("Gaps of soft runs only: notes %q", n)
	}
	if f := SoftObjectives(std[0], hard); len(f.Series) != 3 || !strings.Contains(strings.Join(f.Notes, " "), "not shown: bcfw") {
		t.Errorf("SoftObjectives of a soft and a hard run: %d series, notes %q", len(f.Series), f.Notes)
	}
}
