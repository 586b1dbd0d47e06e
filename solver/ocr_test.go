package solver

import (
	"math"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/internal/realdata"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/run"
)

// TestOCRSmallMatchesMatlab reproduces the OCR demo of the original MATLAB
// BCFW code (Lacoste-Julien et al. 2013; BCFWstruct demo/chain/ocr.m):
// OCR-small, lambda = 0.01, uniform sampling, line search. That code uses
// weighted averaging by default and reports the gap and losses of the
// averaged iterate: gap 0.276 after 10 passes, below 0.1 after 70 passes,
// test loss 0.206. Like that code's debug mode, the run makes no gap passes
// of its own (GapEvery = +Inf) and evaluates offline every 10 passes.
func TestOCRSmallMatchesMatlab(t *testing.T) {
	path := realdata.File(t, "ocr/letter.data.gz")
	train, test, err := datasets.LoadOCR(path, datasets.SplitSmall)
	if err != nil {
		t.Fatal(err)
	}
	s := mustNew(t, train, config{Lambda: 0.01, Averaging: true, GapEvery: math.Inf(1), TraceEvery: 10, Seed: 1})
	mustRun(t, s, run.Stop{Passes: 80})
	tr := s.Trace()
	at := func(pass float64) run.Point {
		for _, p := range tr {
			if math.Abs(p.Pass-pass) < 1e-9 {
				return p
			}
		}
		t.Fatalf("no trace point at pass %v", pass)
		return run.Point{}
	}
	p10, p80 := at(10), at(80)
	t.Logf("pass 10: averaged gap %.4f (MATLAB 0.276), plain gap %.4f", p10.GapAvg, p10.Gap)
	t.Logf("pass 80: averaged gap %.4f, plain gap %.4f", p80.GapAvg, p80.Gap)
	if p10.GapAvg > 0.30 {
		t.Errorf("averaged gap after 10 passes = %.4f, want <= 0.30", p10.GapAvg)
	}
	if p80.GapAvg > 0.1 {
		t.Errorf("averaged gap after 80 passes = %.4f, want <= 0.1", p80.GapAvg)
	}
	// The plain iterate converges too, somewhat behind the average.
	if p10.Gap > 0.36 || p80.Gap > 0.11 {
		t.Errorf("plain gaps %.4f (10 passes), %.4f (80 passes)", p10.Gap, p80.Gap)
	}
	loss := oracles.MeanLoss(test, s.AverageWeights())
	t.Logf("test loss of the averaged model %.4f (MATLAB 0.206)", loss)
	if loss < 0.19 || loss > 0.225 {
		t.Errorf("test loss %.4f, want about 0.206", loss)
	}
	for _, p := range tr {
		if math.Abs(p.Primal-p.Dual-p.Gap) > 1e-9 || math.Abs(p.PrimalAvg-p.DualAvg-p.GapAvg) > 1e-9 {
			t.Fatalf("certificate broken at pass %v", p.Pass)
		}
	}
}
