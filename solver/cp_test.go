package solver

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/fwstruct/fwstruct/oracles/oraclestest"
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// qpObjective is q(mu) = 1/(2 lambda) |sum mu_t u_t|^2 - sum mu_t ell_t,
// computed from the planes directly (not from the Gram matrix).
func qpObjective(u [][]float64, ell, mu []float64, lambda float64) float64 {
	v := make([]float64, len(u[0]))
	var lin float64
	for t := range u {
		floats.AddScaled(v, mu[t], u[t])
		lin += mu[t] * ell[t]
	}
	return floats.Dot(v, v)/(2*lambda) - lin
}

// referenceQP minimizes the QP by projected gradient descent with step
// lambda/|G|, a reference independent of the corrective steps.
func referenceQP(u [][]float64, ell []float64, lambda float64) float64 {
	m := len(u)
	G := make([][]float64, m)
	var trace float64
	for a := range G {
		G[a] = make([]float64, m)
		for b := range G[a] {
			G[a][b] = floats.Dot(u[a], u[b])
		}
		trace += G[a][a]
	}
	mu := make([]float64, m)
	mu[0] = 1
	step := lambda / trace // 1/L with L <= trace(G)/lambda
	grad := make([]float64, m)
	scratch := make([]float64, m)
	for it := 0; it < 200000; it++ {
		for a := range grad {
			grad[a] = floats.Dot(G[a], mu)/lambda - ell[a]
		}
		for a := range mu {
			mu[a] -= step * grad[a]
		}
		core.ProjectSimplex(mu, scratch)
	}
	return qpObjective(u, ell, mu, lambda)
}

// TestCPQPMatchesProjectedGradient checks the corrective QP solver of the
// cutting-plane method against projected gradient descent on random planes.
func TestCPQPMatchesProjectedGradient(t *testing.T) {
	for _, tc := range []struct {
		m, d   int
		lambda float64
		seed   uint64
	}{{3, 4, 1, 1}, {6, 3, 0.1, 2}, {8, 10, 0.01, 3}, {5, 2, 1, 4}} {
		rng := rand.New(rand.NewPCG(tc.seed, 9))
		c := newCPState(tc.d)
		for k := 1; k < tc.m; k++ {
			u := oraclestest.Weights(rng, tc.d, 1)
			c.add(u, rng.Float64())
			c.solve(tc.lambda, 1e-13, 100000)
		}
		gap, _, _ := c.qpGap(tc.lambda)
		if gap > 1e-12 {
			t.Fatalf("%+v: QP gap %v after solving", tc, gap)
		}
		if math.Abs(floats.Sum(c.mu)-1) > 1e-12 || floats.Min(c.mu) < 0 {
			t.Fatalf("%+v: weights %v off the simplex", tc, c.mu)
		}
		got := qpObjective(c.u, c.ell, c.mu, tc.lambda)
		want := referenceQP(c.u, c.ell, tc.lambda)
		if got > want+1e-9*(1+math.Abs(want)) {
			t.Fatalf("%+v: QP objective %v, projected gradient reaches %v", tc, got, want)
		}
		// G mu, maintained incrementally, matches a recomputation.
		gmu := append([]float64(nil), c.gmu...)
		c.updateGMu()
		for k := range gmu {
			if math.Abs(gmu[k]-c.gmu[k]) > 1e-9*(1+math.Abs(gmu[k])) {
				t.Fatalf("%+v: maintained G mu %v, recomputed %v", tc, gmu, c.gmu)
			}
		}
	}
}

