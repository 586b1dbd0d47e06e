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

// A graph whose edges stay while their capacities change (one image
// segmented under many weight vectors): lay the edges out once in a
// Topology, then give a Graph each set of capacities in one pass.
func ExampleTopology() {
	topo, err := maxflow.NewTopology(3, [][2]int32{{0, 1}, {1, 2}})
	if err != nil {
		panic(err)
	}
	g := maxflow.New(0, 0)
	for _, smoothness := range []float64{0.5, 3} {
		if err := g.ResetTopology(topo, []float64{smoothness, smoothness}); err != nil {
			panic(err)
		}
		// theta(1) (source capacities) and theta(0) (sink capacities) of
		// the three pixels: the first prefers 0, the others 1.
		if err := g.AddTerminals([]float64{5, 0, 0}, []float64{0, 1, 1.5}); err != nil {
			panic(err)
		}
		fmt.Println(g.MaxFlow(), g.Segment(0), g.Segment(1), g.Segment(2))
	}
	// Output:
	// 0.5 source sink sink
	// 2.5 source source source
}
