package solver

import (
	"fmt"
	"math"
	"testing"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/internal/gendata"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
	"github.com/fwstruct/fwstruct/solver/execution"
	"github.com/fwstruct/fwstruct/solver/run"
)

// TestParallelExecutionsCostlyOracles runs the three parallel executions
// with three workers on the costly oracles they are for, graph cuts
// (max-flow, the horses task) and the LP over the local polytope (LP-hard):
// certificates at every trace point and consistent bookkeeping. Under the
// race detector (make race) it checks that these oracles may run
// concurrently against one w and against the workers' copies.
func TestParallelExecutionsCostlyOracles(t *testing.T) {
	m, err := gendata.Model(8, []int{3, 3, 2, 2}, [][]int{{0, 1}, {1, 2}, {0, 2}, {1, 2, 3}}, 3, 13)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := factorgraph.NewRelaxed(m, 2)
	if err != nil {
		t.Fatal(err)
	}
	seg := oraclestest.Segmentation(oraclestest.SegmentationConfig{N: 6, MinNodes: 5, MaxNodes: 9, Unary: 4, Pairwise: 2, Degree: 3, Seed: 9})
	for _, pc := range []struct {
		name string
		p    oracles.Problem
	}{{"graph cut", seg}, {"lp-hard", rel}} {
		for k, cfg := range []config{
			{Execution: execution.MiniBatch{Batch: 4}},
			{Step: Pairwise, Sampling: run.GapSampling, Cache: cacheRule{Enabled: true}, Execution: execution.MiniBatch{Batch: 3}},
			{Step: Pairwise, Sampling: run.GapSampling, Cache: cacheRule{Enabled: true}, Execution: execution.MiniBatch{Batch: 2, Lookahead: 2}},
			{Execution: execution.Async{}},
			{Step: Away, Execution: execution.Simulated{Workers: 4}},
		} {
			t.Run(fmt.Sprintf("%s %d", pc.name, k), func(t *testing.T) {
				cfg.Lambda, cfg.GapEvery, cfg.Seed = 0.05, 1, 3
				s := mustNew(t, pc.p, cfg, run.WithWorkers(3))
				mustRun(t, s, run.Stop{Passes: 6})
				checkConsistency(t, s)
				for k, pt := range s.Trace() {
					if d := pt.Primal - pt.Dual; math.Abs(d-pt.Gap) > 1e-9*(1+math.Abs(pt.Primal)) || pt.Gap < -1e-9 {
						t.Fatalf("point %d: gap %v, primal - dual %v", k, pt.Gap, d)
					}
				}
				// Every step is a line search at the updater's iterate: the
				// dual never decreases, however stale the corner.
				tr := s.Trace()
				for k := 1; k < len(tr); k++ {
					if tr[k].Dual < tr[k-1].Dual-1e-12 {
						t.Fatalf("dual decreased at point %d: %v -> %v", k, tr[k-1].Dual, tr[k].Dual)
					}
				}
				if !(tr[len(tr)-1].Dual > tr[0].Dual) {
					t.Fatalf("the dual did not rise: %v -> %v", tr[0].Dual, tr[len(tr)-1].Dual)
				}
			})
		}
	}
}
