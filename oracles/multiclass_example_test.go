package oracles_test

import (
	"fmt"
	"log"

	"github.com/fwstruct/fwstruct/oracles"
)

// The weights of one class are read through WeightIndex; lambda converts to
// liblinear's C as 1/(lambda n).
func ExampleMulticlass_WeightIndex() {
	x := []oracles.SparseVec{{Idx: []int32{0, 1}, Val: []float64{1, 2}}, {Idx: []int32{1}, Val: []float64{1}}}
	m, err := oracles.NewMulticlass(3, 2, x, []int32{0, 2})
	if err != nil {
		log.Fatal(err)
	}
	w := make([]float64, m.Dim())
	for k := range w {
		w[k] = float64(k)
	}
	for k := 0; k < m.NumClasses(); k++ {
		wk := []float64{w[m.WeightIndex(0, k)], w[m.WeightIndex(1, k)]}
		fmt.Printf("w_%d = %v\n", k, wk)
	}
	lambda := 0.01
	fmt.Printf("lambda %v on n = %d examples is C = %v\n", lambda, m.Len(), 1/(lambda*float64(m.Len())))
	// Output:
	// w_0 = [0 3]
	// w_1 = [1 4]
	// w_2 = [2 5]
	// lambda 0.01 on n = 2 examples is C = 50
}
