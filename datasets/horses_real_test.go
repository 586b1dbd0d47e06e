package datasets_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/internal/realdata"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
)

// horsesLambda is the regularization of the real-data check, chosen on a
// held-out part of the training set: trained on horses 1-117 and validated
// on horses 118-147 (Potts model, 54 passes of BCFW), the validation losses
// were 0.067 (lambda 1e-2), 0.060 (3e-3), 0.060 (1e-3) and 0.052 (3e-4, whose
// gap was still 0.10); 1e-3 is the smallest lambda whose run certified a
// gap below 0.1 in that budget.
const horsesLambda = 1e-3

// boxes returns the box of the Potts model (the problem's bounds: w_P <= 0)
// and that of the unary-only model (w_P = 0).
// boxes returns the user boxes of the two models: none for Potts (the
// solver applies the model's own bound w_P <= 0, oracles.Bounded), and w_P
// >= 0 for the unary-only model, which the solver intersects with it: w_P =
// 0.
func boxes(p *oracles.Segmentation) (potts, unary *solver.Box) {
	lower := make([]float64, p.Dim())
	for j := range lower {
		lower[j] = math.Inf(-1)
		if j >= p.PairwiseOffset() {
			lower[j] = 0
		}
	}
	return nil, &solver.Box{Lower: lower}
}

func metric(ms []oracles.Metric, name string) float64 {
	for _, m := range ms {
		if m.Name == name {
			return m.Value
		}
	}
	return math.NaN()
}

// TestRealHorses preprocesses the 328 Weizmann horses (timed), reloads them
// from the cache (timed), then trains the Potts and the unary-only models
// on horses-small with BCFW under their boxes and checks that the Potts
// model wins in test loss, that the test pixel accuracy is at least 85%,
// and that every trace point certifies its gap.
func TestRealHorses(t *testing.T) {
	dir := realdata.File(t, "horses/gray/horse001.jpg")
	dir = filepath.Dir(filepath.Dir(dir))
	opt := datasets.HorsesOptions{Path: dir, CacheDir: t.TempDir()}
	start := time.Now()
	h, err := datasets.LoadHorses(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("preprocessing of %d images: %v", len(h.TrainImages)+len(h.TestImages), time.Since(start))
	start = time.Now()
	if h, err = datasets.LoadHorses(opt); err != nil {
		t.Fatal(err)
	}
	t.Logf("second load (cached): %v", time.Since(start))
	if h.Train.Len() != 147 || h.Test.Len() != 181 || h.TrainImages[0].Name != "horse001.jpg" || h.TestImages[0].Name != "horse148.jpg" {
		t.Fatalf("split %d/%d from %s to %s", h.Train.Len(), h.Test.Len(), h.TrainImages[0].Name, h.TestImages[0].Name)
	}
	regions := 0
	for i := 0; i < h.Test.Len(); i++ {
		regions += h.Test.Regions(i)
	}
	mean := float64(regions) / float64(h.Test.Len())
	t.Logf("%.1f superpixels per test image, d = %d", mean, h.Train.Dim())
	if mean < 120 || mean > 180 {
		t.Errorf("%.1f superpixels per image, asked for 150", mean)
	}
	truths := make([][]int32, h.Test.Len())
	for i := range truths {
		truths[i] = h.Test.Truth(i)
	}
	t.Logf("superpixel ceiling on test: %v", h.Test.Metrics(truths))

	pottsBox, unaryBox := boxes(h.Train)
	type result struct {
		loss, acc, iou float64
		w              []float64
	}
	run := func(name string, box *solver.Box) result {
		s, err := solver.BCFW{Lambda: horsesLambda, Box: box, GapEvery: 10, Seed: 1}.New(h.Train, run.WithTest(h.Test))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if _, err := s.Run(context.Background(), run.Stop{Passes: 100}); err != nil {
			t.Fatal(err)
		}
		w := s.Weights()
		// The trace, ending at the final iterate.
		if _, err := s.Current(); err != nil {
			t.Fatal(err)
		}
		tr := s.Trace()
		bestDual, bestPrimal := math.Inf(-1), math.Inf(1)
		for _, p := range tr {
			if math.Abs(p.Primal-p.Dual-p.Gap) > 1e-9 || p.Gap < -1e-9 {
				t.Errorf("%s: pass %v: primal %v - dual %v != gap %v", name, p.Pass, p.Primal, p.Dual, p.Gap)
			}
			bestDual, bestPrimal = math.Max(bestDual, p.Dual), math.Min(bestPrimal, p.Primal)
		}
		// Weak duality across the run: no dual value exceeds a primal one.
		if bestDual > bestPrimal+1e-9 {
			t.Errorf("%s: dual %v above primal %v: the gaps are not certificates", name, bestDual, bestPrimal)
		}
		// The primal of the final iterate, recomputed from the oracle.
		var sq, sum float64
		for _, v := range w {
			sq += v * v
		}
		for i := 0; i < h.Train.Len(); i++ {
			_, hi, err := h.Train.MaxOracleErr(i, w, nil)
			if err != nil {
				t.Fatal(err)
			}
			sum += hi
		}
		last := tr[len(tr)-1]
		if primal := horsesLambda/2*sq + sum/float64(h.Train.Len()); math.Abs(primal-last.Primal) > 1e-9*math.Max(1, primal) {
			t.Errorf("%s: primal of the final iterate %v, recomputed %v", name, last.Primal, primal)
		}
		eff := s.(*solver.Solver).Box()
		if eff == nil || eff.Upper == nil {
			t.Fatalf("%s: the model's bounds were not applied", name)
		}
		for j := h.Train.PairwiseOffset(); j < len(w); j++ {
			if w[j] > eff.Upper[j] || eff.Lower != nil && w[j] < eff.Lower[j] {
				t.Fatalf("%s: w[%d] = %v outside its box", name, j, w[j])
			}
		}
		pred := make([][]int32, h.Test.Len())
		for i := range pred {
			pred[i] = h.Test.Predict(i, w, nil)
		}
		ms := h.Test.Metrics(pred)
		r := result{loss: oracles.MeanLoss(h.Test, w), acc: metric(ms, oracles.MetricPixelAccuracy), iou: metric(ms, oracles.MetricForegroundIoU), w: w}
		t.Logf("%s: %v, %d trace points, final gap %.4f after %.0f passes; test loss %.4f, pixel accuracy %.4f, foreground IoU %.4f, mean image IoU %.4f",
			name, time.Since(start).Round(time.Millisecond), len(tr), last.Gap, last.Pass, r.loss, r.acc, r.iou, metric(ms, oracles.MetricMeanImageIoU))
		if math.Abs(last.TestLoss-r.loss) > 1e-9 {
			t.Errorf("%s: test loss of the final iterate %v, recomputed %v", name, last.TestLoss, r.loss)
		}
		return r
	}
	potts := run("potts", pottsBox)
	unary := run("unary-only", unaryBox)
	if potts.loss >= unary.loss {
		t.Errorf("Potts test loss %.4f does not beat unary-only %.4f", potts.loss, unary.loss)
	}
	if potts.acc < 0.85 {
		t.Errorf("Potts test pixel accuracy %.4f < 0.85", potts.acc)
	}
	if potts.iou < 0.6 {
		t.Errorf("Potts test foreground IoU %.4f < 0.6", potts.iou)
	}
	nonzero := 0
	for j := h.Train.PairwiseOffset(); j < len(potts.w); j++ {
		if potts.w[j] < 0 {
			nonzero++
		}
	}
	t.Logf("Potts model: %d of %d pairwise weights active (< 0)", nonzero, h.Train.PairwiseDim())
}
