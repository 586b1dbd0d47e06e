package papers

import (
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
	"github.com/fwstruct/fwstruct/ssvmnb"
	"github.com/fwstruct/fwstruct/viz"
)

// TestSweepRhoAndComparisons: the rho sweep of Fig. 1 (right) in one call,
// and the Fig. 2 comparison of soft and hard runs on the hard objective.
func TestSweepRhoAndComparisons(t *testing.T) {
	tr, err := gendata.MultiLabel(15, 4, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	te, err := gendata.MultiLabel(15, 4, 3, 1002)
	if err != nil {
		t.Fatal(err)
	}
	test, _ := factorgraph.NewRounded(te)
	rel, err := factorgraph.NewRelaxed(tr, 2)
	if err != nil {
		t.Fatal(err)
	}
	trX, _ := factorgraph.NewExact(tr, 0)
	teX, _ := factorgraph.NewExact(te, 0)
	softData := ssvmnb.NewData("multilabel", trX, teX)
	base := soft.BCFW{Lambda: 0.05, GapEvery: 5, Seed: 1}
	res, err := SweepRho(context.Background(), softData, RhoSweep{Rhos: []float64{0.1, 1, 10}, Budgets: []float64{2, 6}, Base: base})
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
	if _, err := SweepRho(context.Background(), softData, RhoSweep{Rhos: []float64{1}, Budgets: []float64{3, 2}, Base: base}); err == nil {
		t.Fatal("decreasing budgets accepted")
	}

	exactView, _ := factorgraph.NewExact(tr, 0)
	var hard []viz.Run
	var es *solver.Solver
	for _, h := range []struct {
		name string
		p    oracles.Problem
	}{{"LP-hard", rel}, {"exact", exactView}} {
		r, err := NewHardRun(h.name, h.p, rel, test, solver.BCFW{Lambda: 0.05, GapEvery: 2})
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
	// The hard runs have no soft objectives: left out, noted.
	if f := SoftObjectives(0.2, res.Trainers[0].VizRun(), lpHard); len(f.Series) != 3 || len(f.HLines) != 1 ||
		len(f.Notes) != 1 || !strings.Contains(f.Notes[0], lpHard.Name) {
		t.Fatalf("soft objectives of a soft and a hard run: %d series, notes %q", len(f.Series), f.Notes)
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
