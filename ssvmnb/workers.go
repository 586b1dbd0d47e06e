package ssvmnb

import (
	"fmt"
	"runtime"
)

// applyWorkers gives the solver Trainer.Workers goroutines (zero: one per
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
	if err := t.s.SetWorkers(t.Workers); err != nil {
		return fmt.Errorf("ssvmnb: %s: %w", t.Name, err)
	}
	t.applied = t.Workers
	return nil
}
