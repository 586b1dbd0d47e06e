package soft

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/fwstruct/fwstruct/solver/run"
)

// TestSetLambda raises and lowers lambda mid-run: the marginals stay, the
// point recorded at once is a counted gap pass at the new lambda whose dual
// is f_rho of the unchanged marginals at the new lambda (the dense
// reference) and whose w is Psi mu at it, a save and load right after it
// continues identically, and the run reaches a certified gap at the primal
// of a fresh run at the new lambda.
func TestSetLambda(t *testing.T) {
	m := multiLabel(t, 6, 4, 3, 2)
	const tol = 1e-4
	for _, sampling := range []run.Sampling{run.Uniform, run.GapSampling, run.ExamplePermutation} {
		for _, factor := range []float64{4, 0.25} {
			t.Run(fmt.Sprintf("%v x%g", sampling, factor), func(t *testing.T) {
				cfg := config{Lambda: 0.1, Rho: 1, GapEvery: 2, Sampling: sampling, Seed: 3}
				s, err := newSolver(m, cfg)
				if err != nil {
					t.Fatal(err)
				}
				run1(t, s, run.Stop{Passes: 5})
				mu, delta, calls, points := slices.Clone(s.mu), slices.Clone(s.delta), s.OracleCalls(), len(s.Trace())
				newLambda := cfg.Lambda * factor
				if err := s.SetLambda(newLambda); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(mu, s.mu) {
					t.Fatal("SetLambda changed the marginals")
				}
				ref := newReference(m, newLambda, cfg.Rho)
				tr := s.Trace()
				pt := tr[len(tr)-1]
				if len(tr) != points+1 || !pt.Refresh || pt.Lambda != newLambda || s.cfg.Lambda != newLambda ||
					pt.Event != fmt.Sprintf("lambda %g -> %g", cfg.Lambda, newLambda) || s.OracleCalls() != calls+int64(s.Blocks()) ||
					!(pt.Gap >= 0) {
					t.Fatalf("point after SetLambda %+v, %d calls before", pt, calls)
				}
				assertClose(t, "dual", pt.Dual, ref.dual(s, mu), 1e-9)
				_, primal := ref.primals(s, ref.weights(s, mu), ref.delta(s, mu))
				assertClose(t, "primal", pt.Primal, primal, 1e-9)
				for j, v := range ref.delta(s, mu) {
					assertClose(t, "delta", s.delta[j], v, 1e-9)
					assertClose(t, "delta before", delta[j], v, 1e-9)
				}
				assertClose(t, "gap estimate", s.GapEstimate(), pt.Gap, 1e-9)

				var buf bytes.Buffer
				if err := s.Save(&buf); err != nil {
					t.Fatal(err)
				}
				l, err := load(&buf, m)
				if err != nil {
					t.Fatal(err)
				}
				stop := run.Stop{Gap: tol, Passes: 20000}
				for _, r := range []*Solver{s, l} {
					if st := run1(t, r, stop); st != run.StatusConverged {
						t.Fatalf("status %v", st)
					}
				}
				if !slices.Equal(s.mu, l.mu) || !samePoints(t, s.Trace(), l.Trace()) {
					t.Fatal("the loaded copy continued differently")
				}

				cfg.Lambda, cfg.Seed = newLambda, 1
				sameAsFresh(t, m, s, cfg, stop)
			})
		}
	}
}

func run1(t *testing.T, s *Solver, stop run.Stop) run.Status {
	t.Helper()
	res, err := s.Run(context.Background(), stop)
	if err != nil {
		t.Fatal(err)
	}
	return res.Status
}
