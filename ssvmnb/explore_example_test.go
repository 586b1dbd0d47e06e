package ssvmnb_test

import (
	"fmt"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/ssvmnb"
)

// An exploration trains a run while its knobs change: in a notebook its
// widgets send the changes (a slider dragged, a button pressed), here a
// script lowers lambda after 2 passes and forks the run after 3. Each is
// applied at the run's next block step through the trainer's own calls:
// the lambda change is a mark of the trace, the fork a run of its own with
// the state of the run at that pass.
func ExampleTrainer_Explore() {
	train, test, _ := datasets.SyntheticOCR(datasets.SyntheticConfig{TrainWords: 60, TestWords: 40, Seed: 5})
	data := ssvmnb.NewData("synthetic", train, test)
	t := ssvmnb.Must(ssvmnb.New("bcfw", data, solver.BCFW{Lambda: 0.01, GapEvery: 1, Seed: 1}))
	x := ssvmnb.Must(t.Explore(ssvmnb.Exploration{Passes: 5, Script: []ssvmnb.Scripted{
		{After: 2, Event: ssvmnb.SetLambda{Lambda: 0.002}},
		{After: 3, Event: ssvmnb.ForkAs{}},
	}}))
	for _, a := range x.Applied() {
		fmt.Printf("pass %.4g: %s: marks %q, fork %q\n", a.Pass, a.Event, a.Marks, a.Fork)
	}
	f := x.Forks()[0]
	fmt.Printf("%s: pass %.4g, lambda %g; %s: pass %.4g, lambda %g\n", t.Name, t.Passes(), t.Lambda(), f.Name, f.Passes(), f.Lambda())
	// Output:
	// pass 2: lambda = 0.002: marks ["lambda 0.01 -> 0.002"], fork ""
	// pass 3: fork: marks [], fork "bcfw fork 1"
	// bcfw: pass 5, lambda 0.002; bcfw fork 1: pass 3, lambda 0.002
}
