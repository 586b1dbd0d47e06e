package solver

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/execution"
	"github.com/fwstruct/fwstruct/solver/run"
)

// TestReadWriteIsTheSequentialStep drives the seam the executions schedule
// (blockSteps) by hand, next to BCFW: a block drawn with Draw, its read part
// computed on a worker at a copy of w and written at once (age 0) is the
// sequential step bit for bit, for every step type and sampling, with and
// without the cache (an answer read at the current iterate is never stale).
func TestReadWriteIsTheSequentialStep(t *testing.T) {
	p := smallChain(4)
	for _, smp := range []run.Sampling{run.Uniform, run.Permutation, run.GapSampling} {
		for _, st := range []Step{FWStep, Pairwise, Away} {
			t.Run(fmt.Sprintf("%v %v", smp, st), func(t *testing.T) {
				cfg := config{Lambda: 0.05, Sampling: smp, Step: st, Seed: 9, Cache: cacheRule{Enabled: smp == run.GapSampling}}
				a := mustNew(t, p, cfg, run.WithWorkers(1))
				b := mustNew(t, p, cfg, run.WithWorkers(3))
				steps := blockSteps{b}
				var e ahead
				var drawn []int
				var w []float64
				for k := 0; k < 5*p.Len(); k++ {
					if err := a.bcfwStep(); err != nil {
						t.Fatal(err)
					}
					drawn = steps.Draw(1, nil, drawn)
					i := drawn[0]
					steps.Begin(i, &e)
					w = append(w[:0], steps.Iterate()...)
					if err := steps.Read(i, &e, w, 2); err != nil {
						t.Fatal(err)
					}
					if err := steps.Write(i, &e, 0); err != nil {
						t.Fatal(err)
					}
				}
				wa, wb := a.Weights(), b.Weights()
				for j := range wa {
					if wa[j] != wb[j] {
						t.Fatalf("w[%d] = %v (bcfw) vs %v (read, then written)", j, wa[j], wb[j])
					}
				}
				if a.ell != b.ell || a.calls != b.calls {
					t.Fatalf("ell %v vs %v, calls %d vs %d", a.ell, b.ell, a.calls, b.calls)
				}
			})
		}
	}
}

// TestMiniBatchReproducible: for a given seed and batch size, the run is the
// same whatever the number of workers, and from one run to the next.
func TestMiniBatchReproducible(t *testing.T) {
	p := smallChain(5)
	for _, cfg := range []config{
		{Lambda: 0.05, GapEvery: 2, Seed: 1, Execution: execution.MiniBatch{Batch: 4}},
		{Lambda: 0.05, Step: Pairwise, Sampling: run.GapSampling, GapEvery: 1, Seed: 2, Execution: execution.MiniBatch{Batch: 5}},
		{Lambda: 0.05, Step: Away, Sampling: run.Permutation, Averaging: true, GapEvery: 1, Seed: 3, Execution: execution.MiniBatch{Batch: 12}},
		{Lambda: 0.02, Step: Pairwise, Sampling: run.GapSampling, Cache: cacheRule{Enabled: true}, GapEvery: 1, Seed: 4, Execution: execution.MiniBatch{Batch: 3}},
		{Lambda: 0.05, GapEvery: 2, Seed: 1, Execution: execution.MiniBatch{Batch: 4, Lookahead: 1}},
		{Lambda: 0.02, Step: Pairwise, Sampling: run.GapSampling, Cache: cacheRule{Enabled: true}, GapEvery: 1, Seed: 4, Execution: execution.MiniBatch{Batch: 3, Lookahead: 2}},
		{Lambda: 0.05, Step: Away, Sampling: run.Permutation, Averaging: true, GapEvery: 1, Seed: 3, Execution: execution.MiniBatch{Batch: 6, Lookahead: 1}},
		{Lambda: 0.05, Sampling: run.Permutation, MultiPlane: mpConfig{Enabled: true, Rule: ruleCost, CostRatio: 40}, GapEvery: 1, Seed: 5, Execution: execution.MiniBatch{Batch: 3}},
		{Lambda: 0.05, Step: Pairwise, Sampling: run.GapSampling, Cache: cacheRule{Enabled: true}, GapEvery: 1, Seed: 7, Execution: execution.MiniBatch{Batch: 1, Lookahead: 3}},
		{Lambda: 0.05, Step: Pairwise, Sampling: run.Permutation, MultiPlane: mpConfig{Enabled: true, Rule: ruleCost, CostRatio: 40}, GapEvery: 1, Seed: 6, Execution: execution.MiniBatch{Batch: 4, Lookahead: 3}},
	} {
		var first *Solver
		for _, workers := range []int{1, 2, 5, 5} {
			s := mustNew(t, p, cfg, run.WithWorkers(workers))
			mustRun(t, s, run.Stop{Passes: 9})
			if first == nil {
				first = s
				continue
			}
			requireSameRun(t, first, s)
		}
	}
}

