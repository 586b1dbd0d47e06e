package maxflow_test

import (
	"fmt"

	"github.com/fwstruct/fwstruct/inference/maxflow"
)

// Minimize a binary energy over three pixels in a row: the outer pixels
// prefer labels 0 and 1 strongly, the middle one weakly prefers 1, and
// neighbours pay 2 for disagreeing. Label 1 is the Sink side.
func Example() {
	// theta[i] = {cost of label 0, cost of label 1}
	theta := [][2]float64{{0, 5}, {1, 0}, {4, 0}}
	g := maxflow.New(len(theta), 2)
	for i, t := range theta {
		g.AddTerminal(i, t[1], t[0]) // label 1 (Sink side) pays the source capacity
	}
	g.AddEdge(0, 1, 2, 2)
	g.AddEdge(1, 2, 2, 2)
	fmt.Println("minimum energy:", g.MaxFlow())
	for i := range theta {
		fmt.Printf("pixel %d: %v\n", i, g.Segment(i))
	}
	// Output:
	// minimum energy: 2
	// pixel 0: source
	// pixel 1: sink
	// pixel 2: sink
}
