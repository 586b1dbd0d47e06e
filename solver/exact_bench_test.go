package solver

import (
	"context"
	"sync"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/internal/realdata"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
	"github.com/fwstruct/fwstruct/solver/run"
)

var (
	uspsOnce  sync.Once
	uspsTrain *oracles.Multiclass
	uspsErr   error
)

// loadUSPS returns the 7,291 USPS training digits (with the bias feature),
// skipping without the real data.
func loadUSPS(b testing.TB) *oracles.Multiclass {
	b.Helper()
	dir := realdata.Dir(b)
	uspsOnce.Do(func() {
		var tr oracles.Problem
		if tr, _, uspsErr = datasets.Load("usps", datasets.Options{Path: dir + "/usps"}); uspsErr == nil {
			uspsTrain = tr.(*oracles.Multiclass)
		}
	})
	if uspsErr != nil {
		b.Fatal(uspsErr)
	}
	return uspsTrain
}

// BenchmarkExactStepUSPS measures one exact block step (Step Exact: the
// scores of the 10 classes, the projection onto the simplex, the update
// of the changed classes' weights) on USPS at lambda = 1e-3, against a
// BCFW Frank-Wolfe step (max oracle, line search, dense block update) on
// the same data.
func BenchmarkExactStepUSPS(b *testing.B) {
	p := loadUSPS(b)
	b.Run("exact", func(b *testing.B) {
		benchSteps(b, p, config{Lambda: 1e-3, Step: stepExact, Sampling: run.Permutation, GapEvery: 1e9})
	})
	b.Run("fw", func(b *testing.B) {
		benchSteps(b, p, config{Lambda: 1e-3, Sampling: run.Permutation, GapEvery: 1e9})
	})
}

// BenchmarkExactStepSynthetic runs without real data (2,000 examples, 10
// classes, 64 dense features).
func BenchmarkExactStepSynthetic(b *testing.B) {
	p := oraclestest.Multiclass(2000, 10, 64, 1)
	benchSteps(b, p, config{Lambda: 1e-3, Step: stepExact, Sampling: run.Permutation, GapEvery: 1e9})
}

// BenchmarkExactToGap measures whole runs to a certified gap of 1e-6 on
// synthetic data (1,000 examples, 10 classes, 32 features, lambda 0.01)
// with exact steps, with and without shrinking, and with the recommended
// BCFW (gap sampling, pairwise steps, cache); it reports the oracle calls
// (exact steps and gap passes) per example.
func BenchmarkExactToGap(b *testing.B) {
	p := oraclestest.Multiclass(1000, 10, 32, 1)
	for _, v := range []struct {
		name string
		cfg  config
	}{
		{"exact", config{Step: stepExact, Sampling: run.Permutation, GapEvery: 20}},
		{"exact-shrinking", config{Step: stepExact, Sampling: run.Permutation, Shrinking: true, GapEvery: 20}},
		{"recommended", recommended()},
	} {
		b.Run(v.name, func(b *testing.B) {
			var calls int64
			for k := 0; k < b.N; k++ {
				cfg := v.cfg
				cfg.Lambda = 0.01
				s, err := newSolver(p, cfg)
				if err != nil {
					b.Fatal(err)
				}
				res, err := s.Run(context.Background(), run.Stop{Gap: 1e-6, EarlyCheck: 1, Passes: 100000})
				if err != nil || res.Status != run.StatusConverged {
					b.Fatalf("%v %v", res.Status, err)
				}
				calls = s.calls
			}
			b.ReportMetric(float64(calls)/float64(p.Len()), "calls/n")
		})
	}
}
