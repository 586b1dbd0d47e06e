package solver

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"github.com/fwstruct/fwstruct/solver/execution"
	"github.com/fwstruct/fwstruct/solver/run"
)

// TestAsyncCertifiedConvergence: asynchronous runs (not reproducible, so
// checked by their properties) keep the dual bookkeeping consistent, every
// trace point is a certificate, the dual never decreases (every step is a
// line search at the updater's iterate), and they reach the gap BCFW
// reaches; split into several Run calls and through a checkpoint with
// answers in flight.
func TestAsyncCertifiedConvergence(t *testing.T) {
	p := smallChain(13)
	for _, workers := range []int{1, 2, 4} {
		for _, cfg := range []config{
			{Lambda: 0.1, GapEvery: 1, Seed: 1, Execution: execution.Async{}},
			{Lambda: 0.1, Step: Pairwise, Sampling: run.GapSampling, Cache: cacheRule{Enabled: true}, GapEvery: 1, Seed: 2, Execution: execution.Async{}},
			{Lambda: 0.1, Step: Away, Sampling: run.Permutation, Box: &Box{Lower: fill(p.Dim(), -0.3)}, GapEvery: 1, Seed: 3, Execution: execution.Async{}},
		} {
			t.Run(fmt.Sprintf("workers=%d %v %v", workers, cfg.Step, cfg.Sampling), func(t *testing.T) {
				s := mustNew(t, p, cfg, run.WithWorkers(workers))
				mustRun(t, s, run.Stop{Passes: 3})
				var buf bytes.Buffer
				if err := s.Save(&buf); err != nil {
					t.Fatal(err)
				}
				s2, err := Load(&buf, p, run.WithWorkers(workers))
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range []*Solver{s, s2} {
					if st := mustRun(t, s, run.Stop{Passes: 3000, Gap: 5e-3}); st != run.StatusConverged {
						t.Fatalf("status %v", st)
					}
					checkConsistency(t, s)
					tr := s.Trace()
					for k, pt := range tr {
						if d := pt.Primal - pt.Dual; math.Abs(d-pt.Gap) > 1e-9*(1+math.Abs(pt.Primal)) || pt.Gap < -1e-12 {
							t.Fatalf("point %d: gap %v, primal - dual %v", k, pt.Gap, d)
						}
						if k > 0 && pt.Dual < tr[k-1].Dual-1e-12 {
							t.Fatalf("dual decreased at point %d: %v -> %v", k, tr[k-1].Dual, pt.Dual)
						}
					}
				}
			})
		}
	}
}
