package runtest_test

import (
	"fmt"
	"io"

	"github.com/fwstruct/fwstruct/oracles/oraclestest"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/run/runtest"
)

// Check runs the whole contract and returns the first violation: a solver
// family's tests call Conformance (one subtest per check) with the same
// Family for each of its variants.
func ExampleCheck() {
	p := oraclestest.Chain(oraclestest.ChainConfig{N: 8, MaxLen: 4, Labels: 3, Features: 4, Density: 0.7, Seed: 1})
	m := solver.BCFW{Lambda: 0.1, Step: solver.Pairwise, GapEvery: 2, Seed: 1}
	err := runtest.Check(runtest.Family{
		New:     func() (run.Solver, error) { return m.New(p) },
		Load:    func(r io.Reader) (run.Solver, error) { return run.Load(r, p) },
		Iterate: func(s run.Solver) []float64 { return s.Weights() },
	})
	fmt.Println("conforms:", err == nil)
	// Output: conforms: true
}
