package kernel

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/run/runtest"
)

func mustNew(t testing.TB, p *oracles.Multiclass, cfg config, opts ...run.Option) *Solver {
	t.Helper()
	s, err := newSolver(p, cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustRun(t testing.TB, s run.Solver, stop run.Stop) run.Status {
	t.Helper()
	res, err := s.Run(context.Background(), stop)
	if err != nil {
		t.Fatal(err)
	}
	return res.Status
}

// primalWeights reconstructs w = A alpha for the linear kernel:
// w[f*K + c] = 1/(lambda n) sum_j beta_j(c) x_j[f].
func primalWeights(s *Solver) []float64 {
	K, F := s.k, s.in.f
	w := make([]float64, K*F)
	sigma := 1 / (s.lambda * float64(s.n))
	for j := 0; j < s.n; j++ {
		beta := make([]float64, K)
		addTerm(beta, s.alpha[j*K:(j+1)*K], s.in.y[j], 1)
		for f, x := range s.in.row(j) {
			for c := range beta {
				w[f*K+c] += sigma * beta[c] * x
			}
		}
	}
	return w
}

func close(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= tol*(1+math.Max(math.Abs(a), math.Abs(b)))
}

// TestLinearKernelMatchesPrimal runs the kernelized solver with the linear
// kernel and solver.Solver with the same configuration and seed on the
// same multiclass problem: the iterates (weights, predictions) and the
// traces (objectives, gaps, losses, counters) agree up to rounding.
func TestLinearKernelMatchesPrimal(t *testing.T) {
	train := oraclestest.Multiclass(60, 4, 5, 1)
	test := oraclestest.Multiclass(30, 4, 5, 2)
	// Every pair trains at lambda 0.02, seed 5, an observe-only evaluation
	// every pass and a gap pass every 4 passes unless said otherwise.
	const l, seed, te, ge = 0.02, 5, 1, 4
	for _, tc := range []struct {
		name   string
		primal run.Method
		kc     config
	}{
		{"bcfw", solver.BCFW{Lambda: l, Seed: seed, TraceEvery: te, GapEvery: ge}, config{}},
		{"bcfw perm", solver.BCFW{Lambda: l, Seed: seed, TraceEvery: te, GapEvery: ge, Sampling: run.Permutation}, config{Sampling: run.Permutation}},
		{"bcfw gap sampling", solver.BCFW{Lambda: l, Seed: seed, TraceEvery: te, GapEvery: 2, Sampling: run.GapSampling}, config{Sampling: run.GapSampling, GapEvery: 2}},
		{"bcfw predefined", solver.BCFW{Lambda: l, Seed: seed, TraceEvery: te, GapEvery: ge, Step: solver.FWPredefined}, config{StepSize: run.Predefined}},
		{"bcfw averaging", solver.BCFW{Lambda: l, Seed: seed, TraceEvery: te, GapEvery: ge, Average: run.WeightedAverage}, config{Averaging: true}},
		{"exact", solver.Exact{Lambda: l, Seed: seed, TraceEvery: te, GapEvery: ge}, config{Exact: true}},
		{"exact perm averaging", solver.Exact{Lambda: l, Seed: seed, TraceEvery: te, GapEvery: ge, Sampling: run.Permutation, Average: run.WeightedAverage},
			config{Exact: true, Sampling: run.Permutation, Averaging: true}},
		{"fw", solver.FW{Lambda: l, TraceEvery: te, GapEvery: ge}, config{Algorithm: run.FW}},
		{"fw averaging", solver.FW{Lambda: l, TraceEvery: te, GapEvery: 3, Average: run.WeightedAverage}, config{Algorithm: run.FW, Averaging: true, GapEvery: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps, err := tc.primal.New(train, run.WithTest(test), run.WithTrainLoss(true))
			if err != nil {
				t.Fatal(err)
			}
			kc := tc.kc
			kc.Lambda, kc.Seed, kc.TraceEvery = l, seed, te
			if kc.GapEvery == 0 {
				kc.GapEvery = ge
			}
			ks := mustNew(t, train, kc, run.WithTest(test), run.WithTrainLoss(true))
			passes := 12.0
			mustRun(t, ps, run.Stop{Passes: passes})
			mustRun(t, ks, run.Stop{Passes: passes})
			if ps.Steps() != ks.Steps() || ps.OracleCalls() != ks.OracleCalls() {
				t.Fatalf("steps %d vs %d, calls %d vs %d", ps.Steps(), ks.Steps(), ps.OracleCalls(), ks.OracleCalls())
			}
			wp, wk := ps.Weights(), primalWeights(ks)
			for j := range wp {
				if !close(wp[j], wk[j], 1e-9) {
					t.Fatalf("w[%d]: primal %v, kernel %v", j, wp[j], wk[j])
				}
			}
			m := ks.Model()
			var y []int32
			for i := 0; i < test.Len(); i++ {
				y = test.Predict(i, wp, y)
				if got := m.Predict(test.Input(i)); got != y[0] {
					t.Fatalf("test example %d: primal predicts %d, kernel model %d", i, y[0], got)
				}
			}
			// Match trace points by iterate (batch FW records its first
			// point observe-only, the primal FW counts its pass).
			byStep := map[int64]run.Point{}
			for _, p := range ps.Trace() {
				byStep[p.Steps] = p
			}
			matched := 0
			for _, k := range ks.Trace() {
				p, ok := byStep[k.Steps]
				if !ok {
					continue
				}
				matched++
				for _, f := range []struct {
					name string
					a, b float64
				}{{"primal", p.Primal, k.Primal}, {"dual", p.Dual, k.Dual}, {"gap", p.Gap, k.Gap},
					{"train loss", p.TrainLoss, k.TrainLoss}, {"test loss", p.TestLoss, k.TestLoss},
					{"primal avg", p.PrimalAvg, k.PrimalAvg}, {"dual avg", p.DualAvg, k.DualAvg}, {"gap avg", p.GapAvg, k.GapAvg},
					{"gap estimate", p.GapEstimate, k.GapEstimate}} {
					if !close(f.a, f.b, 1e-8) {
						t.Fatalf("step %d: %s primal solver %v, kernel %v", k.Steps, f.name, f.a, f.b)
					}
				}
				if kc.Algorithm == run.BCFW && (p.Pass != k.Pass || p.OracleCalls != k.OracleCalls || p.Refresh != k.Refresh) {
					t.Fatalf("step %d: counters %+v vs %+v", k.Steps, p, k)
				}
			}
			if matched < 6 {
				t.Fatalf("only %d trace points at common iterates", matched)
			}
		})
	}
}

// bruteObjectives recomputes the primal objective of the current iterate
// from scratch: |w|^2 as the double kernel sum over all pairs of examples,
// and every score as a kernel sum over all examples.
func bruteObjectives(s *Solver) (primal, dual float64) {
	n, K := s.n, s.k
	beta := make([][]float64, n)
	for j := range beta {
		beta[j] = make([]float64, K)
		addTerm(beta[j], s.alpha[j*K:(j+1)*K], s.in.y[j], 1)
	}
	sigma := 1 / (s.lambda * float64(n))
	var norm, sumH, ell float64
	for i := 0; i < n; i++ {
		sc := make([]float64, K)
		for j := 0; j < n; j++ {
			kv := s.cfg.Kernel.Eval(s.in.row(i), s.in.row(j))
			for c := 0; c < K; c++ {
				sc[c] += sigma * beta[j][c] * kv
				norm += sigma * sigma * beta[i][c] * beta[j][c] * kv
			}
		}
		best := math.Inf(-1)
		for c := 0; c < K; c++ {
			h := sc[c] - sc[s.in.y[i]]
			if int32(c) != s.in.y[i] {
				h++
			}
			best = math.Max(best, h)
		}
		sumH += best
		ell += 1 - s.alpha[i*K+int(s.in.y[i])]
	}
	return s.lambda/2*norm + sumH/float64(n), ell/float64(n) - s.lambda/2*norm
}

var kernels = []Kernel{
	{Kind: Linear},
	{Kind: RBF, Gamma: 0.3},
	{Kind: Poly, Gamma: 0.5, Degree: 3, Coef0: 1},
}

// TestGapIsPrimalMinusDual checks the certificate at every trace point for
// every kernel and algorithm: gap = primal - dual, the primal and dual
// equal brute-force recomputations, the gap is non-negative and falls.
func TestGapIsPrimalMinusDual(t *testing.T) {
	p := oraclestest.Multiclass(30, 3, 4, 3)
	for _, k := range kernels {
		for _, alg := range []run.Algorithm{run.BCFW, run.FW} {
			t.Run(fmt.Sprintf("%v %v", k, alg), func(t *testing.T) {
				s := mustNew(t, p, config{Lambda: 0.05, Kernel: k, Algorithm: alg, Averaging: true, TraceEvery: 1, GapEvery: 3})
				for round := 1; round <= 3; round++ {
					mustRun(t, s, run.Stop{Passes: float64(10 * round)})
					pt, err := s.Current()
					if err != nil {
						t.Fatal(err)
					}
					bp, bd := bruteObjectives(s)
					if !close(bp, pt.Primal, 1e-9) || !close(bd, pt.Dual, 1e-9) {
						t.Fatalf("primal %v dual %v, brute force %v %v", pt.Primal, pt.Dual, bp, bd)
					}
				}
				tr := s.Trace()
				for i, pt := range tr {
					if !close(pt.Primal-pt.Dual, pt.Gap, 1e-9) || pt.Gap < -1e-12 || !close(pt.PrimalAvg-pt.DualAvg, pt.GapAvg, 1e-9) {
						t.Fatalf("point %d: primal %v dual %v gap %v (avg %v %v %v)", i, pt.Primal, pt.Dual, pt.Gap, pt.PrimalAvg, pt.DualAvg, pt.GapAvg)
					}
					if i > 0 && pt.Dual < tr[i-1].Dual-1e-12 {
						t.Fatalf("dual decreased at point %d", i)
					}
				}
				if first, last := tr[0], tr[len(tr)-1]; !(last.Gap < first.Gap/3) {
					t.Fatalf("gap %v -> %v", first.Gap, last.Gap)
				}
			})
		}
	}
}

// TestCacheNeverChangesResults runs the same configuration without a cache,
// with a cache too small for every row (evictions) and with one holding
// all rows: traces and dual variables are identical, bit for bit.
func TestCacheNeverChangesResults(t *testing.T) {
	p := oraclestest.Multiclass(50, 4, 6, 4)
	n := int64(p.Len())
	for _, alg := range []run.Algorithm{run.BCFW, run.FW} {
		cfg := config{Lambda: 0.01, Kernel: Kernel{Kind: RBF, Gamma: 0.2}, Algorithm: alg, Sampling: run.Uniform, GapEvery: 2, Seed: 3}
		var runs []*Solver
		for _, budget := range []int64{0, 7 * 8 * n, 8 * n * n} {
			cfg.CacheBytes = budget
			s := mustNew(t, p, cfg)
			mustRun(t, s, run.Stop{Passes: 20})
			runs = append(runs, s)
			hits, misses, bytes := s.CacheStats()
			t.Logf("%v budget %d: hits %d misses %d bytes %d", alg, budget, hits, misses, bytes)
			if bytes > budget {
				t.Fatalf("cache holds %d bytes over its budget %d", bytes, budget)
			}
			if alg == run.BCFW && budget > 0 && (hits == 0 || misses == 0) {
				t.Fatalf("budget %d: %d hits, %d misses", budget, hits, misses)
			}
		}
		for _, s := range runs[1:] {
			for j, v := range s.alpha {
				if v != runs[0].alpha[j] {
					t.Fatalf("%v: alpha[%d] = %v with a cache, %v without", alg, j, v, runs[0].alpha[j])
				}
			}
			a, b := runs[0].Trace(), s.Trace()
			if len(a) != len(b) {
				t.Fatalf("%v: trace lengths %d and %d", alg, len(a), len(b))
			}
			for i := range a {
				a[i].Seconds, b[i].Seconds, a[i].EvalSeconds, b[i].EvalSeconds = 0, 0, 0, 0
				if fmt.Sprint(a[i]) != fmt.Sprint(b[i]) {
					t.Fatalf("%v: point %d differs:\n%+v\n%+v", alg, i, a[i], b[i])
				}
			}
		}
	}
	// Full-row caching pays: every entry of the last rows comes from the cache.
	s := mustNew(t, p, config{Lambda: 0.01, Kernel: Kernel{Kind: RBF, Gamma: 0.2}, GapEvery: 100, CacheBytes: 8 * n * n})
	mustRun(t, s, run.Stop{Passes: 30})
	if hits, misses, _ := s.CacheStats(); float64(hits)/float64(hits+misses) < 0.8 {
		t.Fatalf("hit rate %v with every row cached", float64(hits)/float64(hits+misses))
	}
}

// TestRBFLearnsWhatLinearCannot: on points labeled by their distance to the
// origin (rings), no linear classifier does well, the RBF kernel does.
func TestRBFLearnsWhatLinearCannot(t *testing.T) {
	rings := func(n int, seed uint64) *oracles.Multiclass {
		rng := rand.New(rand.NewPCG(seed, 1))
		x := make([]oracles.SparseVec, n)
		y := make([]int32, n)
		for i := range x {
			r := rng.Float64() * 3
			a := rng.Float64() * 2 * math.Pi
			x[i].Append(0, r*math.Cos(a))
			x[i].Append(1, r*math.Sin(a))
			x[i].Append(2, 1) // bias
			y[i] = int32(r)   // rings [0,1), [1,2), [2,3)
		}
		m, err := oracles.NewMulticlass(3, 3, x, y)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	train, test := rings(200, 1), rings(200, 2)
	errs := map[Kind]float64{}
	for _, k := range []Kernel{{Kind: Linear}, {Kind: RBF, Gamma: 2}} {
		s := mustNew(t, train, config{Lambda: 1e-3, Kernel: k, GapEvery: 5}, run.WithTest(test))
		mustRun(t, s, run.Stop{Passes: 60})
		pt, _ := s.Current()
		errs[k.Kind] = pt.TestLoss
		loss, err := s.Model().MeanLoss(test)
		if err != nil || loss != pt.TestLoss {
			t.Fatalf("%v: model test error %v (%v), trace %v", k, loss, err, pt.TestLoss)
		}
	}
	t.Logf("test error: linear %.3f, rbf %.3f", errs[Linear], errs[RBF])
	if !(errs[RBF] < 0.1 && errs[Linear] > 0.3) {
		t.Fatalf("test error: linear %v, rbf %v", errs[Linear], errs[RBF])
	}
}

// requireSameRun demands identical dual variables and traces (up to time).
// TestConformance runs the contract every solver family keeps (runtest)
// with the RBF and polynomial kernels, BCFW under every sampling and FW,
// with averaging, training losses and observe-only evaluations, on one
// worker and, for the parallel steps, on two.
func TestConformance(t *testing.T) {
	p := oraclestest.Multiclass(40, 3, 4, 5)
	for _, tc := range []struct {
		cfg     config
		workers int
	}{
		{config{Kernel: Kernel{Kind: RBF, Gamma: 0.5}}, 1},
		{config{Kernel: Kernel{Kind: RBF, Gamma: 0.5}, Sampling: run.GapSampling, Averaging: true}, 1},
		{config{Kernel: Kernel{Kind: Poly, Gamma: 1, Degree: 2, Coef0: 1}, Sampling: run.Permutation, TraceEvery: 1.5}, 1},
		{config{Kernel: Kernel{Kind: RBF, Gamma: 0.5}, Algorithm: run.FW, Averaging: true}, 1},
		{config{Kernel: Kernel{Kind: Linear}, Algorithm: run.FW, StepSize: run.Predefined, TraceEvery: 1}, 1},
		{config{Kernel: Kernel{Kind: RBF, Gamma: 0.5}, Exact: true}, 1},
		{config{Kernel: Kernel{Kind: RBF, Gamma: 0.5}, Exact: true, Shrinking: true, Sampling: run.Permutation, Averaging: true}, 1},
		{config{Kernel: Kernel{Kind: RBF, Gamma: 0.5}, Sampling: run.Permutation, TraceEvery: 1.5}, 1}, // a gap estimate whose running sum rounds differently from its recomputation
		{config{Kernel: Kernel{Kind: RBF, Gamma: 0.5}, Sampling: run.Permutation, TraceEvery: 1.5}, 2},
		{config{Kernel: Kernel{Kind: RBF, Gamma: 0.5}, Sampling: run.Uniform, Averaging: true}, 2},
		{config{Kernel: Kernel{Kind: RBF, Gamma: 0.5}, Sampling: run.GapSampling}, 2},
		{config{Kernel: Kernel{Kind: RBF, Gamma: 0.5}, Exact: true, Shrinking: true, Sampling: run.Permutation}, 2},
	} {
		cfg := tc.cfg
		t.Run(fmt.Sprintf("%v %v %v exact %v shrinking %v workers %d", cfg.Algorithm, cfg.Sampling, cfg.Kernel, cfg.Exact, cfg.Shrinking, tc.workers), func(t *testing.T) {
			cfg.Lambda, cfg.GapEvery, cfg.Seed, cfg.CacheBytes = 0.02, 2, 9, 1<<20
			runtest.Conformance(t, runtest.Family{
				New: func() (run.Solver, error) {
					return newSolver(p, cfg, run.WithTrainLoss(true), run.WithWorkers(tc.workers))
				},
				Load: func(r io.Reader) (run.Solver, error) {
					return Load(r, p, run.WithTrainLoss(true), run.WithWorkers(tc.workers))
				},
				Iterate: func(s run.Solver) []float64 { return s.(*Solver).alpha },
				Passes:  13,
			})
		})
	}
}

func TestLoadRejectsCorruptCheckpoints(t *testing.T) {
	p := oraclestest.Multiclass(20, 3, 4, 6)
	s := mustNew(t, p, config{Lambda: 0.1, Kernel: Kernel{Kind: RBF, Gamma: 1}})
	mustRun(t, s, run.Stop{Passes: 3})
	save := func() []byte {
		var buf bytes.Buffer
		if err := s.Save(&buf); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	good := save()
	if _, err := Load(bytes.NewReader(good), p); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bytes.NewReader(good), oraclestest.Multiclass(20, 3, 4, 7)); err == nil {
		t.Fatal("accepted the checkpoint of another problem")
	}
	if _, err := Load(bytes.NewReader(good[:len(good)/2]), p); err == nil {
		t.Fatal("accepted a truncated checkpoint")
	}
	for name, corrupt := range map[string]func(){
		"off the simplex": func() { s.alpha[0] += 0.5 },
		"negative":        func() { s.alpha[1] = -0.25; s.alpha[0] += 0.25 },
		"support set":     func() { s.sv.list = s.sv.list[1:] },
	} {
		t.Run(name, func(t *testing.T) {
			alpha := append([]float64(nil), s.alpha...)
			list := append([]int32(nil), s.sv.list...)
			corrupt()
			data := save()
			copy(s.alpha, alpha)
			s.sv.list = list
			if _, err := Load(bytes.NewReader(data), p); err == nil {
				t.Fatal("Load accepted a corrupt checkpoint")
			}
		})
	}
}

func TestModelJSONRoundTrip(t *testing.T) {
	p := oraclestest.Multiclass(30, 3, 4, 8)
	test := oraclestest.Multiclass(20, 3, 4, 9)
	s := mustNew(t, p, config{Lambda: 0.05, Kernel: Kernel{Kind: Poly, Gamma: 0.5, Degree: 2, Coef0: 1}, Averaging: true})
	mustRun(t, s, run.Stop{Passes: 10})
	if m := s.Model(); len(m.SV) != s.SupportVectors() {
		t.Fatalf("model has %d support vectors, solver %d", len(m.SV), s.SupportVectors())
	}
	for _, m := range []*Model{s.Model(), s.AverageModel()} {
		var buf bytes.Buffer
		if err := m.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(buf.Bytes(), []byte(`"kind":"poly"`)) {
			t.Fatalf("model file does not name its kernel: %.200s", buf.String())
		}
		back, err := ReadModel(&buf)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < test.Len(); i++ {
			if a, b := m.Predict(test.Input(i)), back.Predict(test.Input(i)); a != b {
				t.Fatalf("example %d: %d before, %d after the round trip", i, a, b)
			}
		}
	}
	bad := []string{
		`{"kernel":{"kind":"sigmoid"},"classes":3,"features":4}`,
		`{"kernel":{"kind":"rbf","gamma":-1},"classes":3,"features":4}`,
		`{"kernel":{"kind":"linear"},"classes":3,"features":4,"support_vectors":[{"Idx":[7],"Val":[1]}],"coefficients":[[1,2,3]]}`,
		`{"kernel":{"kind":"linear"},"classes":3,"features":4,"support_vectors":[{"Idx":[1],"Val":[1]}],"coefficients":[[1,2]]}`,
		`{"kernel":{"kind":"linear"},"classes":0,"features":4}`,
	}
	for _, b := range bad {
		if _, err := ReadModel(bytes.NewReader([]byte(b))); err == nil {
			t.Errorf("ReadModel accepted %s", b)
		}
	}
}

func TestInvalidSettings(t *testing.T) {
	p := oraclestest.Multiclass(5, 2, 2, 1)
	for name, cfg := range map[string]config{
		"zero lambda":   {},
		"rbf gamma":     {Lambda: 1, Kernel: Kernel{Kind: RBF}},
		"poly degree":   {Lambda: 1, Kernel: Kernel{Kind: Poly, Gamma: 1}},
		"poly coef0":    {Lambda: 1, Kernel: Kernel{Kind: Poly, Gamma: 1, Degree: 2, Coef0: -1}},
		"unknown kind":  {Lambda: 1, Kernel: Kernel{Kind: 7}},
		"ssg":           {Lambda: 1, Algorithm: run.SSG},
		"fw sampling":   {Lambda: 1, Algorithm: run.FW, Sampling: run.GapSampling},
		"gap every":     {Lambda: 1, GapEvery: -1},
		"NaN traceever": {Lambda: 1, TraceEvery: math.NaN()},
		"example-perm":  {Lambda: 1, Sampling: run.ExamplePermutation},
	} {
		if _, err := newSolver(p, cfg); err == nil {
			t.Errorf("%s: accepted %+v", name, cfg)
		}
	}
	if _, err := newSolver(p, config{Lambda: 1, CacheBytes: -1}); err == nil {
		t.Error("negative cache budget accepted")
	}
	s := mustNew(t, p, config{Lambda: 1, GapEvery: math.Inf(1)})
	for _, stop := range []run.Stop{{}, {Gap: 0.1}, {Passes: -1}, {EarlyCheck: 0.5}} {
		if _, err := s.Run(context.Background(), stop); err == nil {
			t.Errorf("Run accepted %+v", stop)
		}
	}
	if err := s.SetTest(oraclestest.Multiclass(5, 3, 2, 1)); err == nil {
		t.Error("test set with other classes accepted")
	}
	// A test label the training set lacks (oracles.NoClass) is an error
	// of every model on test data, and refused in training data.
	noClass, err := oracles.NewMulticlass(2, 2, []oracles.SparseVec{{Idx: []int32{0}, Val: []float64{1}}, {}}, []int32{1, oracles.NoClass})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newSolver(noClass, config{Lambda: 1}); err == nil || !strings.Contains(err.Error(), "training example 1 has no class") {
		t.Errorf("training data with an example of no class: %v", err)
	}
	if err := s.SetTest(noClass); err != nil {
		t.Fatal(err)
	}
	if pt, err := s.Current(); err != nil || pt.TestLoss < 0.5 {
		t.Errorf("test loss %v (%v), want at least 0.5: the example of no class is an error", pt.TestLoss, err)
	}
	for _, k := range []string{"linear", "rbf", "poly"} {
		if kind, err := ParseKind(k); err != nil || kind.String() != k {
			t.Errorf("ParseKind(%q) = %v, %v", k, kind, err)
		}
	}
	if _, err := ParseKind("sigmoid"); err == nil {
		t.Error("ParseKind accepted sigmoid")
	}
}

// TestRunNeverExceedsPassBudget: batch FW steps cost a pass; a run stops
// at or below its budget.
func TestRunNeverExceedsPassBudget(t *testing.T) {
	p := oraclestest.Multiclass(12, 3, 3, 2)
	for _, alg := range []run.Algorithm{run.BCFW, run.FW} {
		s := mustNew(t, p, config{Lambda: 0.1, Algorithm: alg, GapEvery: 1})
		for _, budget := range []float64{2.5, 7.25, 10} {
			mustRun(t, s, run.Stop{Passes: budget})
			if s.Passes() > budget+1e-9 || s.Passes() < budget-1-1e-9 {
				t.Fatalf("%v budget %v: stopped at %v passes", alg, budget, s.Passes())
			}
		}
	}
}

func TestConvergesToCertifiedGap(t *testing.T) {
	p := oraclestest.Multiclass(40, 3, 4, 10)
	s := mustNew(t, p, config{Lambda: 0.1, Kernel: Kernel{Kind: RBF, Gamma: 0.5}, GapEvery: 2})
	if st := mustRun(t, s, run.Stop{Gap: 1e-4, Passes: 20000, EarlyCheck: 0.8}); st != run.StatusConverged {
		t.Fatalf("status %v", st)
	}
	last, _ := s.Last()
	if last.Gap > 1e-4 || last.Steps != s.Steps() {
		t.Fatalf("last point %+v at step %d", last, s.Steps())
	}
}

// TestExactShrinkingCertificate runs exact steps with and without
// shrinking to a certified gap: the certificate agrees with a brute-force
// recomputation, both reach the optimum of Frank-Wolfe steps, and
// shrinking skips blocks (fewer oracle calls) yet claims convergence only
// at a gap pass over every block.
func TestExactShrinkingCertificate(t *testing.T) {
	p := oraclestest.Multiclass(60, 4, 5, 8)
	const tol = 1e-8
	k := Kernel{Kind: RBF, Gamma: 0.3}
	ref := mustNew(t, p, config{Lambda: 0.02, Kernel: k, Sampling: run.Permutation, Exact: true, GapEvery: 5})
	mustRun(t, ref, run.Stop{Gap: tol, Passes: 10000})
	opt, _ := ref.Last()
	var calls []int64
	for _, cfg := range []config{
		{Sampling: run.Permutation, Exact: true, GapEvery: 5},
		{Sampling: run.Permutation, Exact: true, Shrinking: true, GapEvery: 5},
	} {
		cfg.Lambda, cfg.Kernel, cfg.CacheBytes = 0.02, k, 1<<20
		s := mustNew(t, p, cfg)
		if st := mustRun(t, s, run.Stop{Gap: tol, Passes: 10000}); st != run.StatusConverged {
			t.Fatalf("shrinking %v: status %v", cfg.Shrinking, st)
		}
		last, _ := s.Last()
		bp, bd := bruteObjectives(s)
		if !close(bp, last.Primal, 1e-9) || !close(bd, last.Dual, 1e-9) || bp-bd > tol*(1+1e-6) {
			t.Fatalf("shrinking %v: primal %v dual %v, brute force %v %v", cfg.Shrinking, last.Primal, last.Dual, bp, bd)
		}
		if math.Abs(last.Primal-opt.Primal) > 2*tol {
			t.Fatalf("shrinking %v: primal %v, reference %v", cfg.Shrinking, last.Primal, opt.Primal)
		}
		calls = append(calls, s.OracleCalls())
	}
	if calls[1] >= calls[0] {
		t.Fatalf("shrinking made %d oracle calls, without %d", calls[1], calls[0])
	}
	t.Logf("oracle calls to gap %g: %d without shrinking, %d with", tol, calls[0], calls[1])
}
