package solver

import (
	"fmt"
	"testing"

	"github.com/fwstruct/fwstruct/solver/run"
)

// TestSimulatedOneWorkerIsBCFW: the delay simulator with K = 1 (one answer
// in flight, applied at once) is the sequential run bit for bit, trace
// included, for every step type and sampling.
func TestSimulatedOneWorkerIsBCFW(t *testing.T) {
	p := smallChain(11)
	for _, smp := range []run.Sampling{run.Uniform, run.Permutation, run.GapSampling} {
		for _, st := range []Step{FWStep, Pairwise, Away} {
			t.Run(fmt.Sprintf("%v %v", smp, st), func(t *testing.T) {
				cfg := Config{Lambda: 0.05, Sampling: smp, Step: st, GapEvery: 2, Seed: 4, Cache: Cache{Enabled: smp == run.GapSampling}}
				a := mustNew(t, p, cfg)
				cfg.SimulateWorkers = 1
				b := mustNew(t, p, cfg)
				mustRun(t, a, run.Stop{Passes: 9})
				mustRun(t, b, run.Stop{Passes: 9})
				requireSameRun(t, a, b)
			})
		}
	}
}

// TestSimulatedWorkersStale: with K > 1 the answers are K-1 steps stale
// (the trajectory leaves BCFW's), the run still converges to a certified
// gap, and its queue is what K workers hold.
func TestSimulatedWorkersStale(t *testing.T) {
	p := smallChain(12)
	base := Config{Lambda: 0.1, GapEvery: 1, Seed: 5}
	a := mustNew(t, p, base)
	mustRun(t, a, run.Stop{Passes: 2})
	for _, k := range []int{2, 8, 30} {
		cfg := base
		cfg.SimulateWorkers = k
		s := mustNew(t, p, cfg)
		mustRun(t, s, run.Stop{Passes: 2})
		if got := s.work.pre.pending(); got != k-1 {
			t.Fatalf("K=%d: %d answers in flight between steps, want %d", k, got, k-1)
		}
		same := true
		for j, v := range a.Weights() {
			same = same && v == s.Weights()[j]
		}
		if same {
			t.Fatalf("K=%d followed BCFW's trajectory", k)
		}
		if st := mustRun(t, s, run.Stop{Passes: 2000, Gap: 5e-3}); st != run.StatusConverged {
			t.Fatalf("K=%d: status %v", k, st)
		}
		checkConsistency(t, s)
	}
}
