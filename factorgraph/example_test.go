package factorgraph_test

import (
	"fmt"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/oracles"
)

// A multi-label model of three labels over two features, and its exact,
// LP-relaxed and rounded views.
func Example() {
	layout := factorgraph.MultiLabel{Labels: 3, Features: 2}
	x := []oracles.SparseVec{
		{Idx: []int32{0, 1}, Val: []float64{1, -1}},
		{Idx: []int32{1}, Val: []float64{2}},
	}
	y := [][]int32{{1, 0, 1}, {0, 1, 1}}
	m, err := factorgraph.NewMultiLabel(layout, x, y)
	if err != nil {
		panic(err)
	}
	fmt.Println("d =", m.Dim(), "nodes =", m.Graph(0).NumNodes())

	// A weight vector with a repulsive pair (labels 0 and 2 exclude each
	// other) and attractive unaries.
	w := make([]float64, m.Dim())
	w[layout.UnaryIndex(0, 0)], w[layout.UnaryIndex(2, 0)] = 1, 1
	w[layout.PairIndex(0, 2)] = -3

	exact, _ := factorgraph.NewExact(m, 0)
	ye, h := exact.MaxOracle(0, w, nil)
	fmt.Printf("exact: y = %v, H = %.3f\n", ye, h)

	relaxed, _ := factorgraph.NewRelaxed(m, 2)
	mu, h, err := relaxed.MaxOracleErr(0, w, nil)
	fmt.Printf("LP:    2*mu = %v, H = %.3f, err = %v\n", mu[:6], h, err)

	rounded, _ := factorgraph.NewRounded(m)
	fmt.Println("rounded prediction:", rounded.Predict(0, w, nil))
	fmt.Println(exact.Metrics([][]int32{exact.Predict(0, w, nil), exact.Predict(1, w, nil)}))
	// Output:
	// d = 9 nodes = 6
	// exact: y = [1 1 0], H = 2.667
	// LP:    2*mu = [0 2 0 2 2 0], H = 2.667, err = <nil>
	// rounded prediction: [1 0 0]
	// [{hamming_loss 0.5} {example_f1 0.3333333333333333} {subset_accuracy 0}]
}
