package solver

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/run"
)

// TestSparseStorageFollowsDense runs every FW-step variant with dense and
// with sparse block vectors from the same seed: the iterates and traces must
// agree up to rounding.
func TestSparseStorageFollowsDense(t *testing.T) {
	p := smallChain(31)
	lo := fill(p.Dim(), math.Inf(-1))
	for j := 0; j < p.Dim(); j += 3 {
		lo[j] = 0
	}
	for _, v := range []struct {
		name string
		cfg  config
	}{
		{"uniform", config{}},
		{"perm predefined", config{Sampling: run.Permutation, StepSize: run.Predefined}},
		{"gap sampling", config{Sampling: run.GapSampling, GapEvery: 2}},
		{"averaging", config{Averaging: true}},
		{"cache", config{Cache: cacheRule{Enabled: true}, GapEvery: 2}},
		{"box", config{Box: &Box{Lower: lo}, Averaging: true}},
	} {
		t.Run(v.name, func(t *testing.T) {
			cfg := v.cfg
			cfg.Lambda, cfg.Seed = 0.05, 5
			a := mustNew(t, p, withStorage(cfg, DenseBlocks))
			b := mustNew(t, p, withStorage(cfg, SparseBlocks))
			if a.Storage() != DenseBlocks || b.Storage() != SparseBlocks {
				t.Fatalf("storage %v and %v", a.Storage(), b.Storage())
			}
			for round := 1; round <= 3; round++ {
				mustRun(t, a, run.Stop{Passes: float64(8 * round)})
				mustRun(t, b, run.Stop{Passes: float64(8 * round)})
				checkConsistency(t, b)
			}
			wa, wb := a.Weights(), b.Weights()
			for j := range wa {
				if math.Abs(wa[j]-wb[j]) > 1e-9*(1+math.Abs(wa[j])) {
					t.Fatalf("w[%d]: dense %v, sparse %v", j, wa[j], wb[j])
				}
			}
			ta, tb := a.Trace(), b.Trace()
			if len(ta) != len(tb) {
				t.Fatalf("trace lengths %d and %d", len(ta), len(tb))
			}
			for k := range ta {
				for _, f := range [][2]float64{{ta[k].Gap, tb[k].Gap}, {ta[k].Primal, tb[k].Primal}, {ta[k].GapAvg, tb[k].GapAvg}} {
					if math.Abs(f[0]-f[1]) > 1e-9*(1+math.Abs(f[0])) && !(math.IsNaN(f[0]) && math.IsNaN(f[1])) {
						t.Fatalf("trace point %d: dense %+v\nsparse %+v", k, ta[k], tb[k])
					}
				}
			}
		})
	}
}

// TestAutoStorageForLargeD: a problem whose dense blocks would need more
// than DenseBlockLimit gets sparse blocks whose size is a tiny fraction of
// n*d, and a pass costs far less than touching n*d floats would.
func TestAutoStorageForLargeD(t *testing.T) {
	const n, K, F = 300, 8, 200_000 // n*d*8 = 3.8 GB
	rng := rand.New(rand.NewPCG(4, 4))
	seqs := make([]oracles.Sequence, n)
	for i := range seqs {
		T := 3 + rng.IntN(4)
		seqs[i] = oracles.Sequence{Labels: make([]int32, T), Features: make([]oracles.SparseVec, T)}
		for p := 0; p < T; p++ {
			seqs[i].Labels[p] = int32(rng.IntN(K))
			for f := range 5 {
				seqs[i].Features[p].Append(int32(rng.IntN(F/5)*5+f), 1)
			}
		}
	}
	p, err := oracles.NewChain(K, F, seqs)
	if err != nil {
		t.Fatal(err)
	}
	s := mustNew(t, p, config{Lambda: 1.0 / n, Averaging: true, GapEvery: 5})
	if s.Storage() != SparseBlocks {
		t.Fatalf("storage %v for n*d = %d", s.Storage(), n*p.Dim())
	}
	mustRun(t, s, run.Stop{Passes: 12})
	checkConsistency(t, s)
	if nz, all := s.store.nonzeros(), int64(n)*int64(p.Dim()); nz*1000 > all {
		t.Fatalf("sparse blocks hold %d values, more than 0.1%% of n*d = %d", nz, all)
	}
	for _, pt := range s.Trace() {
		if math.Abs(pt.Primal-pt.Dual-pt.Gap) > 1e-9*(1+pt.Primal) {
			t.Fatalf("certificate broken at pass %v: %+v", pt.Pass, pt)
		}
	}
}

