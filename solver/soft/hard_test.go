package soft

import (
	"context"
	"math"
	"testing"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
)

// TestRelaxedPrimal: at any w, the LP-relaxed primal is min over delta of
// g(w, delta): at most the soft solver's hard primal at its own delta, at
// least the exact structural SVM objective of w (brute-force MAP over the
// labelings), and equal to the primal LP-hard BCFW reports for its iterate.
func TestRelaxedPrimal(t *testing.T) {
	m := multiLabel(t, 6, 4, 3, 12)
	rel, err := factorgraph.NewRelaxed(m, 2)
	if err != nil {
		t.Fatal(err)
	}
	exact := oneView(t, m)
	const lambda = 0.05
	s, _ := newSolver(m, config{Lambda: lambda, Rho: 0.5, Seed: 3})
	for _, passes := range []float64{1, 10, 40} {
		if _, err := s.Run(context.Background(), run.Stop{Passes: passes}); err != nil {
			t.Fatal(err)
		}
		pt, _ := s.Evaluate()
		lp, err := RelaxedPrimal(rel, lambda, s.w, 2)
		if err != nil {
			t.Fatal(err)
		}
		var hinge float64
		for i := 0; i < m.Len(); i++ {
			_, h := exact.MaxOracle(i, s.w, nil)
			hinge += h
		}
		ex := lambda/2*dot(s.w, s.w) + hinge/float64(m.Len())
		if lp > pt.HardPrimal+1e-12 || lp < ex-1e-12 {
			t.Fatalf("%v passes: exact %v <= LP %v <= g(w, delta) %v does not hold", passes, ex, lp, pt.HardPrimal)
		}
		if HardObjective(pt) != pt.HardPrimal {
			t.Fatal("HardObjective of a soft point is not its hard primal")
		}
	}
	hard, _ := solver.BCFW{Lambda: lambda}.New(rel)
	if _, err := hard.Run(context.Background(), run.Stop{Passes: 21}); err != nil {
		t.Fatal(err)
	}
	cur, err := hard.Current()
	if err != nil {
		t.Fatal(err)
	}
	lp, err := RelaxedPrimal(rel, lambda, hard.Weights(), 1)
	if err != nil {
		t.Fatal(err)
	}
	assertClose(t, "relaxed primal of LP-hard BCFW", lp, cur.Primal, 1e-12)
	if HardObjective(cur) != cur.Primal {
		t.Fatal("HardObjective of a hard point is not its primal")
	}
	old := cur
	old.Rho, old.HardPrimal = 0, 0 // a point saved before the soft fields existed
	if HardObjective(old) != cur.Primal {
		t.Fatal("HardObjective of an old point is not its primal")
	}
	filled := cur
	filled.HardPrimal = lp + 1
	if HardObjective(filled) != lp+1 {
		t.Fatal("HardObjective ignores a filled-in hard primal")
	}
	if v, err := RelaxedPrimal(rel, lambda, []float64{1}, 1); err == nil || !math.IsNaN(v) {
		t.Fatal("weights of the wrong dimension accepted")
	}
}
