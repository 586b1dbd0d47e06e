package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/internal/realdata"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/run"
)

var (
	uspsOnce            sync.Once
	uspsTrain, uspsTest *oracles.Multiclass
	uspsErr             error
	uspsCache           = int64(512 << 20) // every row of the 7,291 digits (425 MB)
)

// loadUSPS returns the USPS digits (7,291 training, 2,007 test, with the
// bias feature), skipping without the real data.
func loadUSPS(tb testing.TB) (train, test *oracles.Multiclass) {
	tb.Helper()
	dir := realdata.Dir(tb)
	uspsOnce.Do(func() {
		var tr, te oracles.Problem
		if tr, te, uspsErr = datasets.Load("usps", datasets.Options{Path: dir + "/usps"}); uspsErr == nil {
			uspsTrain, uspsTest = tr.(*oracles.Multiclass), te.(*oracles.Multiclass)
		}
	})
	if uspsErr != nil {
		tb.Fatal(uspsErr)
	}
	return uspsTrain, uspsTest
}

// holdOut splits p at random (seeded) into a training part and a
// validation part of m examples.
func holdOut(tb testing.TB, p *oracles.Multiclass, m int, seed uint64) (train, val *oracles.Multiclass) {
	perm := rand.New(rand.NewPCG(seed, 3)).Perm(p.Len())
	build := func(idx []int) *oracles.Multiclass {
		x := make([]oracles.SparseVec, len(idx))
		y := make([]int32, len(idx))
		for k, i := range idx {
			x[k], y[k] = p.Input(i), p.Truth(i)[0]
		}
		q, err := oracles.NewMulticlass(p.NumClasses(), p.NumFeatures(), x, y)
		if err != nil {
			tb.Fatal(err)
		}
		return q
	}
	return build(perm[m:]), build(perm[:m])
}

// benchStepsUSPS warms a kernelized RBF solver up for 5 passes (the cache
// then holds most of the entries it will hold), then times b.N block
// steps (oracle by kernel expansion over the support vectors, line search
// or exact step, update) on the given workers.
func benchStepsUSPS(b *testing.B, budget int64, exact bool, sampling run.Sampling, workers int) {
	train, _ := loadUSPS(b)
	cfg := config{Lambda: 1 / (100 * float64(train.Len())), Kernel: Kernel{Kind: RBF, Gamma: 0.0125}, GapEvery: math.Inf(1), Exact: exact, Sampling: sampling, CacheBytes: budget}
	s, err := newSolver(train, cfg, run.WithWorkers(workers))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Run(b.Context(), run.Stop{Passes: 5}); err != nil {
		b.Fatal(err)
	}
	h0, m0, _ := s.CacheStats()
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		s.bcfwStep()
	}
	b.StopTimer()
	h, m, bytes := s.CacheStats()
	b.ReportMetric(float64(s.SupportVectors()), "SVs")
	if budget > 0 {
		b.ReportMetric(float64(h-h0)/float64(h-h0+m-m0), "hit-rate")
		b.ReportMetric(float64(bytes)/(1<<20), "cache-MB")
	}
}

// BenchmarkKernelBCFWStepUSPS measures one kernelized BCFW step on USPS
// (RBF, gamma = 0.0125, C = 100, after 5 passes: about 2,500 support
// vectors) without a kernel cache, and with a cache holding every row.
func BenchmarkKernelBCFWStepUSPS(b *testing.B) {
	b.Run("nocache", func(b *testing.B) { benchStepsUSPS(b, 0, false, run.Uniform, 1) })
	b.Run("cache", func(b *testing.B) { benchStepsUSPS(b, uspsCache, false, run.Uniform, 1) })
}

// BenchmarkKernelExactStepUSPS is BenchmarkKernelBCFWStepUSPS with exact
// block steps (config.Exact: the projection onto the simplex in place of
// the line search; the kernel sums are the same).
func BenchmarkKernelExactStepUSPS(b *testing.B) {
	b.Run("nocache", func(b *testing.B) { benchStepsUSPS(b, 0, true, run.Uniform, 1) })
	b.Run("cache", func(b *testing.B) { benchStepsUSPS(b, uspsCache, true, run.Uniform, 1) })
}

// BenchmarkKernelStepUSPSParallel measures the parallel steps: exact
// steps under permutation and gap sampling without a cache, on one and
// two workers (the same run; see the package documentation, "Parallel
// steps"). Permutation sampling computes each step's row in a kernel block
// with the next 31 blocks' rows, its tiles spread over the workers; gap
// sampling splits its step's one row over them.
func BenchmarkKernelStepUSPSParallel(b *testing.B) {
	for _, sampling := range []run.Sampling{run.Permutation, run.GapSampling} {
		for _, W := range []int{1, 2} {
			b.Run(fmt.Sprintf("%v/workers=%d", sampling, W), func(b *testing.B) { benchStepsUSPS(b, 0, true, sampling, W) })
		}
	}
}

