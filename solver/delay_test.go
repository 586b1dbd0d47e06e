package solver

import (
	"fmt"
	"math"
	"testing"

	"github.com/fwstruct/fwstruct/solver/execution"
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
				cfg := config{Lambda: 0.05, Sampling: smp, Step: st, GapEvery: 2, Seed: 4, Cache: cacheRule{Enabled: smp == run.GapSampling}}
				a := mustNew(t, p, cfg)
				cfg.Execution = execution.Simulated{Workers: 1}
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
// gap, and its queue is what K workers hold: K-1 answers between steps,
// on distinct blocks (a block in flight is not drawn again; with K close to
// n the draws cannot always find an idle block, and fewer are in flight).
func TestSimulatedWorkersStale(t *testing.T) {
	p := smallChain(12)
	base := config{Lambda: 0.1, GapEvery: 1, Seed: 5}
	a := mustNew(t, p, base)
	mustRun(t, a, run.Stop{Passes: 2})
	for _, k := range []int{2, 4, 30} {
		cfg := base
		cfg.Execution = execution.Simulated{Workers: k}
		s := mustNew(t, p, cfg)
		mustRun(t, s, run.Stop{Passes: 2})
		var inFlight []int32
		if sv := s.sched.Save(); sv != nil {
			inFlight = sv.Blocks
		}
		if got, want := len(inFlight), min(k, p.Len())-1; got > want || (k <= 4 && got != want) || got < 1 {
			t.Fatalf("K=%d: %d answers in flight between steps, want %d", k, got, want)
		}
		seen := map[int32]bool{}
		for _, i := range inFlight {
			if seen[i] {
				t.Fatalf("K=%d: block %d in flight twice", k, i)
			}
			seen[i] = true
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

// TestDelays: the delays a run reports are those its execution makes: none
// for BCFW, 0..tau-1 for a mini-batch of tau, K-1 once the simulator's
// queue is full; a distribution of one delay replays the first-in
// first-out simulator bit for bit, and a measured one gives a run that
// converges with the delays it was given.
func TestDelays(t *testing.T) {
	p := smallChain(13)
	mk := func(cfg config) *Solver {
		cfg.Lambda, cfg.GapEvery, cfg.Seed = 0.1, 1, 3
		s := mustNew(t, p, cfg)
		mustRun(t, s, run.Stop{Passes: 4})
		return s
	}
	if d := mk(config{}).Delays(); d != nil {
		t.Fatalf("bcfw reported delays %v", d.Weights)
	}
	batch := mk(config{Execution: execution.MiniBatch{Batch: 4}}).Delays()
	if len(batch.Weights) != 4 || batch.Weights[0] != batch.Weights[3] || batch.Weights[0] == 0 {
		t.Fatalf("mini-batch of 4: delays %v, want 0..3 equally often", batch.Weights)
	}
	sim := mk(config{Execution: execution.Simulated{Workers: 3}})
	dd := sim.Delays()
	if len(dd.Weights) != 3 || dd.Weights[0] != 1 || dd.Weights[1] != 1 || dd.Weights[2] != float64(sim.Steps()-2) {
		t.Fatalf("simulator of 3 workers after %d steps: delays %v", sim.Steps(), dd.Weights)
	}
	replay := mk(config{Execution: execution.Simulated{Workers: 3, Delays: &execution.Delays{Weights: []float64{0, 0, 1}}}})
	requireSameRun(t, sim, replay)

	spread := &execution.Delays{Weights: []float64{1, 4, 2, 1}}
	s := mk(config{Step: Pairwise, Cache: cacheRule{Enabled: true}, Execution: execution.Simulated{Workers: 3, Delays: spread}})
	got := s.Delays()
	if m := got.Mean(); !(m > 0.5 && m < 3) {
		t.Fatalf("replayed delays %v (mean %v) do not follow %v (mean %v)", got.Weights, m, spread.Weights, spread.Mean())
	}
	if st := mustRun(t, s, run.Stop{Passes: 3000, Gap: 5e-3}); st != run.StatusConverged {
		t.Fatalf("replayed delays: status %v", st)
	}
	checkConsistency(t, s)
	for _, bad := range []*execution.Delays{{}, {Weights: []float64{-1, 2}}, {Weights: []float64{math.NaN()}}} {
		if _, err := newSolver(p, config{Lambda: 0.1, Execution: execution.Simulated{Workers: 2, Delays: bad}}); err == nil {
			t.Errorf("delays %v accepted", bad.Weights)
		}
	}
	if _, err := newSolver(p, config{Lambda: 0.1, Execution: execution.Simulated{Workers: 0, Delays: spread}}); err == nil {
		t.Error("delays without the simulator accepted")
	}
}