// TestCuttingPlaneIsFullyCorrective checks what makes the method a cutting
// plane method: after every iteration the dual equals minus the QP
// objective of the working set, the QP is solved to its stated tolerance,
// and no point of the hull of the planes has a dual higher by more than
// that tolerance (projected gradient on the final working set); with the
// constraint cache as well, whose planes join the same QP.
func TestCuttingPlaneIsFullyCorrective(t *testing.T) {
	p := smallChain(21)
	const lambda = 0.1
	for _, tc := range []struct {
		cache int
		tol   float64
	}{{-1, 1e-6}, {0, 1e-4}} {
		s := mustNew(t, p, config{Algorithm: run.CuttingPlane, Lambda: lambda, CPTol: tc.tol, CPCache: tc.cache, GapEvery: 1})
		for k := 1; k <= 12; k++ {
			mustRun(t, s, run.Stop{Passes: float64(k)})
			pt := mustEval(t, s)
			q := qpObjective(s.cp.u, s.cp.ell, s.cp.mu, lambda)
			if math.Abs(pt.Dual+q) > 1e-9 {
				t.Fatalf("cache %d, iteration %d: dual %v, minus the QP objective %v", tc.cache, k, pt.Dual, -q)
			}
			last, _ := s.Last() // the point at w(k-1), whose gap sets the tolerance of the last QP
			if gap, _, _ := s.cp.qpGap(lambda); last.Steps != int64(k-1) || gap > tc.tol*last.Gap+1e-12 {
				t.Fatalf("cache %d, iteration %d: QP gap %v above the tolerance (outer gap %v)", tc.cache, k, gap, last.Gap)
			}
		}
		best := referenceQP(s.cp.u, s.cp.ell, lambda)
		if d := mustEval(t, s).Dual; d < -best-1e-6 {
			t.Fatalf("cache %d: dual %v, best over the hull of the planes %v", tc.cache, d, -best)
		}
		tot, act := s.Planes()
		if tc.cache < 0 && (tot != 13 || act < 1 || act > tot) {
			t.Fatalf("planes %d (active %d) after 12 iterations, want 13 with the start", tot, act)
		}
		if tc.cache >= 0 && (s.hits == 0 || s.misses != 12) {
			t.Fatalf("with the cache: %d planes from the cache, %d from oracle passes after 12 iterations", s.hits, s.misses)
		}
	}
}

// TestCuttingPlaneCacheKeepsOptimum runs the cutting plane with and without
// the constraint cache to a tiny certified gap: the objectives agree to
// 1e-6 and the weights as strong convexity says, every certificate of the
// cached run holds up against brute-force decoding, and the cache saves
// oracle calls.
func TestCuttingPlaneCacheKeepsOptimum(t *testing.T) {
	for _, seed := range []uint64{26, 27} {
		p := smallChain(seed)
		const lambda, tol = 0.05, 1e-7
		var runs [2]*Solver
		for k, cache := range []int{-1, 2} {
			s := mustNew(t, p, config{Algorithm: run.CuttingPlane, Lambda: lambda, CPCache: cache, CPTol: 1e-4, GapEvery: 1})
			if st := mustRun(t, s, run.Stop{Gap: tol, Passes: 5000}); st != run.StatusConverged {
				t.Fatalf("seed %d, cache %d: %v", seed, cache, st)
			}
			// The certificate is exact: the primal by exhaustive decoding
			// minus the dual of the working set is within the gap claimed.
			last, _ := s.Last()
			bf := bruteForcePrimal(p, lambda, s.Weights())
			dual := -qpObjective(s.cp.u, s.cp.ell, s.cp.mu, lambda)
			if math.Abs(bf-last.Primal) > 1e-9 || bf-dual > tol+1e-12 || last.OracleCalls%int64(p.Len()) != 0 {
				t.Fatalf("seed %d, cache %d: claimed gap %v at %d calls, brute-force primal %v - dual %v = %v", seed, cache, last.Gap, last.OracleCalls, bf, dual, bf-dual)
			}
			runs[k] = s
		}
		plain, cached := runs[0], runs[1]
		a, b := mustEval(t, plain), mustEval(t, cached)
		if math.Abs(a.Primal-b.Primal) > 1e-6 || math.Abs(a.Dual-b.Dual) > 1e-6 {
			t.Fatalf("seed %d: plain cutting plane primal %v dual %v, with the cache %v %v", seed, a.Primal, a.Dual, b.Primal, b.Dual)
		}
		var d2 float64
		for j, v := range plain.Weights() {
			d := v - cached.Weights()[j]
			d2 += d * d
		}
		if d2 > 2*2*tol/lambda { // lambda/2 |w - w*|^2 <= gap for each
			t.Fatalf("seed %d: |w_plain - w_cache|^2 = %v", seed, d2)
		}
		if cached.hits == 0 || cached.OracleCalls() >= plain.OracleCalls() {
			t.Fatalf("seed %d: %d cached planes, %d oracle calls with the cache, %d without", seed, cached.hits, cached.OracleCalls(), plain.OracleCalls())
		}
	}
}

