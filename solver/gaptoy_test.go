package solver

import (
	"math"
	"sort"
	"testing"

	"github.com/fwstruct/fwstruct/internal/gendata"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/run"
)

// callsToGap runs until an exact gap <= eps, with observe-only evaluations
// every traceEvery passes, and returns the oracle calls the algorithm made
// by then.
func callsToGap(t *testing.T, p oracles.Problem, cfg config, eps, traceEvery, maxPasses float64) int64 {
	t.Helper()
	cfg.TraceEvery = traceEvery
	s := mustNew(t, p, cfg)
	if st := mustRun(t, s, run.Stop{Gap: eps, Passes: maxPasses}); st != run.StatusConverged {
		last, _ := s.Last()
		t.Fatalf("%v sampling: gap %v > %v after %v passes", cfg.Sampling, last.Gap, eps, s.Passes())
	}
	last, _ := s.Last()
	return last.OracleCalls
}

// TestGapSamplingToy reproduces the toy example of Osokin et al. (2016,
// App. C): n-1 easy objects and one hard object with K labels, lambda = 1/n.
// Gap sampling visits every easy object once and then only the hard one,
// about n + t oracle calls for t steps on the hard block; uniform sampling
// needs about n t.
func TestGapSamplingToy(t *testing.T) {
	const n, K, eps = 100, 200, 5e-5
	p, err := gendata.GapToy(n, K)
	if err != nil {
		t.Fatal(err)
	}
	var gapCalls, uniCalls []float64
	for seed := uint64(1); seed <= 3; seed++ {
		cfg := config{Lambda: 1.0 / n, Seed: seed, GapEvery: math.Inf(1)}
		uni := cfg
		uni.Sampling = run.Uniform
		gap := cfg
		gap.Sampling = run.GapSampling
		uniCalls = append(uniCalls, float64(callsToGap(t, p, uni, eps, 0.05, 1e5)))
		gapCalls = append(gapCalls, float64(callsToGap(t, p, gap, eps, 0.05, 1e5)))
	}
	sort.Float64s(uniCalls)
	sort.Float64s(gapCalls)
	ratio := uniCalls[1] / gapCalls[1]
	t.Logf("oracle calls to gap %g: uniform %v, gap sampling %v (median ratio %.1f)", eps, uniCalls, gapCalls, ratio)
	// t steps on the hard block: gap sampling spends n calls on the easy
	// blocks plus about t on the hard one.
	tHard := gapCalls[1] - n
	if tHard <= 0 || tHard > 4/(2*n*eps) {
		t.Fatalf("gap sampling made %v calls, inconsistent with n + t, t ~ 1/(2 n eps) = %v", gapCalls[1], 1/(2*n*eps))
	}
	if ratio < n/4 {
		t.Fatalf("uniform/gap sampling call ratio %.1f, want >= n/4 = %d", ratio, n/4)
	}

	// The solution is the optimum of App. C.1.
	s := mustNew(t, p, config{Lambda: 1.0 / n, Step: Pairwise, Sampling: run.GapSampling, GapEvery: 1})
	mustRun(t, s, run.Stop{Gap: 1e-10, Passes: 1e4})
	want := gendata.GapToyOptimum(K)
	for j, x := range s.Weights() {
		if math.Abs(x-want[j]) > 1e-4 {
			t.Fatalf("w[%d] = %v, optimum %v", j, x, want[j])
		}
	}
}
