package ssvmnb

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/internal/gendata"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/soft"
	"github.com/fwstruct/fwstruct/viz"
)

// multiLabel returns random train and test multi-label models (Meshi
// Sec. 6) of L labels over F features (see gendata.MultiLabel).
func multiLabel(t testing.TB, n, L, F int, seed uint64) (train, test *factorgraph.Model) {
	t.Helper()
	train, err := gendata.MultiLabel(n, L, F, seed)
	if err == nil {
		test, err = gendata.MultiLabel(n, L, F, seed+1000)
	}
	if err != nil {
		t.Fatal(err)
	}
	return train, test
}

// TestSoftTrainer: a soft trainer runs, draws its objectives live in a
// notebook, and continues identically after a save and a load, and a soft
// session continues across cells.
func TestSoftTrainer(t *testing.T) {
	tr, te := multiLabel(t, 20, 4, 3, 1)
	test, err := factorgraph.NewRounded(te)
	if err != nil {
		t.Fatal(err)
	}
	cfg := soft.Config{Lambda: 0.05, Rho: 1, GapEvery: 2, Seed: 4}
	rec := record(t)
	a, err := NewSoft("a", tr, test, cfg)
	if err != nil {
		t.Fatal(err)
	}
	a.LiveEvery, a.Reference = 1, 0.3
	if _, err := a.Run(6); err != nil {
		t.Fatal(err)
	}
	if len(rec.updates) < 2 || rec.updates[len(rec.updates)-1] != "" || len(rec.pngs) != 1 || !strings.Contains(rec.updates[0], "hard objective") {
		t.Fatalf("live chart: %d updates, %d final figures", len(rec.updates), len(rec.pngs))
	}
	decodePNG(t, rec.pngs[0])
	f := a.ObjectivesFigure()
	if len(f.Series) != 3 || len(f.HLines) != 1 || !f.Series[2].Dashed {
		t.Fatalf("objectives figure: %d series, %d lines", len(f.Series), len(f.HLines))
	}
	b, _ := NewSoft("b", tr, test, cfg)
	if _, err := b.Run(3); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := b.Save(&buf); err != nil {
		t.Fatal(err)
	}
	c, err := LoadSoft(&buf, tr, test)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Run(3); err != nil {
		t.Fatal(err)
	}
	wa, wc := a.Weights(), c.Weights()
	for j := range wa {
		if wa[j] != wc[j] {
			t.Fatalf("weights differ at %d after save and load", j)
		}
	}
	if _, err := LoadSoft(bytes.NewReader([]byte("junk")), tr, test); err == nil {
		t.Fatal("loaded junk")
	}
	if _, err := a.Run(0); err == nil {
		t.Fatal("Run(0) accepted")
	}

	SessionDir = t.TempDir()
	defer func() { SessionDir = "" }()
	ended := 0.0
	for cell := 1; cell <= 3; cell++ {
		s, err := SoftSession("soft-run", tr, test, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if s.Passes() != ended {
			t.Fatalf("cell %d starts at %v passes, the previous one ended at %v", cell, s.Passes(), ended)
		}
		if _, err := s.Run(2); err != nil {
			t.Fatal(err)
		}
		ended = s.Passes()
	}
	if ended < 5 {
		t.Fatalf("three cells of 2 passes ended at %v passes", ended)
	}
	other := cfg
	other.Rho = 2
	if _, err := SoftSession("soft-run", tr, test, other); err == nil {
		t.Fatal("a session of another rho was reused")
	}
	if err := ForgetSoft("soft-run"); err != nil {
		t.Fatal(err)
	}
	if s, err := SoftSession("soft-run", tr, test, other); err != nil || s.Passes() != 0 {
		t.Fatalf("after ForgetSoft: %v passes, %v", s.Passes(), err)
	}
}

// TestSweepRhoAndComparisons: the rho sweep of Fig. 1 (right) in one call,
// and the Fig. 2 comparison of soft and hard runs on the hard objective.
func TestSweepRhoAndComparisons(t *testing.T) {
	tr, te := multiLabel(t, 15, 4, 3, 2)
	test, _ := factorgraph.NewRounded(te)
	rel, err := factorgraph.NewRelaxed(tr, 2)
	if err != nil {
		t.Fatal(err)
	}
	base := soft.Config{Lambda: 0.05, GapEvery: 5, Seed: 1}
	res, err := SweepRho(context.Background(), tr, test, RhoSweep{Rhos: []float64{0.1, 1, 10}, Budgets: []float64{2, 6}, Base: base})
	if err != nil {
		t.Fatal(err)
	}
	for k := range res.Rhos {
		for b, budget := range res.Budgets {
			p := res.At[k][b]
			if p.Pass > budget+1e-9 || p.Pass < budget-1-1e-9 || p.Rho != res.Rhos[k] || !(p.HardPrimal <= p.Primal) {
				t.Fatalf("rho %v budget %v: point %+v", res.Rhos[k], budget, p)
			}
		}
	}
	fig := res.Figure(0.2)
	if len(fig.Series) != 4 || !fig.LogX || len(fig.Series[0].X) != 3 {
		t.Fatalf("sweep figure: %+v", fig)
	}
	if tab := res.Table(); len(tab.Rows) != 6 {
		t.Fatalf("sweep table: %d rows", len(tab.Rows))
	}
	if _, err := SweepRho(context.Background(), tr, test, RhoSweep{Rhos: []float64{1}, Budgets: []float64{3, 2}, Base: base}); err == nil {
		t.Fatal("decreasing budgets accepted")
	}

	exactView, _ := factorgraph.NewExact(tr, 0)
	var hard []viz.Run
	var es *solver.Solver
	for _, h := range []struct {
		name string
		p    oracles.Problem
	}{{"LP-hard", rel}, {"exact", exactView}} {
		r, err := NewHardRun(h.name, h.p, rel, test, solver.Config{Lambda: 0.05, GapEvery: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, passes := range []float64{3, 6} {
			if _, err := r.RunUntil(context.Background(), run.Stop{Passes: passes}); err != nil {
				t.Fatal(err)
			}
		}
		hard, es = append(hard, r.VizRun()), r.Solver()
	}
	lpHard, exact := hard[0], hard[1]
	for _, p := range lpHard.Trace {
		if math.Abs(p.HardPrimal-p.Primal) > 1e-12 {
			t.Fatalf("LP-hard: hard objective %v, primal %v", p.HardPrimal, p.Primal)
		}
	}
	for _, p := range exact.Trace {
		if p.HardPrimal < p.Primal-1e-12 {
			t.Fatalf("exact: LP-relaxed objective %v below the exact one %v", p.HardPrimal, p.Primal)
		}
	}
	if last := exact.Trace[len(exact.Trace)-1]; last.Steps != es.Steps() {
		t.Fatal("the hard run's trace does not end at the final iterate")
	}
	runs := []viz.Run{res.Trainers[1].VizRun(), lpHard, exact}
	if f := HardObjectives(viz.Seconds, 0.2, runs...); len(f.Series) != 3 || len(f.HLines) != 1 {
		t.Fatalf("hard objectives figure: %+v", f)
	}
	if f := Accuracies(viz.Seconds, runs...); len(f.Series) != 3 || !(f.Series[0].Y[len(f.Series[0].Y)-1] > 0) {
		t.Fatalf("accuracy figure: %+v", f)
	}
	if f := SoftObjectives(math.NaN(), res.Trainers[0].VizRun(), res.Trainers[2].VizRun()); len(f.Series) != 6 || len(f.HLines) != 0 {
		t.Fatalf("soft objectives figure: %d series", len(f.Series))
	}
	first := soft.HardObjective(lpHard.Trace[0])
	if got := Reaches(lpHard, viz.Seconds, first); got != lpHard.Trace[0].Seconds {
		t.Fatalf("Reaches the first value at %v s", got)
	}
	last := lpHard.Trace[len(lpHard.Trace)-1]
	if got := Reaches(lpHard, viz.Passes, soft.HardObjective(last)); !(got <= last.Pass) || got < 0 {
		t.Fatalf("Reaches the last value at %v passes", got)
	}
	if got := Reaches(lpHard, viz.Seconds, -1); !math.IsNaN(got) {
		t.Fatalf("Reaches an unreachable target: %v", got)
	}
}
