package ssvmnb_test

import (
	"fmt"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/internal/gendata"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/soft"
	"github.com/fwstruct/fwstruct/ssvmnb"
)

// One trainer for every method: the method picks the solver (here BCFW and
// the soft-constraint solver on the same factor-graph data), and every run
// is driven, evaluated and forked alike; a change a method cannot make is
// an error saying why.
func ExampleNew() {
	train, _ := gendata.MultiLabel(30, 4, 3, 1)
	test, _ := gendata.MultiLabel(20, 4, 3, 2)
	tr, _ := factorgraph.NewExact(train, 0)
	te, _ := factorgraph.NewExact(test, 0)
	data := ssvmnb.NewData("multi-label", tr, te) // as ssvmnb.Load gives yeast or a MULAN file

	for _, m := range []run.Method{
		solver.BCFW{Lambda: 0.05, GapEvery: 5, Seed: 1},
		soft.BCFW{Lambda: 0.05, Rho: 1, GapEvery: 5, Seed: 1},
	} {
		t := ssvmnb.Must(ssvmnb.New(fmt.Sprintf("%T", m), data, m))
		ssvmnb.Must(t.Run(7))
		p := t.Current() // the exact evaluation the run ended with
		fmt.Printf("%s: pass %g, gap >= 0: %v, test loss measured: %v\n", t.Name, p.Pass, p.Gap >= 0, p.TestLoss == p.TestLoss)
		if err := t.SetLambda(0.01); err != nil { // both keep their dual variables
			fmt.Println(err)
		}
		fmt.Printf("%s: lambda %g, gap >= 0: %v\n", t.Name, t.Current().Lambda, t.Current().Gap >= 0)
		if m, ok := m.(soft.BCFW); ok {
			m.Sampling = run.Permutation // lambda and rho may change mid-run, the sampling may not
			if err := t.Change(m); err != nil {
				fmt.Println(err)
			}
		}
	}
	// Output:
	// solver.BCFW: pass 7, gap >= 0: true, test loss measured: true
	// solver.BCFW: lambda 0.01, gap >= 0: true
	// soft.BCFW: pass 7, gap >= 0: true, test loss measured: true
	// soft.BCFW: lambda 0.01, gap >= 0: true
	// ssvmnb: soft.BCFW: soft: fork: the soft solver cannot change its method mid-run but for Lambda and Rho ({"gap_every":5,"lambda":0.01,"method":"soft","rho":1,"sampling":"uniform","seed":1} to {"gap_every":5,"lambda":0.05,"method":"soft","rho":1,"sampling":"perm","seed":1}): start a new run
}