// TestCuttingPlaneReachesOptimum runs the cutting-plane method and BCFW to
// a certified gap and compares their objectives and weights.
func TestCuttingPlaneReachesOptimum(t *testing.T) {
	p := smallChain(22)
	const lambda, tol = 0.1, 1e-4
	cp := mustNew(t, p, config{Algorithm: run.CuttingPlane, Lambda: lambda, GapEvery: 1})
	if st := mustRun(t, cp, run.Stop{Gap: tol, Passes: 5000}); st != run.StatusConverged {
		t.Fatalf("cutting plane: %v", st)
	}
	bc := mustNew(t, p, config{Lambda: lambda, Step: Pairwise, GapEvery: 2})
	if st := mustRun(t, bc, run.Stop{Gap: tol, Passes: 100000}); st != run.StatusConverged {
		t.Fatalf("bcfw: %v", st)
	}
	a, b := mustEval(t, cp), mustEval(t, bc)
	if a.Primal < b.Dual-1e-12 || b.Primal < a.Dual-1e-12 || math.Abs(a.Primal-b.Primal) > 2*tol {
		t.Fatalf("cutting plane primal %v dual %v, bcfw primal %v dual %v", a.Primal, a.Dual, b.Primal, b.Dual)
	}
	var d2 float64
	wa, wb := cp.Weights(), bc.Weights()
	for j := range wa {
		d2 += (wa[j] - wb[j]) * (wa[j] - wb[j])
	}
	if d2 > 2*2*tol/lambda {
		t.Fatalf("|w_cp - w_bcfw|^2 = %v", d2)
	}
	// The fully corrective method needs fewer iterations than batch FW.
	fw := mustNew(t, p, config{Algorithm: run.FW, Lambda: lambda, GapEvery: 1})
	mustRun(t, fw, run.Stop{Gap: 1e-3, Passes: 5000})
	cp2 := mustNew(t, p, config{Algorithm: run.CuttingPlane, Lambda: lambda, GapEvery: 1})
	mustRun(t, cp2, run.Stop{Gap: 1e-3, Passes: 5000})
	if cp2.Steps() >= fw.Steps() {
		t.Fatalf("cutting plane took %d iterations to gap 1e-3, batch FW %d", cp2.Steps(), fw.Steps())
	}
}

// TestCuttingPlaneSetLambda checks Proposition 1 on the working set: w is
// unchanged, the certificate holds, and the run goes on to the new optimum.
func TestCuttingPlaneSetLambda(t *testing.T) {
	p := smallChain(23)
	s := mustNew(t, p, config{Algorithm: run.CuttingPlane, Lambda: 0.2, GapEvery: 1})
	mustRun(t, s, run.Stop{Passes: 8})
	w := s.Weights()
	if err := s.SetLambda(0.05); err != nil {
		t.Fatal(err)
	}
	for j, v := range s.Weights() {
		if math.Abs(v-w[j]) > 1e-12*(1+math.Abs(v)) {
			t.Fatalf("w[%d] changed from %v to %v", j, w[j], v)
		}
	}
	pt := mustEval(t, s)
	if q := qpObjective(s.cp.u, s.cp.ell, s.cp.mu, 0.05); math.Abs(pt.Dual+q) > 1e-9 || math.Abs(pt.Primal-pt.Dual-pt.Gap) > 1e-9 {
		t.Fatalf("after SetLambda: %+v, QP objective %v", pt, q)
	}
	if st := mustRun(t, s, run.Stop{Gap: 1e-4, Passes: 5000}); st != run.StatusConverged {
		t.Fatalf("status %v after SetLambda", st)
	}
}

