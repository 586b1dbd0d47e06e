package solver

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
	"github.com/fwstruct/fwstruct/solver/execution"
	"github.com/fwstruct/fwstruct/solver/run"
)

func smallChain(seed uint64) *oracles.Chain {
	return oraclestest.Chain(oraclestest.ChainConfig{N: 12, MaxLen: 4, Labels: 3, Features: 4, Density: 0.7, Seed: seed})
}

func mustNew(t testing.TB, p oracles.Problem, cfg config, opts ...run.Option) *Solver {
	t.Helper()
	s, err := newSolver(p, cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// recommended is the plan of Recommended (its Lambda zero).
func recommended() config {
	cfg, err := Recommended(0).plan()
	if err != nil {
		panic(err)
	}
	return cfg
}

// withStorage returns cfg with the block storage st.
func withStorage(cfg config, st Storage) config {
	cfg.Storage = st
	return cfg
}

func mustRun(t testing.TB, s *Solver, stop run.Stop) run.Status {
	t.Helper()
	res, err := s.Run(context.Background(), stop)
	if err != nil {
		t.Fatal(err)
	}
	return res.Status
}

func mustEval(t testing.TB, s *Solver) run.Point {
	t.Helper()
	pt, err := s.Evaluate()
	if err != nil {
		t.Fatal(err)
	}
	return pt
}

// blockVector returns v_i in any representation.
func blockVector(s *Solver, i int) []float64 {
	return s.store.(interface{ dense(int) []float64 }).dense(i)
}

// maintainedNorm returns the |v_i|^2 a store maintains incrementally (ok
// false for explicit duals, which keep none).
func maintainedNorm(s *Solver, i int) (float64, bool) {
	switch b := s.store.(type) {
	case *denseStore:
		return b.norm[i], true
	case *sparseStore:
		return b.norm[i], true
	}
	return 0, false
}

// checkConsistency recomputes the dual bookkeeping from scratch: v = sum v_i,
// ell = sum ell_i, w = [v]; with dense blocks the maintained |v_i|^2; with
// explicit duals alpha >= 0, sum alpha = 1, ell_i = sum alpha L/n and the
// Gram matrix of every block against direct dot products.
func checkConsistency(t *testing.T, s *Solver) {
	t.Helper()
	if s.ellI == nil {
		return
	}
	n := float64(s.n)
	sumV := make([]float64, s.d)
	var sumEll float64
	for i := 0; i < s.n; i++ {
		vi := blockVector(s, i)
		for j, x := range vi {
			sumV[j] += x
		}
		sumEll += s.ellI[i]
		if kept, ok := maintainedNorm(s, i); ok {
			var nrm float64
			for _, x := range vi {
				nrm += x * x
			}
			if math.Abs(nrm-kept) > 1e-8*(1+nrm) {
				t.Fatalf("block %d: maintained |v_i|^2 = %v, actual %v", i, kept, nrm)
			}
		}
		if !s.cfg.explicitDuals() {
			continue
		}
		set := &s.sets[i]
		var ell, mass float64
		for k, e := range set.entries {
			if e.alpha < 0 {
				t.Fatalf("block %d: negative mass %v", i, e.alpha)
			}
			mass += e.alpha
			ell += e.alpha * e.loss / n
			a := set.psi(k)
			for m := range set.entries {
				b := set.psi(m)
				if want := oraclestest.SparseDot(&a, &b, make([]float64, s.d)); math.Abs(set.g(k, m)-want) > 1e-9*(1+math.Abs(want)) {
					t.Fatalf("block %d: Gram[%d][%d] = %v, want %v", i, k, m, set.g(k, m), want)
				}
			}
		}
		if math.Abs(mass-1) > 1e-12 {
			t.Fatalf("block %d: dual mass %v, want 1 to machine precision", i, mass)
		}
		if math.Abs(ell-s.ellI[i]) > 1e-10 {
			t.Fatalf("block %d: ell_i = %v, from alpha %v", i, s.ellI[i], ell)
		}
	}
	for j := range sumV {
		if math.Abs(sumV[j]-s.x.v[j]) > 1e-9*(1+math.Abs(s.x.v[j])) {
			t.Fatalf("coordinate %d: v = %v, sum of blocks %v", j, s.x.v[j], sumV[j])
		}
		want := sumV[j]
		if s.box != nil {
			want = s.box.clip(j, sumV[j])
		}
		if math.Abs(want-s.x.w[j]) > 1e-9*(1+math.Abs(want)) {
			t.Fatalf("coordinate %d: w = %v, want [v] = %v", j, s.x.w[j], want)
		}
	}
	if math.Abs(sumEll-s.ell) > 1e-10 {
		t.Fatalf("ell = %v, sum of blocks %v", s.ell, sumEll)
	}
}

// bruteForcePrimal computes the primal objective with exhaustive decoding.
func bruteForcePrimal(p oracles.LabeledProblem, lambda float64, w []float64) float64 {
	ex := oracles.Exhaustive{LabeledProblem: p}
	var sum float64
	for i := 0; i < p.Len(); i++ {
		_, h := ex.MaxOracle(i, w, nil)
		sum += h
	}
	var nrm float64
	for _, x := range w {
		nrm += x * x
	}
	return lambda/2*nrm + sum/float64(p.Len())
}

var variants = []struct {
	name string
	cfg  config
}{
	{"bcfw uniform", config{}},
	{"bcfw perm", config{Sampling: run.Permutation}},
	{"bcfw predefined step", config{StepSize: run.Predefined}},
	{"bcfw gap sampling", config{Sampling: run.GapSampling, GapEvery: 2}},
	{"bcfw averaging", config{Averaging: true}},
	{"bcfw suffix averaging", config{Averaging: true, AverageKind: run.SuffixAverage}},
	{"bcfw uniform averaging", config{Averaging: true, AverageKind: run.UniformAverage}},
	{"bcpfw", config{Step: Pairwise}},
	{"bcafw", config{Step: Away}},
	{"bcfw cache", config{Cache: cacheRule{Enabled: true}, GapEvery: 2}},
	{"bcpfw gap cache", config{Step: Pairwise, Sampling: run.GapSampling, Cache: cacheRule{Enabled: true, Cache: Cache{MaxSize: 3}}, GapEvery: 2}},
	{"bcafw gap cache", config{Step: Away, Sampling: run.GapSampling, Cache: cacheRule{Enabled: true}, GapEvery: 3}},
	{"bcpfw gap cache as gapBCFW", config{Step: Pairwise, Sampling: run.GapSampling, UnvisitedInOrder: true, Cache: cacheRule{Enabled: true, Cache: Cache{MaxSize: 100, InitialGap: 1}}, GapEvery: 2}},
	{"mp-bcfw", config{Sampling: run.Permutation, MultiPlane: mpConfig{Enabled: true, Rule: ruleCost, CostRatio: 40}}},
	{"mp-bcfw averaging small sets", config{Sampling: run.Permutation, Averaging: true, MultiPlane: mpConfig{Enabled: true, Rule: ruleCost, CostRatio: 400, N: 2, T: 2}}},
	{"mp-bcafw averaging", config{Sampling: run.Permutation, Step: Away, Averaging: true, MultiPlane: mpConfig{Enabled: true, Rule: ruleCost, CostRatio: 100, T: 3}}},
	{"mini-batch bcfw", config{Execution: execution.MiniBatch{Batch: 4}}},
	{"mini-batch bcfw perm predefined", config{Sampling: run.Permutation, StepSize: run.Predefined, Execution: execution.MiniBatch{Batch: 3}}},
	{"mini-batch bcpfw gap sampling", config{Step: Pairwise, Sampling: run.GapSampling, GapEvery: 2, Execution: execution.MiniBatch{Batch: 5}}},
	{"mini-batch bcafw averaging", config{Step: Away, Averaging: true, Execution: execution.MiniBatch{Batch: 4}}},
	{"simulated 4 workers", config{Execution: execution.Simulated{Workers: 4}}},
	{"mini-batch bcpfw gap cache", config{Step: Pairwise, Sampling: run.GapSampling, Cache: cacheRule{Enabled: true, Cache: Cache{MaxSize: 3}}, GapEvery: 2, Execution: execution.MiniBatch{Batch: 4}}},
	{"simulated 6 workers bcafw cache", config{Step: Away, Cache: cacheRule{Enabled: true}, GapEvery: 2, Execution: execution.Simulated{Workers: 6}}},
	{"simulated 9 workers bcpfw gap sampling", config{Step: Pairwise, Sampling: run.GapSampling, GapEvery: 2, Execution: execution.Simulated{Workers: 9}}},
	{"mini-batch bcfw lookahead 1", config{Execution: execution.MiniBatch{Batch: 4, Lookahead: 1}}},
	{"mini-batch bcpfw gap cache lookahead 2", config{Step: Pairwise, Sampling: run.GapSampling, Cache: cacheRule{Enabled: true, Cache: Cache{MaxSize: 3}}, GapEvery: 2, Execution: execution.MiniBatch{Batch: 3, Lookahead: 2}}},
	{"mini-batch bcafw perm averaging lookahead 3", config{Step: Away, Sampling: run.Permutation, Averaging: true, Execution: execution.MiniBatch{Batch: 2, Lookahead: 3}}},
	{"simulated 3 workers replayed delays bcpfw", config{Step: Pairwise, Execution: execution.Simulated{Workers: 3, Delays: &execution.Delays{Weights: []float64{1, 3, 1}}}}},
	{"mini-batch mp-bcfw", config{Sampling: run.Permutation, MultiPlane: mpConfig{Enabled: true, Rule: ruleCost, CostRatio: 40}, Execution: execution.MiniBatch{Batch: 5}}},
	{"mini-batch mp-bcpfw averaging lookahead 1", config{Step: Pairwise, Sampling: run.Permutation, Averaging: true, MultiPlane: mpConfig{Enabled: true, Rule: ruleCost, CostRatio: 100, T: 3}, Execution: execution.MiniBatch{Batch: 4, Lookahead: 1}}},
	{"fw", config{Algorithm: run.FW}},
	{"fw predefined averaging", config{Algorithm: run.FW, StepSize: run.Predefined, Averaging: true}},
	{"ssg averaging", config{Algorithm: run.SSG, Averaging: true}},
	{"ssg suffix averaging", config{Algorithm: run.SSG, Averaging: true, AverageKind: run.SuffixAverage}},
	{"ssg uniform averaging", config{Algorithm: run.SSG, Averaging: true, AverageKind: run.UniformAverage}},
	{"cutting plane", config{Algorithm: run.CuttingPlane}},
	{"cutting plane no cache", config{Algorithm: run.CuttingPlane, CPCache: -1}},
	{"cutting plane cache 2", config{Algorithm: run.CuttingPlane, CPCache: 2, CPTol: 0.1}},
}

// TestGapIsPrimalMinusDual checks the certificate at every trace point of
// every variant: the gap (a sum of block gaps) equals the primal minus the
// dual, the primal equals a brute-force recomputation, and the dual
// bookkeeping is consistent.
func TestGapIsPrimalMinusDual(t *testing.T) {
	p := smallChain(1)
	for _, lambda := range []float64{0.1, 1} {
		for _, v := range variants {
			t.Run(fmt.Sprintf("%s lambda=%v", v.name, lambda), func(t *testing.T) {
				cfg := v.cfg
				cfg.Lambda = lambda
				cfg.TraceEvery = 1
				s := mustNew(t, p, cfg)
				for round := 0; round < 4; round++ {
					mustRun(t, s, run.Stop{Passes: float64(10 * (round + 1))})
					checkConsistency(t, s)
					last, _ := s.Last()
					if bf := bruteForcePrimal(p, lambda, s.Weights()); math.Abs(bf-mustEval(t, s).Primal) > 1e-9 {
						t.Fatalf("primal %v, brute force %v", last.Primal, bf)
					}
				}
				tr := s.Trace()
				if len(tr) < 5 {
					t.Fatalf("only %d trace points", len(tr))
				}
				for k, pt := range tr {
					if cfg.Algorithm == run.SSG {
						if !math.IsNaN(pt.Gap) || math.IsNaN(pt.Primal) || math.IsNaN(pt.PrimalAvg) {
							t.Fatalf("SSG point %d: %+v", k, pt)
						}
						continue
					}
					if d := pt.Primal - pt.Dual; math.Abs(d-pt.Gap) > 1e-9*(1+math.Abs(pt.Primal)) {
						t.Fatalf("point %d: gap %v but primal - dual = %v", k, pt.Gap, d)
					}
					if pt.Gap < -1e-12 {
						t.Fatalf("point %d: negative gap %v", k, pt.Gap)
					}
					if cfg.Averaging && math.Abs(pt.PrimalAvg-pt.DualAvg-pt.GapAvg) > 1e-9 {
						t.Fatalf("point %d: averaged gap inconsistent", k)
					}
				}
				if cfg.Algorithm == run.SSG {
					return
				}
				// Every step is an exact line search on the dual, so the dual
				// never decreases (not so with the predefined step size).
				for k := 1; k < len(tr) && cfg.StepSize == run.LineSearch; k++ {
					if tr[k].Dual < tr[k-1].Dual-1e-12 {
						t.Fatalf("dual decreased at point %d: %v -> %v", k, tr[k-1].Dual, tr[k].Dual)
					}
				}
				// FW with the predefined step 2/(k+2) gains O(1/k) only.
				fall := 2.0
				if cfg.Algorithm == run.FW && cfg.StepSize == run.Predefined {
					fall = 1.5
				}
				if first, last := tr[0], tr[len(tr)-1]; !(last.Gap < first.Gap/fall) {
					t.Fatalf("gap did not fall: %v -> %v", first.Gap, last.Gap)
				}
			})
		}
	}
}

// TestSolversAgreeOnOptimum runs BCFW, FW and the pairwise and away variants
// to a certified gap of 1e-4 and checks that they reach the same objective.
func TestSolversAgreeOnOptimum(t *testing.T) {
	p := smallChain(2)
	const lambda, tol = 0.1, 1e-4
	type result struct {
		name   string
		primal float64
		dual   float64
		w      []float64
	}
	var results []result
	for _, v := range []struct {
		name string
		cfg  config
	}{
		{"bcfw", config{GapEvery: 5}},
		{"fw", config{Algorithm: run.FW, GapEvery: 1}},
		{"bcpfw", config{Step: Pairwise, GapEvery: 5}},
		{"bcafw gap cache", config{Step: Away, Sampling: run.GapSampling, Cache: cacheRule{Enabled: true}, GapEvery: 5}},
		{"mini-batch bcfw", config{GapEvery: 5, Execution: execution.MiniBatch{Batch: 6}}},
		{"mini-batch bcpfw gap cache lookahead 1", config{Step: Pairwise, Sampling: run.GapSampling, Cache: cacheRule{Enabled: true}, GapEvery: 5, Execution: execution.MiniBatch{Batch: 4, Lookahead: 1}}},
	} {
		cfg := v.cfg
		cfg.Lambda = lambda
		s := mustNew(t, p, cfg)
		st := mustRun(t, s, run.Stop{Gap: tol, Passes: 200000})
		last, _ := s.Last()
		if st != run.StatusConverged || last.Gap > tol {
			t.Fatalf("%s: status %v, gap %v after %v passes", v.name, st, last.Gap, last.Pass)
		}
		results = append(results, result{v.name, last.Primal, last.Dual, s.Weights()})
	}
	// Every primal lies above every dual (weak duality) and within tol of it.
	for _, a := range results {
		for _, b := range results {
			if a.primal < b.dual-1e-12 || a.primal-b.dual > 2*tol {
				t.Fatalf("%s primal %v vs %s dual %v", a.name, a.primal, b.name, b.dual)
			}
		}
	}
	// Strong convexity: |w - w*|^2 <= 2 gap / lambda for each solver.
	for _, a := range results[1:] {
		var d2 float64
		for j := range a.w {
			d := a.w[j] - results[0].w[j]
			d2 += d * d
		}
		if bound := 2 * (2 * 2 * tol) / lambda; d2 > bound {
			t.Fatalf("%s weights differ from bcfw by %v > %v", a.name, d2, bound)
		}
	}
}

func TestInvalidSettings(t *testing.T) {
	p := smallChain(3)
	cases := []struct {
		name string
		cfg  config
	}{
		{"zero lambda", config{}},
		{"negative lambda", config{Lambda: -1}},
		{"NaN lambda", config{Lambda: math.NaN()}},
		{"infinite lambda", config{Lambda: math.Inf(1)}},
		{"negative gap every", config{Lambda: 1, GapEvery: -1}},
		{"negative trace every", config{Lambda: 1, TraceEvery: -1}},
		{"unknown algorithm", config{Lambda: 1, Algorithm: 9}},
		{"unknown sampling", config{Lambda: 1, Sampling: 9}},
		{"example-perm on whole examples", config{Lambda: 1, Sampling: run.ExamplePermutation}},
		{"unknown step", config{Lambda: 1, Step: 9}},
		{"fw with gap sampling", config{Lambda: 1, Algorithm: run.FW, Sampling: run.GapSampling}},
		{"ssg with pairwise", config{Lambda: 1, Algorithm: run.SSG, Step: Pairwise}},
		{"fw with cache", config{Lambda: 1, Algorithm: run.FW, Cache: cacheRule{Enabled: true}}},
		{"pairwise with predefined step", config{Lambda: 1, Step: Pairwise, StepSize: run.Predefined}},
		{"negative cache F", config{Lambda: 1, Cache: cacheRule{Enabled: true, Cache: Cache{F: -1}}}},
		{"negative cache size", config{Lambda: 1, Cache: cacheRule{Enabled: true, Cache: Cache{MaxSize: -1}}}},
		{"box of wrong size", config{Lambda: 1, Box: &Box{Lower: []float64{0}}}},
		{"infeasible box", config{Lambda: 1, Box: &Box{Lower: fill(p.Dim(), 1), Upper: fill(p.Dim(), 0)}}},
	}
	for _, tc := range cases {
		if _, err := newSolver(p, tc.cfg); err == nil {
			t.Errorf("%s: New accepted %+v", tc.name, tc.cfg)
		}
	}
	if _, err := newSolver(p, config{Lambda: 1}, run.WithTest(oraclestest.Multiclass(3, 2, 2, 1))); err == nil {
		t.Error("New accepted a test problem of the wrong dimension")
	}
	if _, err := newSolver(p, config{Lambda: 1}, run.WithWorkers(-2)); err == nil {
		t.Error("New accepted negative workers")
	}
	if _, err := newSolver(nil, config{Lambda: 1}); err == nil {
		t.Error("New accepted a nil problem")
	}
	s := mustNew(t, p, config{Lambda: 1})
	for _, stop := range []run.Stop{{Passes: -1}, {Passes: math.NaN()}, {Passes: math.Inf(1)}, {Gap: math.NaN()}, {Duration: -time.Second}, {}, {EarlyCheck: 0.8, Passes: 1}} {
		if _, err := s.Run(context.Background(), stop); err == nil {
			t.Errorf("Run accepted %+v", stop)
		}
	}
}

// requireSameRun fails unless two solvers hold the same weights and traces
// (solver time aside).
func requireSameRun(t *testing.T, a, b *Solver) {
	t.Helper()
	wa, wb := a.Weights(), b.Weights()
	for j := range wa {
		if wa[j] != wb[j] {
			t.Fatalf("weights differ at %d: %v vs %v", j, wa[j], wb[j])
		}
	}
	ta, tb := a.Trace(), b.Trace()
	if len(ta) != len(tb) {
		t.Fatalf("trace lengths %d vs %d", len(ta), len(tb))
	}
	for k := range ta {
		ta[k].Seconds, tb[k].Seconds, ta[k].EvalSeconds, tb[k].EvalSeconds = 0, 0, 0, 0
		ta[k].OracleTimeShare, tb[k].OracleTimeShare = 0, 0
		if fmt.Sprint(ta[k]) != fmt.Sprint(tb[k]) {
			t.Fatalf("trace point %d differs:\n%+v\n%+v", k, ta[k], tb[k])
		}
	}
}

func fill(d int, v float64) []float64 {
	out := make([]float64, d)
	for j := range out {
		out[j] = v
	}
	return out
}

func TestContextCancellationAndTime(t *testing.T) {
	p := oraclestest.Chain(oraclestest.ChainConfig{N: 200, MaxLen: 8, Labels: 10, Features: 30, Density: 0.5, Seed: 5})
	s := mustNew(t, p, config{Lambda: 1e-4})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := s.Run(ctx, run.Stop{})
	if st := res.Status; err != nil || st != run.StatusCanceled {
		t.Fatalf("status %v, err %v; want canceled", st, err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("cancellation took %v", el)
	}
	st := mustRun(t, s, run.Stop{Duration: 30 * time.Millisecond})
	if st != run.StatusTime {
		t.Fatalf("status %v, want time", st)
	}
}

// TestBoxConstraints checks that w stays in the box, that the certificate
// holds, and that FW and BCFW with the box agree on the optimum.
func TestBoxConstraints(t *testing.T) {
	p := smallChain(6)
	d := p.Dim()
	lo, hi := fill(d, math.Inf(-1)), fill(d, math.Inf(1))
	for j := 0; j < d; j += 2 {
		lo[j] = 0
	}
	for j := 1; j < d; j += 3 {
		hi[j] = 0.05
	}
	box := &Box{Lower: lo, Upper: hi}
	var primals []float64
	for _, cfg := range []config{
		{Box: box, GapEvery: 5},
		{Box: box, Algorithm: run.FW, GapEvery: 1},
		{Box: box, Step: Pairwise, GapEvery: 5},
	} {
		cfg.Lambda = 0.1
		s := mustNew(t, p, cfg)
		if st := mustRun(t, s, run.Stop{Gap: 1e-4, Passes: 100000}); st != run.StatusConverged {
			t.Fatalf("%v: status %v", cfg.Algorithm, st)
		}
		checkConsistency(t, s)
		w := s.Weights()
		for j, x := range w {
			if x < lo[j] || x > hi[j] {
				t.Fatalf("w[%d] = %v outside [%v, %v]", j, x, lo[j], hi[j])
			}
		}
		for _, pt := range s.Trace() {
			if math.Abs(pt.Primal-pt.Dual-pt.Gap) > 1e-9 {
				t.Fatalf("box certificate broken: %+v", pt)
			}
		}
		last, _ := s.Last()
		if bf := bruteForcePrimal(p, 0.1, w); math.Abs(bf-last.Primal) > 1e-9 {
			t.Fatalf("primal %v, brute force %v", last.Primal, bf)
		}
		primals = append(primals, last.Primal)
	}
	for _, pr := range primals[1:] {
		if math.Abs(pr-primals[0]) > 2e-4 {
			t.Fatalf("box optima differ: %v", primals)
		}
	}
	// Positivity on a subset: Positive() builds the bound.
	b := Positive(d, []int{0, 3})
	if b.lower(0) != 0 || b.lower(1) != math.Inf(-1) || b.upper(3) != math.Inf(1) {
		t.Fatal("Positive box is wrong")
	}
}

// TestPairwiseDropSteps checks that pairwise and away steps remove corners
// from the active sets and keep them small.
func TestPairwiseDropSteps(t *testing.T) {
	p := smallChain(8)
	for _, step := range []Step{Pairwise, Away} {
		s := mustNew(t, p, config{Lambda: 1, Step: step})
		mustRun(t, s, run.Stop{Passes: 100})
		_, _, drops := s.CacheStats()
		if drops == 0 {
			t.Fatalf("%v: no drop step in 100 passes", step)
		}
		checkConsistency(t, s)
		last, _ := s.Last()
		if last.ActiveMean < 1 || last.ActiveMean > 20 {
			t.Fatalf("%v: mean active set size %v", step, last.ActiveMean)
		}
	}
}

func TestSSGApproachesOptimum(t *testing.T) {
	p := smallChain(9)
	ref := mustNew(t, p, config{Lambda: 0.1, Step: Pairwise})
	mustRun(t, ref, run.Stop{Gap: 1e-6, Passes: 1e6})
	opt, _ := ref.Last()
	s := mustNew(t, p, config{Lambda: 0.1, Algorithm: run.SSG, Averaging: true, GapEvery: 50})
	mustRun(t, s, run.Stop{Passes: 2000})
	last, _ := s.Last()
	if subopt := last.PrimalAvg - opt.Primal; subopt < -1e-6 || subopt > 0.01*opt.Primal {
		t.Fatalf("SSG-wavg primal %v vs optimum %v", last.PrimalAvg, opt.Primal)
	}
}

// TestExplicitDualsStress runs pairwise and away steps for many passes at
// large lambda, where blocks often collapse onto a single active corner whose
// mass is 1 up to rounding, and checks the dual bookkeeping throughout.
func TestExplicitDualsStress(t *testing.T) {
	for seed := uint64(20); seed < 26; seed++ {
		p := oraclestest.Chain(oraclestest.ChainConfig{N: 15, MaxLen: 5, Labels: 3, Features: 3, Density: 0.8, Seed: seed})
		for _, cfg := range []config{
			{Step: Away}, {Step: Pairwise}, {Step: Away, Cache: cacheRule{Enabled: true, Cache: Cache{MaxSize: 2}}, Sampling: run.GapSampling, GapEvery: 3},
		} {
			for _, lambda := range []float64{100, 1} {
				cfg.Lambda, cfg.Seed = lambda, seed
				s := mustNew(t, p, cfg)
				for round := 1; round <= 3; round++ {
					mustRun(t, s, run.Stop{Passes: float64(100 * round)})
					checkConsistency(t, s)
				}
				if last, _ := s.Last(); testing.Verbose() || last.Gap > 1e-3*(1+last.Primal) {
					t.Logf("seed %d %v cache %v lambda %v: gap %.3g", seed, cfg.Step, cfg.Cache.Enabled, lambda, last.Gap)
				}
				if last, _ := s.Last(); last.Gap > 1e-3*(1+last.Primal) {
					t.Fatalf("seed %d %v lambda %v: gap %v after 300 passes", seed, cfg.Step, lambda, last.Gap)
				}
			}
		}
	}
}

// TestIterateSnapshot: a snapshot into the buffer of one of r slots used
// in turn equals w after any sequence of sparse and dense writes since
// that buffer's last copy, with and without a box, for a small d (copied
// whole) and a large one (only the coordinates written).
func TestIterateSnapshot(t *testing.T) {
	for _, d := range []int{50, 2 * copyAllBelow} {
		for _, r := range []int{1, 2, 3} {
			for _, box := range []*Box{nil, {Upper: fill(d, 0.3), Lower: fill(d, -0.2)}} {
				x := newIterate(d, box)
				bufs := make([][]float64, r)
				rng := rand.New(rand.NewPCG(1, 2))
				for round := 0; round < 40; round++ {
					for k := 0; k < rng.IntN(4); k++ {
						var v oracles.SparseVec
						for j := 0; j < d; j++ {
							if rng.Float64() < 12/float64(d) {
								v.Idx, v.Val = append(v.Idx, int32(j)), append(v.Val, rng.NormFloat64())
							}
						}
						x.addSparse(&v, rng.NormFloat64())
					}
					switch rng.IntN(7) {
					case 0:
						x.scale(0.9)
					case 1:
						x.add(int32(rng.IntN(d)), 1)
					}
					b := round % r
					bufs[b] = x.snapshot(bufs[b], r)
					for j := range x.w {
						if bufs[b][j] != x.w[j] {
							t.Fatalf("d %d, r %d, box %v, round %d: snapshot[%d] = %v, w = %v", d, r, box != nil, round, j, bufs[b][j], x.w[j])
						}
					}
				}
			}
		}
	}
}

// Positive returns a box with lower bound 0 on the listed coordinates of a
// d-dimensional w and no other bound, e.g. for the pairwise weights that a
// graph-cut oracle needs non-negative (Osokin et al. 2016, App. I.3).
func Positive(d int, coords []int) *Box {
	lo := make([]float64, d)
	for j := range lo {
		lo[j] = math.Inf(-1)
	}
	for _, j := range coords {
		lo[j] = 0
	}
	return &Box{Lower: lo}
}
