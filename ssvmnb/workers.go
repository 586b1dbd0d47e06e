package ssvmnb

import (
	"fmt"
	"runtime"

	"github.com/fwstruct/fwstruct/solver"
)

// applyWorkers gives the engine Trainer.Workers goroutines (zero: one per
// CPU, written back to the field) when it does not run with them yet.
func (t *Trainer) applyWorkers() error {
	if t.Workers < 0 {
		return fmt.Errorf("ssvmnb: %s: Workers must be >= 0 (0: one per CPU), got %d", t.Name, t.Workers)
	}
	if t.Workers == 0 {
		t.Workers = runtime.GOMAXPROCS(0)
	}
	if t.Workers == t.applied {
		return nil
	}
	if err := t.eng.SetWorkers(t.Workers); err != nil {
		return fmt.Errorf("ssvmnb: %s: %w", t.Name, err)
	}
	t.applied = t.Workers
	return nil
}

// execution says how a configuration executes its block steps (Wang et al.
// 2016; see the package documentation of solver, "Every core"):
// "sequential", "mini-batch of 4", "mini-batch of 2, lookahead 1",
// "asynchronous", "simulated, K = 8" or, replaying a distribution of
// delays, "simulated, K = 2, delays of mean 1.3". The soft and kernelized
// solvers are sequential (their workers parallelize the evaluations).
func execution(cfg any) string {
	c, ok := cfg.(solver.Config)
	switch {
	case !ok:
		return "sequential"
	case c.Async:
		return "asynchronous"
	case c.Batch > 1 && c.Lookahead > 0:
		return fmt.Sprintf("mini-batch of %d, lookahead %d", c.Batch, c.Lookahead)
	case c.Batch > 1:
		return fmt.Sprintf("mini-batch of %d", c.Batch)
	case c.SimulateWorkers > 0 && c.SimulateDelays != nil:
		return fmt.Sprintf("simulated, K = %d, delays of mean %.3g", c.SimulateWorkers, c.SimulateDelays.Mean())
	case c.SimulateWorkers > 1:
		return fmt.Sprintf("simulated, K = %d", c.SimulateWorkers)
	}
	return "sequential"
}

// simulatedWorkers returns the K of a run of the delay simulator with
// its first-in first-out delays, K-1 for every answer
// (solver.Config.SimulateWorkers; a sequential run is K = 1), and false
// for the other executions (a mini-batch, asynchronous, the simulator
// replaying a distribution of delays, whose staleness K alone does not
// say).
func simulatedWorkers(cfg any) (int, bool) {
	c, ok := cfg.(solver.Config)
	switch {
	case !ok:
		return 1, true
	case c.Async || c.Batch > 1 || c.SimulateDelays != nil:
		return 0, false
	}
	return max(1, c.SimulateWorkers), true
}

// sansExecution returns cfg without what selects its execution (Batch,
// Lookahead, Async, SimulateWorkers, SimulateDelays), so that runs of one
// configuration under several executions compare equal.
func sansExecution(cfg any) any {
	if c, ok := cfg.(solver.Config); ok {
		c.Batch, c.Lookahead, c.Async, c.SimulateWorkers, c.SimulateDelays = 0, 0, false, 0, nil
		return c
	}
	return cfg
}
