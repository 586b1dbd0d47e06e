package kernel

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/fwstruct/fwstruct/oracles/oraclestest"
	"github.com/fwstruct/fwstruct/solver/run"
)

// TestSetLambda raises and lowers lambda mid-run: the dual variables stay,
// the point recorded at once is a counted gap pass at the new lambda whose
// primal and dual equal brute-force recomputations from the unchanged
// alpha, a save and load right after it continues identically, and the run
// reaches a certified gap at the primal of a fresh run at the new lambda.
func TestSetLambda(t *testing.T) {
	p := oraclestest.Multiclass(30, 3, 4, 6)
	k := Kernel{Kind: RBF, Gamma: 0.5}
	for _, c := range []struct {
		cfg config
		tol float64 // the certified gap both runs reach
	}{
		{config{Kernel: k, Sampling: run.GapSampling, Averaging: true}, 1e-4},
		{config{Kernel: k, Algorithm: run.FW, Averaging: true}, 1e-3},
		{config{Kernel: k, Exact: true, Shrinking: true, Sampling: run.Permutation}, 1e-6},
	} {
		cfg := c.cfg
		for _, factor := range []float64{4, 0.25} {
			t.Run(fmt.Sprintf("%v %v shrinking %v x%g", cfg.Algorithm, cfg.Sampling, cfg.Shrinking, factor), func(t *testing.T) {
				cfg.Lambda, cfg.GapEvery, cfg.Seed = 0.05, 3, 4
				s := mustNew(t, p, cfg)
				mustRun(t, s, run.Stop{Passes: 5})
				alpha, calls, points := slices.Clone(s.alpha), s.OracleCalls(), len(s.Trace())
				newLambda := cfg.Lambda * factor
				if err := s.SetLambda(newLambda); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(alpha, s.alpha) {
					t.Fatal("SetLambda changed the dual variables")
				}
				tr := s.Trace()
				pt := tr[len(tr)-1]
				bp, bd := bruteObjectives(s)
				if len(tr) != points+1 || !pt.Refresh || pt.Lambda != newLambda || s.cfg.Lambda != newLambda ||
					pt.Event != fmt.Sprintf("lambda %g -> %g", cfg.Lambda, newLambda) || s.OracleCalls() != calls+int64(p.Len()) ||
					!(pt.Gap >= 0) || !close(bp, pt.Primal, 1e-9) || !close(bd, pt.Dual, 1e-9) {
					t.Fatalf("point after SetLambda %+v (brute force primal %v dual %v), %d calls before", pt, bp, bd, calls)
				}
				if cfg.Algorithm == run.BCFW && !close(s.GapEstimate(), pt.Gap, 1e-9) {
					t.Fatalf("gap estimate %v, exact gap %v", s.GapEstimate(), pt.Gap)
				}

				var buf bytes.Buffer
				if err := s.Save(&buf); err != nil {
					t.Fatal(err)
				}
				l, err := Load(&buf, p)
				if err != nil {
					t.Fatal(err)
				}
				stop := run.Stop{Gap: c.tol, Passes: 20000}
				for _, r := range []*Solver{s, l} {
					if st := mustRun(t, r, stop); st != run.StatusConverged {
						t.Fatalf("status %v", st)
					}
				}
				if !slices.Equal(s.alpha, l.alpha) || gapPasses(s.Trace()) != gapPasses(l.Trace()) {
					t.Fatal("the loaded copy continued differently")
				}

				fresh := mustNew(t, p, config{Lambda: newLambda, Kernel: cfg.Kernel, Algorithm: cfg.Algorithm, Exact: cfg.Exact,
					Shrinking: cfg.Shrinking, Sampling: cfg.Sampling, GapEvery: cfg.GapEvery, Seed: 1})
				if st := mustRun(t, fresh, stop); st != run.StatusConverged {
					t.Fatalf("fresh run: status %v", st)
				}
				a, _ := s.Last()
				b, _ := fresh.Last()
				if math.Abs(a.Primal-b.Primal) > a.Gap+b.Gap {
					t.Fatalf("primal %v (gap %v) after SetLambda, %v (gap %v) fresh", a.Primal, a.Gap, b.Primal, b.Gap)
				}
			})
		}
	}
}

// gapPasses returns the exact gap passes of a trace, solver times aside.
func gapPasses(tr []run.Point) string {
	var b bytes.Buffer
	for _, p := range tr {
		if p.Refresh {
			p.Seconds, p.EvalSeconds, p.OracleTimeShare = 0, 0, 0
			fmt.Fprintln(&b, p)
		}
	}
	return b.String()
}
