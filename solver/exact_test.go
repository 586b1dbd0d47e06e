package solver

import (
	"io"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
	"github.com/fwstruct/fwstruct/solver/execution"
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/run/runtest"
)

// blockDual is the dual objective as a function of block i's alpha_i with
// the other blocks fixed, computed from the problem's own psi vectors:
// ell - lambda/2 |w|^2 with w = v_rest + sigma sum_k alpha_k psi_i(k).
func blockDual(s *Solver, i int, vRest []float64, ellRest float64, alpha []float64) float64 {
	n := float64(s.n)
	w := append([]float64(nil), vRest...)
	ell := ellRest
	var psi oracles.SparseVec
	for k, a := range alpha {
		y := []int32{int32(k)}
		s.p.Psi(i, y, &psi)
		psi.AddTo(w, a*s.sigma())
		ell += a * s.p.Loss(i, y) / n
	}
	return ell - s.lambda/2*floats.Dot(w, w)
}

// bruteForceBlock maximizes blockDual over the simplex by projected
// gradient ascent (numerical gradient-free: the gradient is formed from
// the psi vectors) until the iterate moves less than 1e-13.
func bruteForceBlock(s *Solver, i int, vRest []float64, ellRest float64) []float64 {
	K := s.store.(*classStore).k
	n := float64(s.n)
	psis := make([][]float64, K)
	loss := make([]float64, K)
	var psi oracles.SparseVec
	for k := range psis {
		y := []int32{int32(k)}
		s.p.Psi(i, y, &psi)
		psis[k] = make([]float64, s.d)
		psi.AddTo(psis[k], s.sigma())
		loss[k] = s.p.Loss(i, y) / n
	}
	var lip float64
	for k := range psis {
		lip += s.lambda * floats.Dot(psis[k], psis[k])
	}
	alpha := make([]float64, K)
	alpha[0] = 1
	grad, w, scratch := make([]float64, K), make([]float64, s.d), make([]float64, K)
	for it := 0; it < 1000000; it++ {
		copy(w, vRest)
		for k := range psis {
			floats.AddScaled(w, alpha[k], psis[k])
		}
		old := append([]float64(nil), alpha...)
		for k := range grad {
			grad[k] = loss[k] - s.lambda*floats.Dot(w, psis[k])
			alpha[k] += grad[k] / lip
		}
		core.ProjectSimplex(alpha, scratch)
		if floats.Distance(alpha, old, math.Inf(1)) < 1e-13 {
			break
		}
	}
	return alpha
}

// TestExactBlockIsBruteForceQP checks the closed-form block solution of
// exact steps against projected gradient ascent on the block's dual,
// formed from the problem's psi vectors, on small random problems at
// random dual points (after some FW steps), block by block.
func TestExactBlockIsBruteForceQP(t *testing.T) {
	for _, tc := range []struct{ n, K, F int }{{6, 2, 3}, {8, 3, 2}, {10, 5, 4}, {7, 7, 1}} {
		p := oraclestest.Multiclass(tc.n, tc.K, tc.F, uint64(tc.K))
		s := mustNew(t, p, config{Lambda: 0.05, Step: stepExact, Sampling: run.Permutation, GapEvery: math.Inf(1)})
		mustRun(t, s, run.Stop{Passes: 1}) // a dual point away from the truth
		b := s.store.(*classStore)
		for i := 0; i < tc.n; i++ {
			vRest := append([]float64(nil), s.x.v...)
			floats.Sub(vRest, blockVector(s, i))
			ellRest := s.ell - s.ellI[i]
			want := bruteForceBlock(s, i, vRest, ellRest)
			s.exactBlock(i)
			got := b.block(i)
			if d := floats.Distance(got, want, math.Inf(1)); d > 1e-7 {
				t.Fatalf("%+v block %d: exact alpha %v, projected gradient %v", tc, i, got, want)
			}
			dg, dw := blockDual(s, i, vRest, ellRest, got), blockDual(s, i, vRest, ellRest, want)
			if dg < dw-1e-12 {
				t.Fatalf("%+v block %d: exact dual %v below brute force %v", tc, i, dg, dw)
			}
			checkConsistency(t, s)
		}
	}
}

// independentGap returns primal(w) - dual(alpha) of the solver's state
// computed from scratch: w from the class duals, the primal by exhaustive
// decoding, the dual from alpha.
func independentGap(t *testing.T, s *Solver) float64 {
	v := make([]float64, s.d)
	var ell float64
	for i := 0; i < s.n; i++ {
		floats.Add(v, blockVector(s, i))
		a := s.store.(*classStore).block(i)
		for k := range a {
			ell += a[k] * s.p.Loss(i, []int32{int32(k)}) / float64(s.n)
		}
	}
	if d := floats.Distance(v, s.x.w, math.Inf(1)); d > 1e-9 {
		t.Fatalf("w drifted from the class duals by %v", d)
	}
	return bruteForcePrimal(s.p.(oracles.LabeledProblem), s.lambda, v) - (ell - s.lambda/2*floats.Dot(v, v))
}

