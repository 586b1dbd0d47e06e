package solver

import (
	"context"
	"math"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
	"github.com/fwstruct/fwstruct/solver/run"
)

// bruteEGDual recomputes, by enumerating every labeling of every example,
// the Gibbs distributions alpha_i of the online-EG state from theta_i,
// and from them w = 1/(lambda n) sum_i (phi(x_i, y_i) - E phi(x_i, y)),
// ell = 1/n sum_i E L_i(y) and the dual ell - lambda/2 |w|^2.
func bruteEGDual(t *testing.T, s *Solver) (w []float64, ell, dual float64) {
	t.Helper()
	a := s.alg.(*egAlg)
	c := a.c
	K := c.NumLabels()
	n := float64(s.n)
	w = make([]float64, s.d)
	var psi oracles.SparseVec
	for i := 0; i < s.n; i++ {
		T := c.SeqLen(i)
		theta := a.theta[a.off[i]:a.off[i+1]]
		var ys [][]int32
		var scores []float64
		c.ForEachLabeling(i, func(y []int32) {
			var sc float64
			for t, k := range y {
				sc += theta[t*K+int(k)]
				if t > 0 {
					sc += theta[T*K+int(y[t-1])*K+int(k)]
				}
			}
			ys = append(ys, append([]int32(nil), y...))
			scores = append(scores, sc)
		})
		m := math.Inf(-1)
		for _, v := range scores {
			m = math.Max(m, v)
		}
		var z float64
		for _, v := range scores {
			z += math.Exp(v - m)
		}
		for j, y := range ys {
			p := math.Exp(scores[j]-m) / z
			ell += p * c.Loss(i, y) / n
			c.Psi(i, y, &psi)
			for q, idx := range psi.Idx {
				w[idx] += p * psi.Val[q] / (s.lambda * n)
			}
		}
	}
	var nrm float64
	for _, x := range w {
		nrm += x * x
	}
	return w, ell, ell - s.lambda/2*nrm
}

// TestOnlineEGCertificates runs online EG on small chains and checks at
// every trace point that primal - dual = gap >= 0, that the primal is the
// brute-force primal of w, and, at the end of every round, that w, ell and
// the dual the solver keeps are those of the Gibbs distributions its theta
// defines (by enumeration); and that the gap falls.
func TestOnlineEGCertificates(t *testing.T) {
	for _, lambda := range []float64{1, 0.1, 0.01} {
		p := oraclestest.Chain(oraclestest.ChainConfig{N: 8, MaxLen: 4, Labels: 3, Features: 4, Density: 0.7, Seed: 11})
		s := mustNew(t, p, config{Algorithm: run.OnlineEG, Lambda: lambda, GapEvery: 1, Seed: 2, Averaging: true})
		for round := 1; round <= 4; round++ {
			mustRun(t, s, run.Stop{Passes: float64(15 * round)})
			w, ell, dual := bruteEGDual(t, s)
			for j := range w {
				if math.Abs(w[j]-s.x.w[j]) > 1e-9*(1+math.Abs(w[j])) {
					t.Fatalf("lambda %v: w[%d] = %v, from the Gibbs distributions %v", lambda, j, s.x.w[j], w[j])
				}
			}
			if math.Abs(ell-s.ell) > 1e-9 || math.Abs(dual-mustEval(t, s).Dual) > 1e-9*(1+math.Abs(dual)) {
				t.Fatalf("lambda %v: ell %v dual %v, from the Gibbs distributions %v %v", lambda, s.ell, mustEval(t, s).Dual, ell, dual)
			}
			if bf := bruteForcePrimal(p, lambda, s.Weights()); math.Abs(bf-mustEval(t, s).Primal) > 1e-9*(1+bf) {
				t.Fatalf("primal %v, brute force %v", mustEval(t, s).Primal, bf)
			}
		}
		tr := s.Trace()
		for k, pt := range tr {
			if d := pt.Primal - pt.Dual; math.IsNaN(pt.Gap) || math.Abs(d-pt.Gap) > 1e-9*(1+math.Abs(pt.Primal)) || pt.Gap < -1e-12 {
				t.Fatalf("lambda %v point %d: gap %v, primal - dual %v", lambda, k, pt.Gap, d)
			}
			if math.IsNaN(pt.GapAvg) || math.Abs(pt.PrimalAvg-pt.DualAvg-pt.GapAvg) > 1e-9*(1+math.Abs(pt.PrimalAvg)) || pt.GapAvg < -1e-12 {
				t.Fatalf("lambda %v point %d: averaged gap %v, primal - dual %v", lambda, k, pt.GapAvg, pt.PrimalAvg-pt.DualAvg)
			}
		}
		if first, last := tr[0], tr[len(tr)-1]; !(last.Gap < first.Gap/5) {
			t.Fatalf("lambda %v: gap %v -> %v in 60 passes", lambda, first.Gap, last.Gap)
		}
		if got := s.Passes(); got > 60+1e-9 || got < 60-6.0/8 {
			t.Fatalf("lambda %v: ended at %v passes for a budget of 60", lambda, got)
		}
	}
}

// TestOnlineEGReachesOptimum: online EG's primal and dual approach the
// optimum BCFW certifies.
func TestOnlineEGReachesOptimum(t *testing.T) {
	p := smallChain(9)
	ref := mustNew(t, p, config{Lambda: 0.1, Step: Pairwise})
	mustRun(t, ref, run.Stop{Gap: 1e-7, Passes: 1e6})
	opt, _ := ref.Last()
	s := mustNew(t, p, config{Lambda: 0.1, Algorithm: run.OnlineEG, GapEvery: 50})
	mustRun(t, s, run.Stop{Passes: 1000})
	last, _ := s.Last()
	if last.Dual > opt.Primal+1e-9 || last.Primal < opt.Dual-1e-9 {
		t.Fatalf("online EG primal %v dual %v outside the optimum's bounds [%v, %v]", last.Primal, last.Dual, opt.Dual, opt.Primal)
	}
	if last.Gap > 1e-2*opt.Primal {
		t.Fatalf("online EG gap %v after 1000 passes (optimum %v)", last.Gap, opt.Primal)
	}
}

// TestOnlineEGRefuses: a problem that is not a chain, a box, the
// predefined step size, another sampling and SetLambda.
func TestOnlineEGRefuses(t *testing.T) {
	chainP := smallChain(1)
	multi := oraclestest.Multiclass(5, 3, 3, 1)
	for name, c := range map[string]struct {
		p   oracles.Problem
		cfg config
	}{
		"multiclass": {multi, config{}},
		"box":        {chainP, config{Box: &Box{Lower: fill(chainP.Dim(), -1)}}},
		"predefined": {chainP, config{StepSize: run.Predefined}},
		"perm":       {chainP, config{Sampling: run.Permutation}},
	} {
		c.cfg.Algorithm, c.cfg.Lambda = run.OnlineEG, 0.1
		if _, err := newSolver(c.p, c.cfg); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	s := mustNew(t, chainP, config{Algorithm: run.OnlineEG, Lambda: 0.1})
	if err := s.SetLambda(0.05); err == nil {
		t.Error("SetLambda: no error")
	}
	if _, err := s.Run(context.Background(), run.Stop{Passes: 1}); err != nil {
		t.Fatal(err)
	}
}
