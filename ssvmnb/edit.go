package ssvmnb

import (
	"fmt"

	"github.com/fwstruct/fwstruct/solver/run"
)

// Edit returns t's method with its current settings (Trainer.Method),
// changed by edit, for Fork and Change: a fork that changes one knob keeps
// every other, where a method literal keeps only the fields it sets. It is
// an error when t's method is not an M, naming both.
//
//	g := ssvmnb.Must(t.Fork("gap sampling", ssvmnb.Must(ssvmnb.Edit(t, func(m *solver.BCFW) { m.Sampling = run.GapSampling }))))
func Edit[M run.Method](t *Trainer, edit func(*M)) (run.Method, error) {
	if t == nil || t.s == nil {
		return nil, fmt.Errorf("ssvmnb: Edit needs a trainer")
	}
	m, ok := t.Method().(M)
	if !ok {
		var want M
		return nil, fmt.Errorf("ssvmnb: %s: its method is %s (%T), not %T", t.Name, t.Method().Name(), t.Method(), want)
	}
	if edit != nil {
		edit(&m)
	}
	return m, nil
}