// TestCuttingPlaneLoadRejectsCorruptPlanes corrupts the working set of a
// checkpoint.
func TestCuttingPlaneLoadRejectsCorruptPlanes(t *testing.T) {
	p := smallChain(24)
	s := mustNew(t, p, config{Algorithm: run.CuttingPlane, Lambda: 0.1})
	mustRun(t, s, run.Stop{Passes: 4})
	for name, corrupt := range map[string]func(c *cpState){
		"weights off the simplex": func(c *cpState) { c.mu[0] += 0.5 },
		"negative weight":         func(c *cpState) { c.mu[1] = -c.mu[1] - 0.1 },
		"short plane":             func(c *cpState) { c.u[1] = c.u[1][:2] },
		"NaN loss":                func(c *cpState) { c.ell[1] = math.NaN() },
		"Gram of another size":    func(c *cpState) { c.gram = c.gram[1:] },
		"stale G mu":              func(c *cpState) { c.gmu[0] += 1 },
		"used in the future":      func(c *cpState) { c.used[1] = c.added + 1 },
		"used lists of two sizes": func(c *cpState) { c.used = c.used[1:] },
	} {
		t.Run(name, func(t *testing.T) {
			orig := *s.cp
			clone := cpState{u: append([][]float64(nil), orig.u...), ell: append([]float64(nil), orig.ell...),
				mu: append([]float64(nil), orig.mu...), gram: append([]float64(nil), orig.gram...), gmu: append([]float64(nil), orig.gmu...),
				used: append([]int64(nil), orig.used...), added: orig.added}
			corrupt(&clone)
			s.cp = &clone
			defer func() { s.cp = &orig }()
			var buf bytes.Buffer
			if err := s.Save(&buf); err != nil {
				t.Fatal(err)
			}
			if _, err := Load(&buf, p); err == nil {
				t.Fatal("Load accepted a corrupt working set")
			}
		})
	}
}

func TestCuttingPlaneInvalidSettings(t *testing.T) {
	p := smallChain(25)
	for name, cfg := range map[string]config{
		"box":        {Box: &Box{Lower: fill(p.Dim(), -1)}},
		"predefined": {StepSize: run.Predefined},
		"NaN tol":    {CPTol: math.NaN()},
		"negative":   {CPTol: -1},
		"sampling":   {Sampling: run.Permutation},
	} {
		cfg.Algorithm, cfg.Lambda = run.CuttingPlane, 0.1
		if _, err := newSolver(p, cfg); err == nil {
			t.Errorf("%s: New accepted %+v", name, cfg)
		}
	}
	if a, err := run.ParseAlgorithm("cp"); err != nil || a != run.CuttingPlane || a.String() != "cp" {
		t.Fatalf("ParseAlgorithm(cp) = %v, %v", a, err)
	}
}

// TestCuttingPlaneForkCache switches the constraint cache on and off in
// forks of a run: the event says so, the planes carry over, and each fork
// goes on to a certified gap.
func TestCuttingPlaneForkCache(t *testing.T) {
	p := smallChain(28)
	s := mustNew(t, p, config{Algorithm: run.CuttingPlane, Lambda: 0.1, CPCache: -1, GapEvery: 1})
	mustRun(t, s, run.Stop{Passes: 3})
	on, err := s.fork(config{Algorithm: run.CuttingPlane, CPCache: 3, GapEvery: 1})
	if err != nil {
		t.Fatal(err)
	}
	if last, _ := on.Last(); last.Event != "fork: constraint cache off -> size 3" {
		t.Fatalf("fork event %q", last.Event)
	}
	if a, b := on.cp.m(), s.cp.m(); a != b {
		t.Fatalf("fork has %d planes, the run %d", a, b)
	}
	if st := mustRun(t, on, run.Stop{Gap: 1e-4, Passes: 500}); st != run.StatusConverged || on.hits == 0 {
		t.Fatalf("fork with the cache: %v, %d cached planes", st, on.hits)
	}
	off, err := on.fork(config{Algorithm: run.CuttingPlane, CPCache: -1, GapEvery: 1})
	if err != nil {
		t.Fatal(err)
	}
	if off.sets != nil {
		t.Fatal("a fork without the cache keeps the cached labelings")
	}
	if st := mustRun(t, off, run.Stop{Gap: 1e-5, Passes: 500}); st != run.StatusConverged {
		t.Fatalf("fork without the cache: %v", st)
	}
}
