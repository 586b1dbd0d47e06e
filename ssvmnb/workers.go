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
// "sequential", "mini-batch of 4", "asynchronous" or "simulated, K = 8".
// The soft and kernelized solvers are sequential (their workers
// parallelize the evaluations).
func execution(cfg any) string {
	c, ok := cfg.(solver.Config)
	switch {
	case !ok:
		return "sequential"
	case c.Async:
		return "asynchronous"
	case c.Batch > 1:
		return fmt.Sprintf("mini-batch of %d", c.Batch)
	case c.SimulateWorkers > 1:
		return fmt.Sprintf("simulated, K = %d", c.SimulateWorkers)
	}
	return "sequential"
}

// simulatedWorkers returns the K of a run of the delay simulator
// (solver.Config.SimulateWorkers; a sequential run is K = 1), and false
// for the other executions (a mini-batch, asynchronous).
func simulatedWorkers(cfg any) (int, bool) {
	c, ok := cfg.(solver.Config)
	switch {
	case !ok:
		return 1, true
	case c.Async || c.Batch > 1:
		return 0, false
	}
	return max(1, c.SimulateWorkers), true
}

// sansExecution returns cfg without what selects its execution (Batch,
// Async, SimulateWorkers), so that runs of one configuration under
// several executions compare equal.
func sansExecution(cfg any) any {
	if c, ok := cfg.(solver.Config); ok {
		c.Batch, c.Async, c.SimulateWorkers = 0, false, 0
		return c
	}
	return cfg
}
