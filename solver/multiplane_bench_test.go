package solver

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/internal/realdata"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/run"
)

var (
	realOnce   sync.Once
	realUSPS   oracles.Problem
	realHorses oracles.Problem
	realErr    error
)

// loadReal returns the USPS and HorseSeg-small training sets, read once
// (the horses through the preprocessing cache of the user cache
// directory), skipping without the real data.
func loadReal(b testing.TB) (usps, horses oracles.Problem) {
	b.Helper()
	root := realdata.Dir(b)
	realdata.File(b, "usps/zip.train.gz")
	realdata.File(b, "horses/gray/horse001.jpg")
	realOnce.Do(func() {
		if realUSPS, _, realErr = datasets.Load("usps", datasets.Options{Path: filepath.Join(root, "usps")}); realErr != nil {
			return
		}
		realHorses, _, realErr = datasets.Load("horses", datasets.Options{Path: filepath.Join(root, "horses")})
	})
	if realErr != nil {
		b.Fatal(realErr)
	}
	return realUSPS, realHorses
}

// BenchmarkMultiPlaneStep measures the steps of multi-plane BCFW at lambda
// = 1/n after 10 passes (time rule) on OCR-small (Viterbi oracle), USPS
// (10 classes) and HorseSeg-small (graph cut): an exact step (the oracle
// call, adding its plane to W_i, the update), an approximate step (scoring
// W_i and the update; planes/step is the mean |W_i| it scored), and the
// scoring alone per plane, the marginal cost of one more plane in a working
// set (ns/plane). oracle-planes is MeasureCostRatio at the trained w: an
// oracle call in plane evaluations.
func BenchmarkMultiPlaneStep(b *testing.B) {
	ocr, _ := loadOCR(b)
	usps, horses := loadReal(b)
	for _, c := range []struct {
		name string
		p    oracles.Problem
	}{{"ocr-small", ocr}, {"usps", usps}, {"horses-small", horses}} {
		cfg := Config{Lambda: 1 / float64(c.p.Len()), Sampling: run.Permutation, GapEvery: 1e9, MultiPlane: MultiPlane{Enabled: true}}
		s, err := New(c.p, cfg)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Run(context.Background(), run.Stop{Passes: 10}); err != nil {
			b.Fatal(err)
		}
		m := s.reuse.(*multiPlane)
		b.Run(c.name+"/exact", func(b *testing.B) {
			for k := 0; k < b.N; k++ {
				m.approx = false // stay in exact passes
				if err := s.bcfwStep(); err != nil {
					b.Fatal(err)
				}
			}
			ratio, err := MeasureCostRatio(c.p, s.Weights(), 0)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(ratio, "oracle-planes")
		})
		b.Run(c.name+"/approx", func(b *testing.B) {
			var planes int
			for k := 0; k < b.N; k++ {
				m.approx = true // stay in approximate passes
				if err := s.bcfwStep(); err != nil {
					b.Fatal(err)
				}
				planes += len(s.work.h)
			}
			b.ReportMetric(float64(planes)/float64(b.N), "planes/step")
		})
		b.Run(c.name+"/score", func(b *testing.B) {
			var planes int
			for k := 0; k < b.N; k++ {
				planes += len(s.cornerScores(&s.sets[k%s.n]))
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(planes), "ns/plane")
			b.ReportMetric(float64(planes)/float64(b.N), "planes/block")
		})
	}
}

// BenchmarkMultiPlaneRulesOCR compares the pass rules of multi-plane BCFW
// on OCR-small at lambda = 1/n, to a certified gap of 0.01 (a gap pass
// every 5 passes), 3 seeds: the time rule, the cost rule with the update
// counted as one plane evaluation (UpdateCost unset), and the cost rule
// with MeasureUpdateCost's estimate; both cost rules use
// MeasureCostRatio's ratio at the weights of a short run. It reports the
// median solver seconds and effective passes of each, and the cost
// rules' seconds relative to the time rule's (measured in one run, so
// that the ratio survives a loaded machine better than the seconds).
func BenchmarkMultiPlaneRulesOCR(b *testing.B) {
	ocr, _ := loadOCR(b)
	lambda := 1 / float64(ocr.Len())
	base := Config{Lambda: lambda, Sampling: run.Permutation, GapEvery: 5, MultiPlane: MultiPlane{Enabled: true}}
	warm, err := New(ocr, base)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := warm.Run(context.Background(), run.Stop{Passes: 10}); err != nil {
		b.Fatal(err)
	}
	ratio, err := MeasureCostRatio(ocr, warm.Weights(), 0)
	if err != nil {
		b.Fatal(err)
	}
	update, err := MeasureUpdateCost(ocr, base, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("cost ratio %.1f plane evaluations, update cost %.1f", ratio, update)
	rules := []struct {
		name string
		mp   MultiPlane
	}{
		{"time", MultiPlane{Enabled: true}},
		{"cost-update1", MultiPlane{Enabled: true, Rule: RuleCost, CostRatio: ratio}},
		{"cost-measured", MultiPlane{Enabled: true, Rule: RuleCost, CostRatio: ratio, UpdateCost: update}},
	}
	for k := 0; k < b.N; k++ {
		secs := make([][]float64, len(rules))
		passes := make([][]float64, len(rules))
		for seed := uint64(1); seed <= 3; seed++ {
			for r, rule := range rules {
				cfg := base
				cfg.Seed, cfg.MultiPlane = seed, rule.mp
				s, err := New(ocr, cfg)
				if err != nil {
					b.Fatal(err)
				}
				res, err := s.Run(context.Background(), run.Stop{Gap: 0.01, Passes: 2000})
				if err != nil || res.Status != run.StatusConverged {
					b.Fatalf("%s: %v, %v", rule.name, res.Status, err)
				}
				secs[r], passes[r] = append(secs[r], res.Last.Seconds), append(passes[r], res.Last.Pass)
			}
		}
		for r, rule := range rules {
			b.Logf("%-14s median %.2f s (%.2fx the time rule), %.0f passes; seconds %v", rule.name, median(secs[r]), median(secs[r])/median(secs[0]), median(passes[r]), secs[r])
		}
	}
}
