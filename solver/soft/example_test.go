package soft_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/soft"
)

// Soft-constraint BCFW on a small multi-label model: a few passes, the
// soft gap certifying g_rho, the hard objective of eq. 2 below it, and
// the test metrics of LP plus rounding.
func Example() {
	rng := rand.New(rand.NewPCG(1, 2))
	gen := func(n int) *factorgraph.Model {
		x := make([]oracles.SparseVec, n)
		y := make([][]int32, n)
		for m := range x {
			y[m] = make([]int32, 4)
			for f := 0; f < 3; f++ {
				x[m].Append(int32(f), rng.NormFloat64())
			}
			for i := range y[m] {
				if x[m].Val[i%3]+0.5*rng.NormFloat64() > 0 {
					y[m][i] = 1
				}
			}
		}
		m, err := factorgraph.NewMultiLabel(factorgraph.MultiLabel{Labels: 4, Features: 3, Bias: true}, x, y)
		if err != nil {
			panic(err)
		}
		return m
	}
	// The solver takes any view of a factor-graph model (factorgraph.Exact,
	// Relaxed, Rounded); it predicts the test set by LP + rounding.
	train, err := factorgraph.NewRounded(gen(40))
	if err != nil {
		panic(err)
	}
	rounded, err := factorgraph.NewRounded(gen(40))
	if err != nil {
		panic(err)
	}
	r, err := soft.BCFW{Lambda: 0.05, Rho: 1, GapEvery: 5}.New(train, run.WithTest(rounded))
	if err != nil {
		panic(err)
	}
	s := r.(*soft.Solver)
	fmt.Println("blocks per pass:", s.Blocks()) // 40 examples x (4 labels + 6 pairs)
	res, err := s.Run(context.Background(), run.Stop{Passes: 200, Gap: 0.01})
	if err != nil {
		panic(err)
	}
	p := res.Last
	fmt.Println("status:", res.Status)
	fmt.Println("certified:", p.Gap <= 0.01 && p.Primal-p.Dual == p.Gap)
	fmt.Println("hard g <= soft g_rho:", p.HardPrimal <= p.Primal)
	loss, metrics := soft.Metrics(rounded, s.Weights(), 1)
	fmt.Printf("test Hamming loss %.3f = %.3f\n", loss, metrics[0].Value)

	_, err = soft.BCFW{Lambda: 0.05, Rho: 0}.New(train)
	fmt.Println(err)
	// Output:
	// blocks per pass: 400
	// status: converged
	// certified: true
	// hard g <= soft g_rho: true
	// test Hamming loss 0.138 = 0.138
	// soft: rho must be a positive finite number (the penalty of the soft constraints, Meshi eq. 5), got 0
}
