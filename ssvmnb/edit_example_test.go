package ssvmnb_test

import (
	"fmt"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/ssvmnb"
)

// A fork that changes one knob of a run and keeps the others: Edit starts
// from the run's method with all its settings.
func ExampleEdit() {
	data := ssvmnb.Must(ssvmnb.Load("synthetic", datasets.Options{Synthetic: datasets.SyntheticConfig{TrainWords: 50, Seed: 1}}))
	t := ssvmnb.Must(ssvmnb.New("bcfw", data, solver.BCFW{Lambda: 0.01, GapEvery: 5, Average: run.WeightedAverage}))
	ssvmnb.Must(t.Run(5))

	gap := ssvmnb.Must(ssvmnb.Edit(t, func(m *solver.BCFW) { m.Sampling = run.GapSampling }))
	g := ssvmnb.Must(t.Fork("bcfw, gap sampling", gap))
	fmt.Println(g.Method().(solver.BCFW).Average == run.WeightedAverage, g.Method().(solver.BCFW).Sampling == run.GapSampling)

	_, err := ssvmnb.Edit(t, func(m *solver.MultiPlane) { m.N = 10 })
	fmt.Println(err)
	// Output:
	// true true
	// ssvmnb: bcfw: its method is bcfw (solver.BCFW), not solver.MultiPlane
}
