package soft

import (
	"context"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/internal/realdata"
	"github.com/fwstruct/fwstruct/solver/run"
)

// yeastLambda is the regularization chosen by 5-fold cross-validation of
// the test Hamming loss (LP + rounding) on the Yeast training set, as Meshi
// et al. tune theirs (go run ./tools/softfigs -exp cv).
const yeastLambda = 0.01

// TestYeast trains soft BCFW (rho = 1) on Yeast for 15 passes: every trace
// point is a certificate (primal - dual = gap >= 0, the hard objective below
// the soft one), and the test Hamming loss of LP plus rounding and of exact
// MAP is at most 0.21 (published structured SVMs are near 0.20).
func TestYeast(t *testing.T) {
	d, err := datasets.LoadMULAN(realdata.File(t, "yeast/yeast-train.arff"), datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr, te := d.Train, d.Test
	rounded, err := factorgraph.NewRounded(te.Model())
	if err != nil {
		t.Fatal(err)
	}
	s, err := newSolver(tr.Model(), config{Lambda: yeastLambda, Rho: 1, GapEvery: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if s.Blocks() != 1500*(14+91) {
		t.Fatalf("%d blocks, want 1,500 x (14 variables + 91 pairs)", s.Blocks())
	}
	if _, err := s.Run(context.Background(), run.Stop{Passes: 15}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Current(); err != nil {
		t.Fatal(err)
	}
	for k, p := range s.Trace() {
		if p.Gap < 0 || p.Primal-p.Dual != p.Gap || p.HardPrimal > p.Primal {
			t.Fatalf("point %d: %+v", k, p)
		}
	}
	lp, lpm := Metrics(rounded, s.Weights(), 2)
	ex, exm := Metrics(te, s.Weights(), 2)
	last, _ := s.Last()
	t.Logf("15 passes: soft gap %.4g, hard objective %.6f; test LP + rounding %v, exact MAP %v", last.Gap, last.HardPrimal, lpm, exm)
	if lp > 0.21 || ex > 0.21 {
		t.Fatalf("test Hamming loss %.4f (LP + rounding), %.4f (exact MAP), want <= 0.21", lp, ex)
	}
	if lpm[0].Value != lp || lpm[1].Name != factorgraph.MetricF1 || !(lpm[1].Value > 0.5) {
		t.Fatalf("metrics %v", lpm)
	}
}
