package solver

import (
	"fmt"
	"testing"

	"github.com/fwstruct/fwstruct/oracles/oraclestest"
)

// BenchmarkParallelStep measures a block step of the executions of BCFW
// (sequential, mini-batch of tau, the delay simulator at K workers, the
// asynchronous execution) with 1 and 2 workers on a synthetic chain (no
// data needed), and on OCR-large when the data is there: the time per
// block step, whose ratio between 1 and 2 workers is the parallel speedup
// of the step on this machine (read it under a quiet load only).
func BenchmarkParallelStep(b *testing.B) {
	syn := oraclestest.Chain(oraclestest.ChainConfig{N: 1000, MaxLen: 14, Labels: 26, Features: 128, Density: 0.22, Seed: 1})
	for _, e := range []struct {
		name string
		cfg  Config
	}{
		{"bcfw", Config{}},
		{"batch=4", Config{Batch: 4}},
		{"batch=4-pairwise-gap-cache", Config{Batch: 4, Step: Pairwise, Sampling: 2, Cache: Cache{Enabled: true}}},
		{"simulate=8", Config{SimulateWorkers: 8}},
		{"async", Config{Async: true}},
	} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("synthetic/%s/workers=%d", e.name, workers), func(b *testing.B) {
				cfg := e.cfg
				cfg.Lambda, cfg.GapEvery = 1e-3, 1e9
				benchSteps(b, syn, cfg, WithWorkers(workers))
			})
		}
	}
}
