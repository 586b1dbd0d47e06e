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
