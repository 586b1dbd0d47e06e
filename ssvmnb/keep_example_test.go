package ssvmnb_test

import (
	"fmt"
	"os"

	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/ssvmnb"
	"github.com/fwstruct/fwstruct/ssvmnb/papers"
	"github.com/fwstruct/fwstruct/viz"
)

// A comparison too long for one cell: each run is measured in a cell of
// its own and kept; the last cell draws them all, each method in its
// notebook-wide color.
func ExampleKeepRun() {
	dir, _ := os.MkdirTemp("", "session")
	defer os.RemoveAll(dir)
	ssvmnb.SessionDir = dir // in a notebook: .fwstruct-session beside it

	// Cells 1 and 2: measure and keep (here, traces made up by hand).
	for k, name := range []string{"LP-hard BCFW", "soft rho=1"} {
		p := run.Blank()
		p.Pass, p.Seconds, p.Primal = 1, float64(k+1), 0.5
		ssvmnb.Check(ssvmnb.KeepRun(viz.Run{Name: name, Trace: []run.Point{p}}))
	}

	// Cell 3: draw them.
	var runs []viz.Run
	for _, name := range []string{"soft rho=1", "LP-hard BCFW"} {
		runs = append(runs, ssvmnb.Must(ssvmnb.KeptRun(name)))
	}
	f := ssvmnb.Restyle(papers.HardObjectives(viz.Seconds, 0, runs...), "soft rho=1", "LP-hard BCFW")
	fmt.Println(f.Series[1].Name, f.Series[1].Color == ssvmnb.StyleOf("LP-hard BCFW").Color)
	// Output:
	// LP-hard BCFW true
}