// TestLazyAverageMatchesEager steps BCFW by hand and compares the lazy
// weighted average with the eager recursion xbar(k+1) = k/(k+2) xbar(k) +
// 2/(k+2) x(k+1) (Lacoste-Julien et al. 2013, App. C) on every coordinate,
// for dense, sparse and explicit-dual blocks, with a box.
func TestLazyAverageMatchesEager(t *testing.T) {
	p := smallChain(32)
	lo := fill(p.Dim(), math.Inf(-1))
	lo[1], lo[4] = 0, 0
	for _, tc := range []struct {
		cfg config
	}{
		{config{Storage: DenseBlocks}},
		{config{Storage: SparseBlocks}},
		{config{Step: Pairwise, Storage: AutoStorage}},
		{config{Box: &Box{Lower: lo}, Storage: SparseBlocks}},
	} {
		t.Run(fmt.Sprintf("%v/%v", tc.cfg.Step, tc.cfg.Box != nil), func(t *testing.T) {
			cfg := tc.cfg
			cfg.Lambda, cfg.Averaging = 0.1, true
			s := mustNew(t, p, cfg)
			eager := make([]float64, s.d)
			var ellBar float64
			got := make([]float64, s.d)
			for k := 0; k < 5*s.n; k++ {
				if err := s.bcfwStep(); err != nil {
					t.Fatal(err)
				}
				rho, eta := float64(k)/float64(k+2), 2/float64(k+2)
				for j := range eager {
					eager[j] = rho*eager[j] + eta*s.x.v[j]
				}
				ellBar = rho*ellBar + eta*s.ell
				if k%7 == 0 || k == 5*s.n-1 {
					s.avg.Value(s.x.v, got)
					for j := range got {
						if math.Abs(got[j]-eager[j]) > 1e-12*(1+math.Abs(eager[j])) {
							t.Fatalf("step %d coordinate %d: lazy %v, eager %v", k, j, got[j], eager[j])
						}
					}
					if math.Abs(s.avg.Ell-ellBar) > 1e-12*(1+ellBar) {
						t.Fatalf("step %d: averaged ell %v, eager %v", k, s.avg.Ell, ellBar)
					}
				}
			}
		})
	}
}

// TestRunNeverExceedsPassBudget: a run stops at or below its pass budget,
// also when a gap pass would cross it, and splitting a run does not change
// its trajectory.
func TestRunNeverExceedsPassBudget(t *testing.T) {
	p := smallChain(33)
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			cfg := v.cfg
			cfg.Lambda, cfg.GapEvery = 0.1, 1
			s := mustNew(t, p, cfg)
			for _, budget := range []float64{2.5, 7.25, 10} {
				res, err := s.Run(t.Context(), run.Stop{Passes: budget})
				if err != nil {
					t.Fatal(err)
				}
				if s.Passes() > budget+1e-9 || s.Passes() < budget-1-1e-9 {
					t.Fatalf("budget %v: stopped at %v passes", budget, s.Passes())
				}
				cur, err := s.Current()
				if err != nil {
					t.Fatal(err)
				}
				if cur.Steps != s.Steps() || (res.Current && res.Last.Steps != s.Steps()) {
					t.Fatalf("Current describes step %d, solver at %d (result %+v)", cur.Steps, s.Steps(), res)
				}
			}
		})
	}
}
