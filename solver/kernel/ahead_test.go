package kernel

import (
	"fmt"
	"testing"

	"github.com/fwstruct/fwstruct/oracles/oraclestest"
	"github.com/fwstruct/fwstruct/solver/run"
)

// requireSameRun fails unless a and b have the same dual variables and
// traces (solver time aside), bit for bit.
func requireSameRun(t *testing.T, what string, a, b *Solver) {
	t.Helper()
	for j, v := range a.alpha {
		if v != b.alpha[j] {
			t.Fatalf("%s: alpha[%d] = %v and %v", what, j, v, b.alpha[j])
		}
	}
	ta, tb := a.Trace(), b.Trace()
	if len(ta) != len(tb) {
		t.Fatalf("%s: trace lengths %d and %d", what, len(ta), len(tb))
	}
	for i := range ta {
		ta[i].Seconds, tb[i].Seconds, ta[i].EvalSeconds, tb[i].EvalSeconds = 0, 0, 0, 0
		if fmt.Sprint(ta[i]) != fmt.Sprint(tb[i]) {
			t.Fatalf("%s: point %d differs:\n%+v\n%+v", what, i, ta[i], tb[i])
		}
	}
}

// TestParallelStepsAreTheSequentialRun runs BCFW and exact steps under
// every sampling, with shrinking, with and without a row cache (float64
// and float32 rows, too small for every row), on one, two and three
// workers, and once with the lookahead rows off (every kernel value
// computed by its step, one at a time, as before kernel blocks): the
// traces and dual variables are the same bit for bit, and for the
// samplings that can be guessed (uniform, permutation, shrinking) the
// lookahead computes few rows beyond those of the steps.
func TestParallelStepsAreTheSequentialRun(t *testing.T) {
	p := oraclestest.Multiclass(90, 4, 6, 11)
	n := int64(p.Len())
	k := Kernel{Kind: RBF, Gamma: 0.2}
	caches := map[string]func(*config){
		"no cache":      func(c *config) { c.CacheBytes = 0 },
		"cache":         func(c *config) { c.CacheBytes = 8 * n * 20 },
		"float32 cache": func(c *config) { c.CacheBytes, c.CacheFloat32 = 4*n*20, true },
	}
	for _, cfg := range []config{
		{Sampling: run.Uniform},
		{Sampling: run.Permutation, StepSize: run.Predefined, Averaging: true},
		{Sampling: run.GapSampling},
		{Sampling: run.Uniform, Exact: true},
		{Sampling: run.Permutation, Exact: true, Shrinking: true},
		{Sampling: run.Permutation, Exact: true, Shrinking: true, TraceEvery: 0.5},
	} {
		cfg.Lambda, cfg.Kernel, cfg.GapEvery, cfg.Seed = 0.01, k, 3, 5
		for name, cache := range caches {
			t.Run(fmt.Sprintf("%v exact %v shrinking %v %s", cfg.Sampling, cfg.Exact, cfg.Shrinking, name), func(t *testing.T) {
				runWith := func(workers int, off bool) *Solver {
					c := cfg
					cache(&c)
					s := mustNew(t, p, c, run.WithWorkers(workers), run.WithTrainLoss(true))
					s.ahead.off = off
					mustRun(t, s, run.Stop{Passes: 12})
					if _, err := s.Current(); err != nil {
						t.Fatal(err)
					}
					return s
				}
				ref := runWith(1, true)
				for _, W := range []int{1, 2, 3} {
					s := runWith(W, false)
					requireSameRun(t, fmt.Sprintf("%d workers against the run without lookahead", W), ref, s)
					hits, misses, _ := s.CacheStats()
					if h, m, _ := ref.CacheStats(); h != hits || m != misses {
						t.Fatalf("%d workers: cache hits and misses %d, %d; without lookahead %d, %d", W, hits, misses, h, m)
					}
					if cfg.Sampling != run.GapSampling && name == "no cache" && float64(s.ahead.blocksComputed) > 1.2*float64(s.Steps()) {
						t.Fatalf("%d workers: the lookahead computed %d rows for %d steps", W, s.ahead.blocksComputed, s.Steps())
					}
				}
			})
		}
	}
}
