package solver_test

import (
	"context"
	"fmt"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/execution"
	"github.com/fwstruct/fwstruct/solver/run"
)

// Train a chain SSVM on the built-in synthetic OCR-like data with BCFW and
// read the certified duality gap from the trace.
func ExampleBCFW() {
	train, _, err := datasets.SyntheticOCR(datasets.SyntheticConfig{TrainWords: 100, Seed: 1})
	if err != nil {
		panic(err)
	}
	s, err := solver.BCFW{Lambda: 0.01, GapEvery: 5}.New(train)
	if err != nil {
		panic(err)
	}
	res, err := s.Run(context.Background(), run.Stop{Passes: 50, Gap: 0.05})
	if err != nil {
		panic(err)
	}
	last := res.Last // res.Current: it describes the final iterate
	fmt.Println("status:", res.Status)
	fmt.Println("certified gap below 0.05:", last.Gap <= 0.05)
	fmt.Println("gap = primal - dual:", fmt.Sprintf("%.12f", last.Primal-last.Dual) == fmt.Sprintf("%.12f", last.Gap))
	// Output:
	// status: converged
	// certified gap below 0.05: true
	// gap = primal - dual: true
}

// Stop after a few passes, inspect, and go on: the state carries over
// between calls. With gap sampling the exact gap passes (every 2 passes
// here) are part of the algorithm and count as oracle calls.
func ExampleSolver_Run() {
	train, _, _ := datasets.SyntheticOCR(datasets.SyntheticConfig{TrainWords: 50, Seed: 2})
	s, _ := solver.BCFW{Lambda: 0.1, GapEvery: 2, Sampling: run.GapSampling}.New(train)
	ctx := context.Background()
	s.Run(ctx, run.Stop{Passes: 4})
	before, _ := s.Last()
	s.Run(ctx, run.Stop{Passes: 12})
	after, _ := s.Last()
	fmt.Println("gap decreased:", after.Gap < before.Gap)
	fmt.Println("trace points:", len(s.Trace()))
	// Output:
	// gap decreased: true
	// trace points: 5
}

// Warm-start a smaller lambda from the solution of a larger one (Osokin et
// al. 2016, Prop. 1): w is kept and the gap stays certified.
func ExampleSolver_SetLambda() {
	train, _, _ := datasets.SyntheticOCR(datasets.SyntheticConfig{TrainWords: 50, Seed: 3})
	s, _ := solver.BCFW{Lambda: 1, GapEvery: 2}.New(train)
	s.Run(context.Background(), run.Stop{Gap: 0.01, Passes: 300})
	if err := s.SetLambda(0.5); err != nil {
		panic(err)
	}
	res, _ := s.Run(context.Background(), run.Stop{Gap: 0.01, Passes: 600})
	fmt.Println(res.Status, res.Last.Lambda)
	// Output:
	// converged 0.5
}

// Train with the recommended BCFW (gap sampling, pairwise steps, cache);
// the zero BCFW is the papers' baseline.
func ExampleRecommended() {
	train, _, err := datasets.SyntheticOCR(datasets.SyntheticConfig{TrainWords: 100, Seed: 1})
	if err != nil {
		panic(err)
	}
	m := solver.Recommended(0.01)
	s, err := m.New(train)
	if err != nil {
		panic(err)
	}
	res, err := s.Run(context.Background(), run.Stop{Gap: 0.01, Passes: 1000})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Status, m.Sampling, m.Step, m.Cache != nil)
	// Output:
	// converged gap pairwise true
}

// Multi-plane BCFW (Shah et al. 2015) keeps each example's recent planes
// and makes cheap approximate passes over them between exact passes. With
// the deterministic cost rule (an oracle call costs Ratio plane
// evaluations) runs are reproducible; it certifies the same gap as BCFW
// with fewer oracle calls.
func ExampleMultiPlane() {
	train, _, err := datasets.SyntheticOCR(datasets.SyntheticConfig{TrainWords: 100, Seed: 1})
	if err != nil {
		panic(err)
	}
	methods := []run.Method{
		solver.BCFW{Lambda: 0.01, Sampling: run.Permutation, GapEvery: 1, Average: run.WeightedAverage},
		solver.MultiPlane{Lambda: 0.01, GapEvery: 1, Averaging: true, Cost: &solver.CostRule{Ratio: 50}},
	}
	var calls []int64
	for _, m := range methods {
		s, err := m.New(train)
		if err != nil {
			panic(err)
		}
		res, err := s.Run(context.Background(), run.Stop{Gap: 0.02, Passes: 500})
		if err != nil {
			panic(err)
		}
		calls = append(calls, s.OracleCalls())
		if m.Name() == "mp-bcfw" {
			fmt.Println("status:", res.Status)
			fmt.Println("approximate passes made:", res.Last.ApproxPasses > 0)
			fmt.Println("averaged gap = primal - dual:", fmt.Sprintf("%.9f", res.Last.PrimalAvg-res.Last.DualAvg) == fmt.Sprintf("%.9f", res.Last.GapAvg))
		}
	}
	fmt.Println("fewer oracle calls than BCFW:", calls[1] < calls[0])
	// Output:
	// status: converged
	// approximate passes made: true
	// averaged gap = primal - dual: true
	// fewer oracle calls than BCFW: true
}