// TestMiniBatchDiffersFromBCFW guards the tests above against a mini-batch
// that silently runs BCFW: with tau > 1 the corners of a batch are computed
// at one w, and the trajectory changes.
func TestMiniBatchDiffersFromBCFW(t *testing.T) {
	p := smallChain(6)
	a := mustNew(t, p, config{Lambda: 0.05, Seed: 1})
	b := mustNew(t, p, config{Lambda: 0.05, Seed: 1, Execution: execution.MiniBatch{Batch: 4}})
	mustRun(t, a, run.Stop{Passes: 3})
	mustRun(t, b, run.Stop{Passes: 3})
	if a.Steps() != b.Steps() || a.OracleCalls() != b.OracleCalls() {
		t.Fatalf("steps %d vs %d, calls %d vs %d", a.Steps(), b.Steps(), a.OracleCalls(), b.OracleCalls())
	}
	same := true
	for j, v := range a.Weights() {
		same = same && v == b.Weights()[j]
	}
	if same {
		t.Fatal("a mini-batch of 4 followed BCFW's trajectory")
	}
}

// TestMiniBatchRefusals: the combinations a mini-batch refuses, each with
// an error that names it.
func TestMiniBatchRefusals(t *testing.T) {
	p := smallChain(7)
	for _, c := range []struct {
		cfg  config
		want string
	}{
		{config{Lambda: 0.1, Execution: execution.MiniBatch{Batch: -1}}, "batch must be >= 1"},
		{config{Lambda: 0.1, Algorithm: run.FW, Execution: execution.MiniBatch{Batch: 2}}, "fw cannot be run by the mini-batch execution"},
		{config{Lambda: 0.1, Algorithm: run.SSG, Execution: execution.Simulated{Workers: 1}}, "ssg cannot be run by the simulated execution"},
		{config{Lambda: 0.1, Sampling: run.Permutation, MultiPlane: mpConfig{Enabled: true, Rule: ruleCost, CostRatio: 10}, Execution: execution.Simulated{Workers: 2}}, "mp-bcfw cannot be run by the simulated execution"},
		{config{Lambda: 0.1, Sampling: run.Permutation, MultiPlane: mpConfig{Enabled: true, Rule: ruleCost, CostRatio: 10}, Execution: execution.Async{}}, "mp-bcfw cannot be run by the async execution"},
		{config{Lambda: 0.1, Execution: execution.MiniBatch{Batch: 2, Lookahead: -1}}, "lookahead must be >= 0"},
		{config{Lambda: 0.1, Execution: execution.MiniBatch{Batch: 2, Lookahead: 12}}, "lookahead of 12 batches needs more than 12 blocks"},
		{config{Lambda: 0.1, Execution: execution.Simulated{}}, "workers must be >= 1"},
	} {
		if _, err := newSolver(p, c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one saying %q", c.cfg, err, c.want)
		}
	}
	rel, err := oracles.WithAccuracy(p, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newSolver(rel, config{Lambda: 0.1, Execution: execution.MiniBatch{Batch: 2}}); err == nil || !strings.Contains(err.Error(), "relative") {
		t.Errorf("relative oracle: error %v", err)
	}
	if _, err := newSolver(rel, config{Lambda: 0.1, Execution: execution.MiniBatch{Batch: 1}}); err != nil {
		t.Errorf("a batch of one refused a relative oracle: %v", err)
	}
}

// TestMiniBatchFork: a fork that changes the batch size drops the batch
// under way and continues with certified gaps.
func TestMiniBatchFork(t *testing.T) {
	p := smallChain(8)
	s := mustNew(t, p, config{Lambda: 0.05, GapEvery: 1, Seed: 2, Execution: execution.MiniBatch{Batch: 5}})
	mustRun(t, s, run.Stop{Passes: 1.25}) // mid-batch: 15 steps of batches of 5 over 12 blocks
	for _, batch := range []int{5, 1, 3} {
		f, err := s.fork(config{Lambda: 0.05, GapEvery: 1, Seed: 2, Execution: execution.MiniBatch{Batch: batch}})
		if err != nil {
			t.Fatal(err)
		}
		mustRun(t, f, run.Stop{Passes: 4})
		checkConsistency(t, f)
		if last, _ := f.Last(); math.Abs(last.Primal-last.Dual-last.Gap) > 1e-9 {
			t.Fatalf("batch %d: gap %v, primal - dual %v", batch, last.Gap, last.Primal-last.Dual)
		}
	}
}
