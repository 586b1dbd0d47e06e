package matching_test

import (
	"fmt"

	"github.com/fwstruct/fwstruct/inference/matching"
)

// Align three English words with two French words: each pair has a score,
// each word is used at most once, and a word may stay unaligned.
func ExampleSolver_MaxWeight() {
	english := []string{"the", "house", "."}
	french := []string{"maison", "."}
	w := []float64{ // rows: English, columns: French
		0.4, -1, // "the" would rather be left out than take "maison" from "house"
		2.5, -2,
		-3, 1.5,
	}
	var s matching.Solver
	m, total, err := s.MaxWeight(len(english), len(french), w, nil)
	if err != nil {
		panic(err)
	}
	for j, k := range m {
		if k < 0 {
			fmt.Printf("%-5s -\n", english[j])
			continue
		}
		fmt.Printf("%-5s %s\n", english[j], french[k])
	}
	fmt.Println("total", total)
	// Output:
	// the   -
	// house maison
	// .     .
	// total 4
}