// The stochastic variants of the appendix of Lacoste-Julien et al. (2013):
// BCFW with the 0.5-suffix average by the doubling trick (BCFW-tavg) and
// online exponentiated gradient, both certified at every trace point (the
// dual of an average of dual points is exact).
func ExampleOnlineEG() {
	train, _, _ := datasets.SyntheticOCR(datasets.SyntheticConfig{TrainWords: 60, Seed: 4})
	for _, m := range []struct {
		name   string
		method run.Method
	}{
		{"BCFW-tavg", solver.BCFW{Lambda: 0.1, Average: run.SuffixAverage, GapEvery: 5}},
		{"online-EG", solver.OnlineEG{Lambda: 0.1, GapEvery: 5}},
	} {
		s, _ := m.method.New(train)
		s.Run(context.Background(), run.Stop{Passes: 20})
		last, _ := s.Last()
		fmt.Printf("%s: gap >= 0 %v, averaged gap %.0f\n", m.name, last.Gap >= 0, last.GapAvg)
	}
	// Output:
	// BCFW-tavg: gap >= 0 true, averaged gap 0
	// online-EG: gap >= 0 true, averaged gap NaN
}

// Mini-batch BCFW (Wang et al. 2016): batches of 8 distinct blocks whose
// oracle calls run in parallel on the workers. The run depends on the seed
// and the batch size, not on the number of workers: 1 and 4 workers give
// the same weights bit for bit. The delay simulator runs BCFW with the
// staleness 16 asynchronous workers would have, on one core.
func ExampleBCFW_miniBatch() {
	train, _, _ := datasets.SyntheticOCR(datasets.SyntheticConfig{TrainWords: 100, Seed: 4})
	m := solver.BCFW{Lambda: 0.01, GapEvery: 5, Seed: 1}
	var weights [][]float64
	for _, workers := range []int{1, 4} {
		s, _ := m.New(train, run.WithExecution(execution.MiniBatch{Batch: 8}), run.WithWorkers(workers))
		s.Run(context.Background(), run.Stop{Passes: 20})
		weights = append(weights, s.Weights())
	}
	fmt.Println("same run with 1 and 4 workers:", fmt.Sprint(weights[0]) == fmt.Sprint(weights[1]))

	sim, _ := m.New(train, run.WithExecution(execution.Simulated{Workers: 16}))
	res, _ := sim.Run(context.Background(), run.Stop{Passes: 300, Gap: 0.05})
	fmt.Println("16 simulated workers:", res.Status)
	// Output:
	// same run with 1 and 4 workers: true
	// 16 simulated workers: converged
}

// Run as the reference code of Osokin et al. (2016), gapBCFW, with its
// default options: pairwise steps, gap sampling whose first pass visits
// the blocks in index order, the cache (F 0.25, nu 0.01, 100 corners, a
// global gap of 1 before the first gap pass), a gap pass every 10 passes
// and as soon as the stale gap estimate falls below 0.8 times the target.
// Both count effective passes as oracle calls / n, gap passes included.
func ExampleBCFW_gapBCFW() {
	train, _, err := datasets.SyntheticOCR(datasets.SyntheticConfig{TrainWords: 100, Seed: 1})
	if err != nil {
		panic(err)
	}
	m := solver.BCFW{
		Lambda:   0.0373,
		Sampling: run.GapSamplingInOrder,
		Step:     solver.Pairwise,
		Cache:    &solver.Cache{F: 0.25, Nu: 0.01, MaxSize: 100, InitialGap: 1},
		GapEvery: 10,
	}
	s, err := m.New(train)
	if err != nil {
		panic(err)
	}
	res, err := s.Run(context.Background(), run.Stop{Gap: 0.09, EarlyCheck: 0.8, Passes: 500})
	if err != nil {
		panic(err)
	}
	hits, _, _ := s.(*solver.Solver).CacheStats()
	fmt.Println("status:", res.Status)
	fmt.Println("certified gap at most 0.09:", res.Last.Gap <= 0.09)
	fmt.Println("cache hits:", hits > 0)
	// Output:
	// status: converged
	// certified gap at most 0.09: true
	// cache hits: true
}

// Trace the test loss at every gap pass without waiting for it: with two
// workers, the predictions of a trace point are made on a goroutine of
// their own while the steps go on. The trace is the one computed in place;
// only the Progress callback of a point comes later.
func ExampleSolver_SetLateLosses() {
	train, test, _ := datasets.SyntheticOCR(datasets.SyntheticConfig{TrainWords: 100, TestWords: 100, Seed: 5})
	var traces [][]run.Point
	for _, late := range []bool{false, true} {
		var seen int
		s, _ := solver.BCFW{Lambda: 0.01, GapEvery: 1}.New(train,
			run.WithTest(test), run.WithWorkers(2), run.WithLateLosses(late),
			run.WithProgress(func(run.Point) { seen++ }))
		s.Run(context.Background(), run.Stop{Passes: 10})
		traces = append(traces, s.Trace())
		fmt.Printf("late %v: %d points, %d seen by the callback\n", late, len(s.Trace()), seen)
	}
	same := len(traces[0]) == len(traces[1])
	for k := range traces[0] {
		same = same && traces[0][k].TestLoss == traces[1][k].TestLoss && traces[0][k].Gap == traces[1][k].Gap
	}
	fmt.Println("same test losses and gaps:", same)
	// Output:
	// late false: 6 points, 6 seen by the callback
	// late true: 6 points, 6 seen by the callback
	// same test losses and gaps: true
}
