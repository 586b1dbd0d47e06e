package solver_test

import (
	"context"
	"fmt"

	"github.com/fwstruct/fwstruct/oracles/oraclestest"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
)

// Train a Crammer-Singer multiclass SVM as liblinear -s 4 does: exact block
// steps (each example's dual over its classes solved exactly) with
// shrinking (settled examples skipped until the next gap pass), to a
// certified duality gap. The gap passes visit every example, so the
// certificate covers the skipped ones.
func ExampleExact() {
	p := oraclestest.Multiclass(300, 5, 8, 1)
	m := solver.Exact{Lambda: 0.01, Sampling: run.Permutation, Shrinking: true, GapEvery: 20}
	s, err := m.New(p)
	if err != nil {
		panic(err)
	}
	res, err := s.Run(context.Background(), run.Stop{Gap: 1e-8, EarlyCheck: 1, Passes: 10000})
	if err != nil {
		panic(err)
	}
	fmt.Println("status:", res.Status)
	fmt.Println("certified gap below 1e-8:", res.Last.Gap <= 1e-8)
	// Output:
	// status: converged
	// certified gap below 1e-8: true
}
