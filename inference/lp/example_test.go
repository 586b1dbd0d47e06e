package lp_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/fwstruct/fwstruct/inference/lp"
)

// Two programs sharing their constraints: phase I runs once, in New.
func Example() {
	// x0 + x1 + x2 = 1, x0 - x1 = 0, x >= 0.
	A := mat.NewDense(2, 3, []float64{
		1, 1, 1,
		1, -1, 0,
	})
	p, err := lp.New(A, []float64{1, 0})
	if err != nil {
		panic(err)
	}
	x := make([]float64, 3)
	var ws lp.Workspace
	for _, c := range [][]float64{{-1, -1, 0}, {0, 0, -1}} {
		res, err := p.Solve(c, x, &ws)
		fmt.Printf("min %v.x = %.2f at x = %.2f (%v)\n", c, res.Objective, x, err)
	}
	// Output:
	// min [-1 -1 0].x = -1.00 at x = [0.50 0.50 0.00] (<nil>)
	// min [0 0 -1].x = -1.00 at x = [0.00 0.00 1.00] (<nil>)
}
