package soft

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/solver/run"
)

// TestForkRho changes rho mid-run through Fork, in both directions, alone
// and with lambda: the marginals stay, the fork's points at the change are
// counted gap passes (one per changed parameter) whose dual is f_rho of the
// unchanged marginals at the new parameters (the dense reference), the
// event says "rho a -> b", the parent is left as it was, and the fork
// reaches a certified gap at the primal of a fresh run at the new rho.
// Other changes stay refused.
func TestForkRho(t *testing.T) {
	m := multiLabel(t, 6, 4, 3, 2)
	const tol = 1e-4
	for _, tc := range []struct {
		rho, lambda float64
	}{{4, 0.1}, {0.25, 0.1}, {4, 0.02}} {
		t.Run(fmt.Sprintf("rho %g lambda %g", tc.rho, tc.lambda), func(t *testing.T) {
			cfg := config{Lambda: 0.1, Rho: 1, GapEvery: 2, Sampling: run.GapSampling, Seed: 3}
			s, err := newSolver(m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			run1(t, s, run.Stop{Passes: 5})
			mu, calls, points := slices.Clone(s.mu), s.OracleCalls(), len(s.Trace())
			want := methodOf(cfg)
			want.Rho, want.Lambda = tc.rho, tc.lambda
			fs, err := s.Fork(want)
			if err != nil {
				t.Fatal(err)
			}
			f := fs.(*Solver)
			if !slices.Equal(mu, f.mu) || s.cfg != cfg || len(s.Trace()) != points {
				t.Fatal("the fork changed the marginals or the parent")
			}
			changes := 1
			if tc.lambda != cfg.Lambda {
				changes = 2
			}
			tr := f.Trace()
			rhoPt := tr[points]
			if len(tr) != points+changes || !rhoPt.Refresh || rhoPt.Rho != tc.rho || f.cfg.Rho != tc.rho ||
				rhoPt.Event != fmt.Sprintf("rho %g -> %g", cfg.Rho, tc.rho) || f.OracleCalls() != calls+int64(changes*f.Blocks()) {
				t.Fatalf("points after the fork %+v, %d calls before", tr[points:], calls)
			}
			ref := newReference(m, tc.lambda, tc.rho)
			pt := tr[len(tr)-1]
			assertClose(t, "dual", pt.Dual, ref.dual(f, mu), 1e-9)
			for j, v := range ref.delta(f, mu) {
				assertClose(t, "delta", f.delta[j], v, 1e-9)
			}
			stop := run.Stop{Gap: tol, Passes: 20000}
			if st := run1(t, f, stop); st != run.StatusConverged {
				t.Fatalf("status %v", st)
			}
			sameAsFresh(t, m, f, config{Lambda: tc.lambda, Rho: tc.rho, GapEvery: 2, Sampling: run.GapSampling, Seed: 1}, stop)
		})
	}
	s, err := newSolver(m, config{Lambda: 0.1, Rho: 1, GapEvery: 2, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Fork(BCFW{Lambda: 0.1, Rho: 2, GapEvery: 2, Seed: 3, Sampling: run.Permutation}); err == nil {
		t.Fatal("a fork that changes the sampling was accepted")
	}
	if _, err := s.Fork(BCFW{Lambda: 0.1, Rho: -1, GapEvery: 2, Seed: 3}); err == nil {
		t.Fatal("a fork to rho -1 was accepted")
	}
}

// sameAsFresh runs a fresh solver of cfg on m to stop, which must certify
// its gap, and fails unless s, converged to stop as well, has the same
// primal within their gaps.
func sameAsFresh(t *testing.T, m *factorgraph.Model, s *Solver, cfg config, stop run.Stop) {
	t.Helper()
	fresh, err := newSolver(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if st := run1(t, fresh, stop); st != run.StatusConverged {
		t.Fatalf("fresh run: status %v", st)
	}
	a, _ := s.Last()
	b, _ := fresh.Last()
	if math.Abs(a.Primal-b.Primal) > a.Gap+b.Gap {
		t.Fatalf("primal %v (gap %v) after the change, %v (gap %v) fresh", a.Primal, a.Gap, b.Primal, b.Gap)
	}
}
