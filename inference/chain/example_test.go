package chain_test

import (
	"fmt"

	"github.com/fwstruct/fwstruct/inference/chain"
)

// A chain of three positions with two states: position 1 prefers state 1,
// but the transitions reward staying in the same state, and the labeling
// 0 0 0 wins.
func ExampleViterbi() {
	const K = 2
	unary := []float64{
		1, 0, // position 0
		0, 0.5, // position 1
		1, 0, // position 2
	}
	trans := []float64{
		1, 0, // from state 0
		0, 1, // from state 1
	}
	y, best := chain.Viterbi(unary, trans, K, make([]float64, len(unary)), nil)
	fmt.Println(y, best)
	// Output: [0 0 0] 4
}
