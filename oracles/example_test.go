package oracles_test

import (
	"fmt"

	"github.com/fwstruct/fwstruct/oracles"
)

// A two-label chain over words of two positions with one feature each.
func ExampleNewChain() {
	x := func(v float64) oracles.SparseVec { return oracles.SparseVec{Idx: []int32{0}, Val: []float64{v}} }
	chain, err := oracles.NewChain(2, 1, []oracles.Sequence{
		{Features: []oracles.SparseVec{x(1), x(-1)}, Labels: []int32{1, 0}},
	})
	if err != nil {
		panic(err)
	}
	w := make([]float64, chain.Dim())
	w[chain.EmissionIndex(0, 1)] = 0.3 // feature 0 votes for label 1
	fmt.Println("d =", chain.Dim())
	fmt.Println("prediction:", chain.Predict(0, w, nil))
	y, h := chain.MaxOracle(0, w, nil)
	fmt.Printf("most violating labeling %v with H = %.2f\n", y, h)
	fmt.Println("loss of [1 1]:", chain.Loss(0, []int32{1, 1}))
	// Output:
	// d = 12
	// prediction: [1 0]
	// most violating labeling [0 1] with H = 0.40
	// loss of [1 1]: 0.5
}
