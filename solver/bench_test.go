package solver

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/internal/realdata"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
	"github.com/fwstruct/fwstruct/solver/run"
)

var (
	ocrOnce  sync.Once
	ocrLarge *oracles.Chain
	ocrSmall *oracles.Chain
	ocrErr   error
)

// loadOCR returns the OCR-small and OCR-large training words, read once,
// skipping the test or benchmark without the real data.
func loadOCR(b testing.TB) (small, large *oracles.Chain) {
	b.Helper()
	path := realdata.File(b, "ocr/letter.data.gz")
	ocrOnce.Do(func() {
		words, err := datasets.ReadLetterFile(path)
		if err != nil {
			ocrErr = err
			return
		}
		trS, _ := datasets.SplitWords(words, datasets.SplitSmall)
		trL, _ := datasets.SplitWords(words, datasets.SplitLarge)
		if ocrSmall, ocrErr = datasets.OCRChain(trS); ocrErr == nil {
			ocrLarge, ocrErr = datasets.OCRChain(trL)
		}
	})
	if ocrErr != nil {
		b.Fatal(ocrErr)
	}
	return ocrSmall, ocrLarge
}

// benchSteps warms a solver up for a few passes, then times b.N steps of
// its algorithm (block steps of BCFW, online EG's steps), reporting the
// oracle calls per step.
func benchSteps(b *testing.B, p oracles.Problem, cfg config, opts ...run.Option) {
	s, err := newSolver(p, cfg, opts...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.sched.Stop) // the workers of steps made outside Run
	if _, err := s.Run(context.Background(), run.Stop{Passes: 3}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	calls := s.calls
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		if err := s.alg.Step(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(s.calls-calls)/float64(b.N), "calls/step")
}

// BenchmarkBCFWStepOCRLarge measures one BCFW block step (oracle + update)
// on OCR-large at lambda = 0.001; target <= 10 us, i.e. one effective pass
// over the 6,251 words in <= 65 ms.
func BenchmarkBCFWStepOCRLarge(b *testing.B) {
	_, large := loadOCR(b)
	benchSteps(b, large, config{Lambda: 1e-3, GapEvery: 1e9})
}

// BenchmarkBCFWGapStepOCRLarge adds gap sampling.
func BenchmarkBCFWGapStepOCRLarge(b *testing.B) {
	_, large := loadOCR(b)
	benchSteps(b, large, config{Lambda: 1e-3, Sampling: run.GapSampling, GapEvery: 1e9})
}

// BenchmarkBCFWAvgStepOCRLarge adds weighted averaging.
func BenchmarkBCFWAvgStepOCRLarge(b *testing.B) {
	_, large := loadOCR(b)
	benchSteps(b, large, config{Lambda: 1e-3, Averaging: true, GapEvery: 1e9})
}

// BenchmarkRecommendedWavgStepOCRLarge measures a block step of the
// recommended preset with the weighted average (gap sampling, pairwise
// steps, the gap-based cache) on OCR-large at lambda = 0.001: the
// average's update of the coordinates a pairwise step writes is part of
// it.
func BenchmarkRecommendedWavgStepOCRLarge(b *testing.B) {
	_, large := loadOCR(b)
	m := Recommended(1e-3)
	m.Average, m.GapEvery = run.WeightedAverage, 1e9
	cfg, err := m.plan()
	if err != nil {
		b.Fatal(err)
	}
	benchSteps(b, large, cfg)
}

// BenchmarkBCFWStepSynthetic runs without real data.
func BenchmarkBCFWStepSynthetic(b *testing.B) {
	p := oraclestest.Chain(oraclestest.ChainConfig{N: 1000, MaxLen: 14, Labels: 26, Features: 128, Density: 0.22, Seed: 1})
	benchSteps(b, p, config{Lambda: 1e-3, GapEvery: 1e9})
}

// BenchmarkOnlineEGStepOCRLarge measures one online-EG step on OCR-large
// at lambda = 0.001 (gradient, forward-backward per candidate step size,
// the update of w), to compare with BenchmarkBCFWStepOCRLarge.
func BenchmarkOnlineEGStepOCRLarge(b *testing.B) {
	_, large := loadOCR(b)
	benchSteps(b, large, config{Algorithm: run.OnlineEG, Lambda: 1e-3, GapEvery: 1e9})
}

// BenchmarkOnlineEGStepSynthetic runs without real data.
func BenchmarkOnlineEGStepSynthetic(b *testing.B) {
	p := oraclestest.Chain(oraclestest.ChainConfig{N: 1000, MaxLen: 14, Labels: 26, Features: 128, Density: 0.22, Seed: 1})
	benchSteps(b, p, config{Algorithm: run.OnlineEG, Lambda: 1e-3, GapEvery: 1e9})
}

// BenchmarkGapPassOCRLarge measures one exact duality-gap pass over
// OCR-large (n oracle calls plus the block dot products).
func BenchmarkGapPassOCRLarge(b *testing.B) {
	_, large := loadOCR(b)
	s, err := newSolver(large, config{Lambda: 1e-3, GapEvery: 1e9})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Run(context.Background(), run.Stop{Passes: 2}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		if _, err := s.Evaluate(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMemoryOCRLarge reports the heap held by a solver on OCR-large
// after one pass (target <= 300 MB for BCFW): dense per-block vectors for
// FW steps, explicit duals and corner sets for pairwise steps with a cache.
func BenchmarkMemoryOCRLarge(b *testing.B) {
	_, large := loadOCR(b)
	for _, v := range []struct {
		name string
		cfg  config
	}{
		{"bcfw", config{Lambda: 1e-3, GapEvery: 1e9}},
		{"bcpfw-gap-cache", config{Lambda: 1e-3, GapEvery: 1e9, Step: Pairwise, Sampling: run.GapSampling, Cache: cacheRule{Enabled: true}}},
	} {
		b.Run(v.name, func(b *testing.B) {
			for k := 0; k < b.N; k++ {
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				s, err := newSolver(large, v.cfg)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Run(context.Background(), run.Stop{Passes: 1}); err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/(1<<20), "MB-solver")
				b.ReportMetric(float64(after.HeapInuse)/(1<<20), "MB-total")
				runtime.KeepAlive(s)
			}
		})
	}
}

// BenchmarkVariantsOCRLarge measures one block step of each variant of
// Osokin et al. (2016) on OCR-large at lambda = 0.001 after a warm-up of 6
// passes (gap pass every 2): time per step and oracle calls per step, so the
// overhead of active sets and caches against the plain BCFW step is visible.
func BenchmarkVariantsOCRLarge(b *testing.B) {
	_, large := loadOCR(b)
	for _, samp := range []run.Sampling{run.Uniform, run.GapSampling} {
		for _, step := range []Step{FWStep, Pairwise, Away} {
			for _, cache := range []bool{false, true} {
				cfg := config{Lambda: 1e-3, Sampling: samp, Step: step, Cache: cacheRule{Enabled: cache}, GapEvery: 2}
				b.Run(fmt.Sprintf("%v/%v/cache=%v", samp, step, cache), func(b *testing.B) {
					s, err := newSolver(large, cfg)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := s.Run(context.Background(), run.Stop{Passes: 6}); err != nil {
						b.Fatal(err)
					}
					calls := s.OracleCalls()
					b.ResetTimer()
					for k := 0; k < b.N; k++ {
						s.bcfwStep()
					}
					b.ReportMetric(float64(s.OracleCalls()-calls)/float64(b.N), "calls/step")
				})
			}
		}
	}
}

// BenchmarkCacheScanVsOracleOCRLarge compares what a cache hit costs (scoring
// every cached corner of a block: one sparse dot product each) with a max
// oracle call, on OCR-large with warm caches.
func BenchmarkCacheScanVsOracleOCRLarge(b *testing.B) {
	_, large := loadOCR(b)
	s, err := newSolver(large, config{Lambda: 1e-3, Cache: cacheRule{Enabled: true}, GapEvery: 2})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Run(context.Background(), run.Stop{Passes: 10}); err != nil {
		b.Fatal(err)
	}
	var corners, entries int
	for i := range s.sets {
		corners += len(s.sets[i].entries)
		for _, e := range s.sets[i].entries {
			entries += int(e.nnz)
		}
	}
	b.Run("cache-scan", func(b *testing.B) {
		for k := 0; k < b.N; k++ {
			s.cornerScores(&s.sets[k%s.n])
		}
		b.ReportMetric(float64(corners)/float64(s.n), "corners/block")
		b.ReportMetric(float64(entries)/float64(corners), "nnz/corner")
	})
	b.Run("oracle", func(b *testing.B) {
		var y []int32
		for k := 0; k < b.N; k++ {
			y, _ = large.MaxOracle(k%s.n, s.x.w, y)
		}
	})
}
