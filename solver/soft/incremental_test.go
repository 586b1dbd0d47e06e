package soft

import (
	"context"
	"math"
	"testing"

	"github.com/fwstruct/fwstruct/solver/run"
)

// TestIncrementalMatchesRecomputation: after many steps without gap passes
// (which would re-anchor them), the w and delta the solver updated in place
// (App. D) equal Psi mu and A mu recomputed from the marginals, and the
// marginals stay on their simplices; for every sampling.
func TestIncrementalMatchesRecomputation(t *testing.T) {
	for _, sh := range shapes {
		for _, samp := range []run.Sampling{run.Uniform, run.Permutation, run.GapSampling} {
			m := tinyModel(t, 11, 4, sh.cards, sh.scopes, 3)
			cfg := config{Lambda: 0.05, Rho: 0.3, Sampling: samp, GapEvery: math.Inf(1), Seed: 2}
			s, err := newSolver(m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Run(context.Background(), run.Stop{Passes: 40}); err != nil {
				t.Fatal(err)
			}
			ref := newReference(m, cfg.Lambda, cfg.Rho)
			w, delta := ref.weights(s, s.mu), ref.delta(s, s.mu)
			var moved float64
			for j := range w {
				assertClose(t, sh.name+" w", s.w[j], w[j], 1e-10)
				moved = math.Max(moved, math.Abs(w[j]))
			}
			for j := range delta {
				assertClose(t, sh.name+" delta", s.delta[j], delta[j], 1e-10)
				moved = math.Max(moved, math.Abs(delta[j]))
			}
			if moved == 0 {
				t.Fatalf("%s: the run never left the starting point", sh.name)
			}
			if err := s.checkMarginals(s.mu); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestObjectivesMatchReference: the trace point's soft dual, soft primal and
// hard primal equal their definitions (eq. 2, 5, 6) recomputed densely, and
// the gap equals the sum of the exact block gaps (the block gaps of gap
// sampling).
func TestObjectivesMatchReference(t *testing.T) {
	for _, sh := range shapes {
		m := tinyModel(t, 12, 3, sh.cards, sh.scopes, 2)
		cfg := config{Lambda: 0.2, Rho: 0.5, GapEvery: 3, Seed: 8}
		s, err := newSolver(m, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ref := newReference(m, cfg.Lambda, cfg.Rho)
		for _, passes := range []float64{0, 2, 5} {
			if passes > 0 {
				if _, err := s.Run(context.Background(), run.Stop{Passes: passes}); err != nil {
					t.Fatal(err)
				}
			}
			pt, err := s.Evaluate()
			if err != nil {
				t.Fatal(err)
			}
			hard, soft := ref.primals(s, s.w, s.delta)
			assertClose(t, sh.name+" dual", pt.Dual, ref.dual(s, s.mu), 1e-10)
			assertClose(t, sh.name+" hard primal", pt.HardPrimal, hard, 1e-10)
			assertClose(t, sh.name+" soft primal", pt.Primal, soft, 1e-10)
			var sum float64
			for _, g := range s.work.blkGap {
				if g < -1e-15 {
					t.Fatalf("%s: negative block gap %v", sh.name, g)
				}
				sum += g
			}
			assertClose(t, sh.name+" gap", pt.Gap, sum, 1e-10)
			if pt.Rho != cfg.Rho || pt.Lambda != cfg.Lambda || pt.HardPrimal > pt.Primal {
				t.Fatalf("%s: point %+v", sh.name, pt)
			}
		}
	}
}
