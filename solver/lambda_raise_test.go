package solver

import (
	"math"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/oracles/oraclestest"
	"github.com/fwstruct/fwstruct/solver/run"
)

// TestSetLambdaIncreaseKeepsDuals: raising lambda keeps the dual variables
// (feasible for every lambda), so that w and every block vector scale by
// old/new lambda, ell stays, and the dual objective at the new lambda is
// ell - lambda'/2 |w'|^2, checked against the dual of the old point; the
// gap pass that follows at once (block methods) is a certificate with
// exact block gaps, and the run goes on consistently, its gap falling. SSG,
// without dual variables, keeps w. Every variant, every storage.
func TestSetLambdaIncreaseKeepsDuals(t *testing.T) {
	p := smallChain(5)
	const old, raised = 0.05, 0.2
	f := old / raised
	for _, v := range variants {
		for _, st := range []Storage{DenseBlocks, SparseBlocks} {
			t.Run(v.name+" "+st.String(), func(t *testing.T) {
				cfg := v.cfg
				cfg.Lambda, cfg.Seed = old, 2
				s := mustNew(t, p, withStorage(cfg, st))
				mustRun(t, s, run.Stop{Passes: 6})
				before := mustEval(t, s)
				w0 := s.Weights()
				var w0sq float64
				for _, x := range w0 {
					w0sq += x * x
				}
				ell := before.Dual + old/2*w0sq // D = ell - lambda/2 |w|^2 (no box)
				calls := s.OracleCalls()
				if err := s.SetLambda(raised); err != nil {
					t.Fatal(err)
				}
				if s.Lambda() != raised || s.cfg.Lambda != raised {
					t.Fatalf("lambda %v, config %v", s.Lambda(), s.cfg.Lambda)
				}
				scale := f
				if cfg.Algorithm == run.SSG {
					scale = 1
				}
				for j, x := range s.Weights() {
					if math.Abs(x-scale*w0[j]) > 1e-12*(1+math.Abs(w0[j])) {
						t.Fatalf("w[%d] = %v, want %v * %v", j, x, scale, w0[j])
					}
				}
				checkConsistency(t, s)
				pt := mustEval(t, s)
				if pt.Lambda != raised {
					t.Fatalf("evaluation at lambda %v", pt.Lambda)
				}
				if cfg.Algorithm != run.SSG {
					if want := ell - raised/2*f*f*w0sq; math.Abs(pt.Dual-want) > 1e-9*(1+math.Abs(want)) {
						t.Fatalf("dual at the new lambda %v, want ell - lambda'/2 |w'|^2 = %v", pt.Dual, want)
					}
					if math.Abs(pt.Primal-pt.Dual-pt.Gap) > 1e-9*(1+pt.Primal) || pt.Gap < -1e-12 {
						t.Fatalf("not a certificate: primal %v dual %v gap %v", pt.Primal, pt.Dual, pt.Gap)
					}
				}
				if cfg.Algorithm == run.BCFW {
					last, _ := s.Last()
					if !last.Refresh || last.Steps != s.Steps() || s.OracleCalls() != calls+int64(p.Len()) || last.Event == "" {
						t.Fatalf("block method: want a counted gap pass at the change with its event, got %+v (calls %d -> %d)", last, calls, s.OracleCalls())
					}
					if gaps, current := s.BlockGaps(); current {
						var sum float64
						for _, g := range gaps {
							sum += g
						}
						if math.Abs(sum-pt.Gap) > 1e-9*(1+pt.Gap) {
							t.Fatalf("block gaps sum to %v, the gap is %v", sum, pt.Gap)
						}
					}
				}
				mustRun(t, s, run.Stop{Passes: s.Passes() + 20})
				checkConsistency(t, s)
				end := mustEval(t, s)
				if cfg.Algorithm != run.SSG && !(end.Gap < pt.Gap) {
					t.Fatalf("gap %v after 20 more passes, %v at the change", end.Gap, pt.Gap)
				}
			})
		}
	}
}

// TestSetLambdaIncreaseExactStepsAndEG: exact block steps (class duals of a
// multiclass problem) keep their duals too, so w scales and the next
// evaluation is a certificate; online EG refuses any change of lambda.
func TestSetLambdaIncreaseExactStepsAndEG(t *testing.T) {
	mc := oraclestest.Multiclass(40, 4, 5, 3)
	s := mustNew(t, mc, config{Lambda: 0.05, Step: stepExact, Sampling: run.Permutation, GapEvery: 2, Seed: 1})
	mustRun(t, s, run.Stop{Passes: 4})
	w0 := s.Weights()
	if err := s.SetLambda(0.2); err != nil {
		t.Fatal(err)
	}
	for j, x := range s.Weights() {
		if math.Abs(x-0.25*w0[j]) > 1e-12*(1+math.Abs(w0[j])) {
			t.Fatalf("w[%d] = %v, want %v", j, x, 0.25*w0[j])
		}
	}
	if pt := mustEval(t, s); math.Abs(pt.Primal-pt.Dual-pt.Gap) > 1e-9*(1+pt.Primal) || pt.Gap < -1e-12 || pt.Lambda != 0.2 {
		t.Fatalf("after the increase: %+v", pt)
	}
	mustRun(t, s, run.Stop{Passes: s.Passes() + 6})
	if pt := mustEval(t, s); pt.Gap < -1e-12 || math.Abs(pt.Primal-pt.Dual-pt.Gap) > 1e-9*(1+pt.Primal) {
		t.Fatalf("6 passes later: %+v", pt)
	}

	eg := mustNew(t, smallChain(3), config{Lambda: 0.05, Algorithm: run.OnlineEG, GapEvery: 2})
	mustRun(t, eg, run.Stop{Passes: 2})
	if err := eg.SetLambda(0.2); err == nil || !strings.Contains(err.Error(), "online-eg") {
		t.Fatalf("online EG, lambda up: %v", err)
	}
}