// BenchmarkKernelEvaluateUSPSParallel measures an exact evaluation of the
// iterate after 5 passes on USPS (RBF, C = 100): the gap pass over the
// 7,291 training digits and the test error over the 2,007 test digits,
// as kernel blocks on one and two workers.
func BenchmarkKernelEvaluateUSPSParallel(b *testing.B) {
	train, test := loadUSPS(b)
	cfg := config{Lambda: 1 / (100 * float64(train.Len())), Kernel: Kernel{Kind: RBF, Gamma: 0.0125}, GapEvery: math.Inf(1), Exact: true, Sampling: run.Permutation}
	s, err := newSolver(train, cfg, run.WithTest(test))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Run(b.Context(), run.Stop{Passes: 5}); err != nil {
		b.Fatal(err)
	}
	for _, W := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", W), func(b *testing.B) {
			if err := s.SetWorkers(W); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := s.Evaluate(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(s.SupportVectors()), "SVs")
		})
	}
}

// BenchmarkUSPSValidation chooses the kernel parameters and lambda on a
// validation split of the USPS training digits (6,000 to train, 1,291 to
// validate, seeded), 30 passes each, and logs the validation errors: for
// the RBF kernel gamma and C = 1/(lambda n), for the linear kernel C. Run
// with -benchtime 1x (minutes).
func BenchmarkUSPSValidation(b *testing.B) {
	full, _ := loadUSPS(b)
	train, val := holdOut(b, full, 1291, 1)
	grids := map[string][]Kernel{
		"rbf":    {{Kind: RBF, Gamma: 0.00625}, {Kind: RBF, Gamma: 0.0125}, {Kind: RBF, Gamma: 0.025}},
		"linear": {{Kind: Linear}},
	}
	for _, name := range []string{"rbf", "linear"} {
		b.Run(name, func(b *testing.B) {
			best, bestErr := "", math.Inf(1)
			for _, k := range grids[name] {
				for _, C := range []float64{0.1, 1, 10, 100} {
					if name == "rbf" && C < 1 {
						continue
					}
					lambda := 1 / (C * float64(train.Len()))
					s, err := newSolver(train, config{Lambda: lambda, Kernel: k, GapEvery: 10, CacheBytes: uspsCache}, run.WithTest(val))
					if err != nil {
						b.Fatal(err)
					}
					if _, err := s.Run(b.Context(), run.Stop{Passes: 30}); err != nil {
						b.Fatal(err)
					}
					pt, _ := s.Current()
					b.Logf("%v lambda %-9.3g (C = 1/(lambda n) = %g): validation error %.4f, gap %.4g, %d SVs, %.1f s", k, lambda, C, pt.TestLoss, pt.Gap, s.SupportVectors(), s.Elapsed().Seconds())
					if pt.TestLoss < bestErr {
						best, bestErr = fmt.Sprintf("%v, C %g", k, C), pt.TestLoss
					}
				}
			}
			b.Logf("best: %s, validation error %.4f", best, bestErr)
		})
	}
}

// BenchmarkUSPS trains on the 7,291 USPS training digits for 40 passes and
// reports the test error on the 2,007 test digits of the linear and the RBF
// kernel, each with the parameters BenchmarkUSPSValidation chose (C =
// 1/(lambda n) kept from the split: linear C = 0.1; RBF gamma = 0.0125,
// C = 100); the solver time, the support vectors, and the bound of Theorem
// 2 on the steps (hence support vectors) for the expected gap eps reached,
// K + 1 >= (24 R^2/lambda + 6n)/eps with R^2 = 2 max_i k(x_i, x_i) (the
// paper's O(R^2/(lambda eps))). Run with -benchtime 1x (minutes).
func BenchmarkUSPS(b *testing.B) {
	train, test := loadUSPS(b)
	for _, tc := range []struct {
		k Kernel
		C float64
	}{{Kernel{Kind: Linear}, 0.1}, {Kernel{Kind: RBF, Gamma: 0.0125}, 100}} {
		b.Run(tc.k.Kind.String(), func(b *testing.B) {
			lambda := 1 / (tc.C * float64(train.Len()))
			s, err := newSolver(train, config{Lambda: lambda, Kernel: tc.k, GapEvery: 10, CacheBytes: uspsCache}, run.WithTest(test))
			if err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			if _, err := s.Run(b.Context(), run.Stop{Passes: 40}); err != nil {
				b.Fatal(err)
			}
			wall := time.Since(start)
			pt, _ := s.Current()
			var r2 float64
			for _, d := range s.diag {
				r2 = math.Max(r2, 2*d)
			}
			bound := (24*r2/lambda + 6*float64(s.n)) / pt.Gap
			h, m, _ := s.CacheStats()
			for _, p := range s.Trace() {
				b.Logf("  pass %5.1f  gap %.4g  primal %.5g  test error %.4f  solver %.1f s", p.Pass, p.Gap, p.Primal, p.TestLoss, p.Seconds)
			}
			b.Logf("%v lambda %.3g (C %g): test error %.4f, gap %.4g (primal %.5g) after %.0f passes, %d steps; solver %.1f s (wall %.1f s with evaluations); %d SVs of %d; bound %.3g steps; kernel cache hit rate %.3f",
				tc.k, lambda, tc.C, pt.TestLoss, pt.Gap, pt.Primal, pt.Pass, s.Steps(), s.Elapsed().Seconds(), wall.Seconds(), s.SupportVectors(), s.n, bound, float64(h)/float64(h+m))
			b.ReportMetric(pt.TestLoss, "test-error")
			b.ReportMetric(s.Elapsed().Seconds(), "solver-s")
			b.ReportMetric(float64(s.SupportVectors()), "SVs")
			b.ReportMetric(bound, "SV-bound")
			b.ReportMetric(pt.Gap, "gap")
		})
	}
}