// TestExactStepsCertificate runs exact steps in every sampling, with
// averaging and with shrinking, to a certified gap: the certificate agrees
// with a recomputation from scratch at every trace point, the optimum with
// pairwise BCFW's, and shrinking skips blocks yet claims convergence only
// when every block (the skipped ones included) is within the gap.
func TestExactStepsCertificate(t *testing.T) {
	p := oraclestest.Multiclass(60, 4, 5, 9)
	const lambda, tol = 0.01, 1e-9
	ref := mustNew(t, p, config{Lambda: lambda, Step: Pairwise, GapEvery: 5})
	if st := mustRun(t, ref, run.Stop{Gap: tol, Passes: 100000}); st != run.StatusConverged {
		t.Fatalf("pairwise reference: %v", st)
	}
	opt, _ := ref.Last()
	for _, v := range []struct {
		name string
		cfg  config
	}{
		{"uniform", config{}},
		{"perm", config{Sampling: run.Permutation}},
		{"gap sampling", config{Sampling: run.GapSampling, GapEvery: 2}},
		{"averaging", config{Sampling: run.Permutation, Averaging: true}},
		{"shrinking", config{Sampling: run.Permutation, Shrinking: true, GapEvery: 3}},
		{"shrinking averaging", config{Sampling: run.Permutation, Shrinking: true, Averaging: true, GapEvery: 50}},
	} {
		cfg := v.cfg
		cfg.Lambda, cfg.Step = lambda, stepExact
		s := mustNew(t, p, cfg)
		st := mustRun(t, s, run.Stop{Gap: tol, Passes: 10000})
		last, _ := s.Last()
		if st != run.StatusConverged || !(last.Gap <= tol) {
			t.Fatalf("%s: status %v, gap %v", v.name, st, last.Gap)
		}
		for _, pt := range s.Trace() {
			if math.Abs(pt.Gap-(pt.Primal-pt.Dual)) > 1e-10 {
				t.Fatalf("%s pass %v: gap %v, primal - dual %v", v.name, pt.Pass, pt.Gap, pt.Primal-pt.Dual)
			}
		}
		if g := independentGap(t, s); math.Abs(g-last.Gap) > 1e-10 || g > tol+1e-12 {
			t.Fatalf("%s: reported gap %v, recomputed %v", v.name, last.Gap, g)
		}
		if math.Abs(last.Primal-opt.Primal) > 2*tol {
			t.Fatalf("%s: primal %v, pairwise BCFW's %v", v.name, last.Primal, opt.Primal)
		}
		checkConsistency(t, s)
		if cfg.Shrinking && s.skipped == 0 {
			t.Fatalf("%s: shrinking skipped no block", v.name)
		}
		t.Logf("%s: %v passes, %d oracle calls, %d skipped", v.name, last.Pass, last.OracleCalls, s.skipped)
	}
}

// TestExactConformance runs the solver contract (split runs, Save/Load
// continuity, certificates, ...) with exact steps, with and without
// shrinking, whose active sets a checkpoint keeps.
func TestExactConformance(t *testing.T) {
	p := oraclestest.Multiclass(40, 5, 4, 21)
	for _, v := range []struct {
		name string
		cfg  config
	}{
		{"exact", config{Sampling: run.Permutation}},
		{"exact shrinking", config{Sampling: run.Permutation, Shrinking: true}},
		{"exact shrinking averaging", config{Sampling: run.Permutation, Shrinking: true, Averaging: true}},
	} {
		t.Run(v.name, func(t *testing.T) {
			cfg := v.cfg
			cfg.Step, cfg.Lambda, cfg.Seed, cfg.GapEvery, cfg.TraceEvery = stepExact, 0.05, 3, 2, 1.5
			runtest.Conformance(t, runtest.Family{
				New: func() (run.Solver, error) { return newSolver(p, cfg, run.WithTrainLoss(true)) },
				Load: func(r io.Reader) (run.Solver, error) {
					return Load(r, p, run.WithTrainLoss(true))
				},
				Iterate: func(s run.Solver) []float64 { return s.(*Solver).Weights() },
				Passes:  12,
			})
		})
	}
}

// TestExactInvalidSettings: exact steps need a multiclass problem and
// refuse what they cannot combine with; shrinking needs exact steps and
// permutation sampling.
func TestExactInvalidSettings(t *testing.T) {
	mc := oraclestest.Multiclass(10, 3, 2, 1)
	for _, tc := range []struct {
		name string
		p    oracles.Problem
		cfg  config
		want string
	}{
		{"chain", smallChain(1), config{Step: stepExact}, "train on multiclass data (their blocks are simplices over the classes), not on sequence labeling (chains)"},
		{"fw", mc, config{Step: stepExact, Algorithm: run.FW}, "bcfw"},
		{"cache", mc, config{Step: stepExact, Cache: cacheRule{Enabled: true}}, "no cache"},
		{"box", mc, config{Step: stepExact, Box: &Box{Lower: make([]float64, mc.Dim())}}, "box"},
		{"predefined", mc, config{Step: stepExact, StepSize: run.Predefined}, "step size"},
		{"batch", mc, config{Step: stepExact, Execution: execution.MiniBatch{Batch: 4}}, "sequential"},
		{"shrinking fw steps", mc, config{Shrinking: true}, "exact steps"},
		{"shrinking uniform", mc, config{Step: stepExact, Shrinking: true}, "permutation sampling"},
	} {
		cfg := tc.cfg
		cfg.Lambda = 0.1
		_, err := newSolver(tc.p, cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}
