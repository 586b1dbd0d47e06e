package soft

import (
	"context"
	"math"
	"testing"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
)

// TestGapCertifies checks at every trace point that the soft gap is a
// certificate: primal - dual, non-negative, and the optimum f*_rho of the
// soft problem, bracketed by an independent solver of the dense quadratic
// program (reference.optimum), lies between the dual and the primal. The
// runs end with a small gap, so that the check has teeth.
func TestGapCertifies(t *testing.T) {
	type model struct {
		name string
		m    *factorgraph.Model
	}
	models := []model{{"multilabel", multiLabel(t, 4, 4, 3, 1)}}
	for _, sh := range shapes {
		models = append(models, model{sh.name, tinyModel(t, 21, 2, sh.cards, sh.scopes, 2)})
	}
	for _, mc := range models {
		for _, cfg := range []config{
			{Lambda: 0.5, Rho: 0.5, GapEvery: 2, TraceEvery: 0.5, Seed: 1},
			{Lambda: 0.2, Rho: 5, GapEvery: 1, Sampling: run.GapSampling, Seed: 2},
		} {
			s, err := newSolver(mc.m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			ref := newReference(mc.m, cfg.Lambda, cfg.Rho)
			lo, hi := ref.optimum(s, 20000)
			if hi-lo > 1e-6*math.Max(1, math.Abs(lo)) {
				t.Fatalf("%s: the reference optimum is only bracketed in [%v, %v]", mc.name, lo, hi)
			}
			if _, err := s.Run(context.Background(), run.Stop{Passes: 1000, Gap: 1e-5}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Current(); err != nil {
				t.Fatal(err)
			}
			tr := s.Trace()
			for k, p := range tr {
				if p.Gap < 0 || math.Abs(p.Gap-(p.Primal-p.Dual)) > 1e-12 {
					t.Fatalf("%s point %d: gap %v, primal - dual %v", mc.name, k, p.Gap, p.Primal-p.Dual)
				}
				if p.Dual > hi+1e-9 || p.Primal < lo-1e-9 {
					t.Fatalf("%s point %d: [dual %v, primal %v] does not contain f*_rho in [%v, %v]", mc.name, k, p.Dual, p.Primal, lo, hi)
				}
			}
			if last := tr[len(tr)-1]; !(last.Gap <= 2e-2*math.Abs(lo)) {
				t.Fatalf("%s: the run ended with gap %v (f*_rho = %v); the certificate check needs a converged run", mc.name, last.Gap, lo)
			} else {
				t.Logf("%s rho %g: f*_rho in [%.12f, %.12f], final soft gap %.3g", mc.name, cfg.Rho, lo, hi, last.Gap)
			}
		}
	}
}

// TestSoftBoundsHard checks Meshi's Thm. 4.1 and the weak duality of the
// hard problem on a multi-label model (whose LP vertices are
// half-integral): the LP-hard optimum g*, certified by BCFW on the Relaxed
// view, satisfies g* <= g*_rho, and the hard primal g(w, delta) of every
// soft trace point is at least g*.
func TestSoftBoundsHard(t *testing.T) {
	m := multiLabel(t, 6, 4, 3, 2)
	rel, err := factorgraph.NewRelaxed(m, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, rho := range []float64{0.3, 1, 10} {
		cfg := config{Lambda: 0.3, Rho: rho, GapEvery: 1, Seed: 3}
		hard, err := solver.BCFW{Lambda: cfg.Lambda, GapEvery: 1, Step: solver.Pairwise}.New(rel)
		if err != nil {
			t.Fatal(err)
		}
		res, err := hard.Run(context.Background(), run.Stop{Gap: 1e-9, Passes: 2000})
		if err != nil || res.Status != run.StatusConverged {
			t.Fatalf("LP-hard BCFW: %v, %v", res.Status, err)
		}
		gLo := res.Last.Dual // g* >= gLo
		s, err := newSolver(m, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run(context.Background(), run.Stop{Passes: 3000, Gap: 1e-5}); err != nil {
			t.Fatal(err)
		}
		last, _ := s.Current()
		if !(last.Gap <= 1e-2*last.Primal) {
			t.Fatalf("rho %v: soft run ended with gap %v", rho, last.Gap)
		}
		// g*_rho >= f_rho(mu) = last.Dual; Thm 4.1: g* <= g*_rho, which
		// the certified upper bound g*_rho <= last.Primal must respect.
		if last.Primal < gLo-1e-9 {
			t.Fatalf("rho %v: g*_rho <= %v below g* >= %v", rho, last.Primal, gLo)
		}
		for k, p := range s.Trace() {
			if p.HardPrimal < gLo-1e-9 {
				t.Fatalf("rho %v point %d: hard primal %v below the LP-hard optimum %v", rho, k, p.HardPrimal, gLo)
			}
		}
		t.Logf("rho %5g: g* in [%.6f, %.6f], g*_rho in [%.6f, %.6f], g(w_rho, delta_rho) = %.6f", rho, gLo, res.Last.Primal, last.Dual, last.Primal, last.HardPrimal)
	}
}
