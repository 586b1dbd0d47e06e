package ssvmnb_test

import (
	"fmt"
	"os"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/ssvmnb"
)

// A notebook in four cells: each cell is a program of its own in GoNB, and
// the session carries the runs from one to the next.
func Example() {
	dir, _ := os.MkdirTemp("", "session")
	defer os.RemoveAll(dir)
	ssvmnb.SessionDir = dir // in a notebook: .fwstruct-session beside it

	// Cell 1: start from scratch, so that Run All gives the same results.
	ssvmnb.Check(ssvmnb.ForgetAll())

	// Cell 2: data by name, a run that lives in the session.
	data := ssvmnb.Must(ssvmnb.Load("synthetic", datasets.Options{Synthetic: datasets.SyntheticConfig{TrainWords: 50, Seed: 1}}))
	ssvmnb.Must(ssvmnb.Must(ssvmnb.Session("bcfw", data, solver.BCFW{Lambda: 0.01, GapEvery: 5})).Run(10))

	// Cell 3: one line continues it.
	t := ssvmnb.Must(ssvmnb.Resume("bcfw"))
	ssvmnb.Must(t.Run(5))
	fmt.Printf("bcfw at pass %g\n", t.Current().Pass)

	// Cell 4: a variant warm-started from it, the switch in its trace (a
	// method without a lambda continues at the run's).
	g := ssvmnb.Must(t.Fork("bcfw, gap sampling", solver.BCFW{GapEvery: 5, Sampling: run.GapSampling}))
	tr := g.Trace()
	fmt.Println(tr[len(tr)-1].Event)
	ssvmnb.Must(g.Run(5))
	fmt.Printf("fork at pass %g, original at pass %g\n", g.Passes(), ssvmnb.Must(ssvmnb.Resume("bcfw")).Passes())

	// A cell asking for bcfw with another lambda gets an error, not the run.
	_, err := ssvmnb.Session("bcfw", data, solver.BCFW{Lambda: 0.1, GapEvery: 5})
	fmt.Println(err != nil)
	// Output:
	// bcfw at pass 15
	// fork: sampling uniform -> gap
	// fork at pass 20, original at pass 15
	// true
}
