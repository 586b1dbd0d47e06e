package kernel_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/kernel"
	"github.com/fwstruct/fwstruct/solver/run"
)

// rings returns n points of the plane labeled by the ring, [0,1), [1,2) or
// [2,3), their distance to the origin falls in: no linear classifier
// separates them.
func rings(n int, seed uint64) *oracles.Multiclass {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := make([]oracles.SparseVec, n)
	y := make([]int32, n)
	for i := range x {
		r, a := 3*rng.Float64(), 2*math.Pi*rng.Float64()
		x[i].Append(0, r*math.Cos(a))
		x[i].Append(1, r*math.Sin(a))
		y[i] = int32(r)
	}
	m, _ := oracles.NewMulticlass(3, 2, x, y)
	return m
}

// Kernelized BCFW with an RBF kernel: the duality gap certifies the run,
// and the model predicts by kernel expansion over its support vectors.
func Example() {
	train, test := rings(300, 1), rings(300, 2)
	r, err := kernel.BCFW{Lambda: 1e-3, Kernel: kernel.Kernel{Kind: kernel.RBF, Gamma: 2}, CacheBytes: 64 << 20}.New(train, run.WithTest(test))
	if err != nil {
		fmt.Println(err)
		return
	}
	s := r.(*kernel.Solver)
	res, err := s.Run(context.Background(), run.Stop{Gap: 0.01, Passes: 500})
	if err != nil {
		fmt.Println(err)
		return
	}
	m := s.Model()
	loss, _ := m.MeanLoss(test)
	fmt.Printf("%v: certified gap %.4f, %d support vectors of %d examples\n", res.Status, res.Last.Gap, len(m.SV), train.Len())
	fmt.Printf("test error %.3f (trace %.3f)\n", loss, res.Last.TestLoss)
	// Output:
	// converged: certified gap 0.0052, 89 support vectors of 300 examples
	// test error 0.033 (trace 0.033)
}

// Exact block steps with shrinking, as libsvm's decomposition methods do
// for binary problems: each example's dual over its classes is solved
// exactly, examples found settled are skipped until the next gap pass, and
// kernel rows of the active examples are cached as float32.
func ExampleExact() {
	train := rings(300, 1)
	m := kernel.Exact{Lambda: 0.001, Kernel: kernel.Kernel{Kind: kernel.RBF, Gamma: 2},
		Shrinking: true, Sampling: run.Permutation, GapEvery: 10, CacheBytes: 1 << 20, CacheFloat32: true}
	s, err := m.New(train)
	if err != nil {
		panic(err)
	}
	res, err := s.Run(context.Background(), run.Stop{Gap: 1e-4, EarlyCheck: 1, Passes: 1000})
	if err != nil {
		panic(err)
	}
	fmt.Println("status:", res.Status)
	fmt.Println("certified gap below 1e-4:", res.Last.Gap <= 1e-4)
	// Output:
	// status: converged
	// certified gap below 1e-4: true
}

// The steps run on several workers (their kernel rows computed ahead, in
// parallel) and the run is the sequential one, bit for bit.
func ExampleBCFW_workers() {
	train := rings(300, 1)
	m := kernel.BCFW{Lambda: 1e-3, Kernel: kernel.Kernel{Kind: kernel.RBF, Gamma: 2}, Sampling: run.Permutation, GapEvery: 5}
	var gaps []float64
	for _, workers := range []int{1, 2} {
		s, err := m.New(train, run.WithWorkers(workers))
		if err != nil {
			panic(err)
		}
		res, err := s.Run(context.Background(), run.Stop{Passes: 20})
		if err != nil {
			panic(err)
		}
		gaps = append(gaps, res.Last.Gap)
	}
	fmt.Println("same gap on 1 and 2 workers:", gaps[0] == gaps[1])
	// Output:
	// same gap on 1 and 2 workers: true
}
