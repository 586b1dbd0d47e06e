package oracles_test

import (
	"fmt"

	"github.com/fwstruct/fwstruct/oracles"
)

// A word-alignment problem with one sentence pair, "the house" / "la
// maison", and two features per candidate link: an exact-position feature
// (1 when j = k) and a bias. The sure links are the diagonal; the oracle
// and the prediction are maximum-weight matchings.
func ExampleNewMatching() {
	x := oracles.MatchingExample{Rows: 2, Cols: 2, Start: []int32{0}}
	for j := 0; j < 2; j++ {
		for k := 0; k < 2; k++ {
			if j == k {
				x.Index = append(x.Index, 0)
				x.Value = append(x.Value, 1)
			}
			x.Index = append(x.Index, 1) // bias
			x.Value = append(x.Value, 1)
			x.Start = append(x.Start, int32(len(x.Index)))
		}
	}
	x.Sure = [][2]int32{{0, 0}, {1, 1}}
	p, err := oracles.NewMatching(2, []oracles.MatchingExample{x}, oracles.MatchingCosts{})
	if err != nil {
		panic(err)
	}
	w := []float64{2, -1} // diagonal links score 1, the others -1
	fmt.Println("prediction:", p.Predict(0, w, nil))
	y, h := p.MaxOracle(0, w, nil)
	fmt.Println("most violating labeling:", y, "H =", h)
	fmt.Println("its loss:", p.Loss(0, y))
	for _, m := range p.Metrics([][]int32{{0, -1}}) {
		fmt.Printf("%s of [0 -1]: %.3f\n", m.Name, m.Value)
	}
	// Output:
	// prediction: [0 1]
	// most violating labeling: [-1 -1] H = 4
	// its loss: 6
	// AER of [0 -1]: 0.333
	// precision of [0 -1]: 1.000
	// recall of [0 -1]: 0.500
}
