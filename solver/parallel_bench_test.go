package solver

import (
	"fmt"
	"testing"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/internal/gendata"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
	"github.com/fwstruct/fwstruct/solver/execution"
	"github.com/fwstruct/fwstruct/solver/run"
)

// BenchmarkParallelStep measures a block step of the executions of BCFW
// (sequential, mini-batch of tau, with a lookahead, the delay simulator at
// K workers, the asynchronous execution, mini-batches of multi-plane BCFW)
// with 1 and 2 workers on a synthetic chain and LP-hard on a generated
// multi-label model (no data needed), and on HorseSeg-small (graph cut,
// the recommended preset, its box) when the data is there: the time per block step, whose ratio between
// 1 and 2 workers is the parallel speedup of the steps on this machine
// (read it under a quiet load only). Run it with -benchtime 20000x or more
// so that the time per step averages over whole batches.
func BenchmarkParallelStep(b *testing.B) {
	syn := oraclestest.Chain(oraclestest.ChainConfig{N: 1000, MaxLen: 14, Labels: 26, Features: 128, Density: 0.22, Seed: 1})
	cases := []struct {
		name string
		cfg  config
	}{
		{"bcfw", config{}},
		{"batch=4", config{Execution: execution.MiniBatch{Batch: 4}}},
		{"batch=4-lookahead=1", config{Execution: execution.MiniBatch{Batch: 4, Lookahead: 1}}},
		{"batch=4-pairwise-gap-cache", config{Step: Pairwise, Sampling: 2, Cache: cacheRule{Enabled: true}, Execution: execution.MiniBatch{Batch: 4}}},
		{"batch=4-lookahead=1-pairwise-gap-cache", config{Step: Pairwise, Sampling: 2, Cache: cacheRule{Enabled: true}, Execution: execution.MiniBatch{Batch: 4, Lookahead: 1}}},
		{"mp-batch=4-lookahead=1", config{Sampling: run.Permutation, MultiPlane: mpConfig{Enabled: true, Rule: ruleCost, CostRatio: 20}, Execution: execution.MiniBatch{Batch: 4, Lookahead: 1}}},
		{"simulate=8", config{Execution: execution.Simulated{Workers: 8}}},
		{"async", config{Execution: execution.Async{}}},
	}
	for _, e := range cases {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("synthetic/%s/workers=%d", e.name, workers), func(b *testing.B) {
				cfg := e.cfg
				cfg.Lambda, cfg.GapEvery = 1e-3, 1e9
				benchSteps(b, syn, cfg, run.WithWorkers(workers))
			})
		}
	}
	// LP-hard on a generated multi-label model: the LP over the local
	// polytope is nearly all of a step.
	m, err := gendata.Model(400, []int{3, 3, 2, 2, 3, 2}, [][]int{{0, 1}, {1, 2}, {0, 2}, {2, 3}, {3, 4}, {4, 5}, {1, 5}}, 8, 21)
	if err != nil {
		b.Fatal(err)
	}
	rel, err := factorgraph.NewRelaxed(m, 2)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range []struct {
		name string
		cfg  config
	}{
		{"recommended", recommended()},
		{"recommended-batch=2-lookahead=2", withBatch(recommended(), 2, 2)},
	} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("lp-hard-generated/%s/workers=%d", e.name, workers), func(b *testing.B) {
				cfg := e.cfg
				cfg.Lambda, cfg.GapEvery = 0.01, 1
				benchSteps(b, rel, cfg, run.WithWorkers(workers))
			})
		}
	}
	if testing.Short() {
		return
	}
	var horses oracles.Problem
	for _, e := range []struct {
		name string
		cfg  config
	}{
		{"recommended", recommended()},
		{"recommended-batch=2", withBatch(recommended(), 2, 0)},
		{"recommended-batch=2-lookahead=1", withBatch(recommended(), 2, 1)},
		{"recommended-batch=2-lookahead=2", withBatch(recommended(), 2, 2)},
		{"recommended-batch=4-lookahead=1", withBatch(recommended(), 4, 1)},
	} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("horses-small/%s/workers=%d", e.name, workers), func(b *testing.B) {
				if horses == nil {
					_, horses = loadReal(b)
				}
				cfg := e.cfg
				cfg.Lambda, cfg.GapEvery = 1e-4, 1 // gap passes in the 3 warm-up passes: the cache's global gap
				benchSteps(b, horses, cfg, run.WithWorkers(workers))
			})
		}
	}
}

// withBatch returns cfg as a mini-batch of tau with a lookahead.
func withBatch(cfg config, tau, lookahead int) config {
	cfg.Execution = execution.MiniBatch{Batch: tau, Lookahead: lookahead}
	return cfg
}
