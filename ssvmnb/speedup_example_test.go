package ssvmnb_test

import (
	"fmt"
	"math"
	"strings"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/execution"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/ssvmnb"
	"github.com/fwstruct/fwstruct/viz"
)

// One configuration run sequentially on one worker, as a mini-batch of 2
// on 2 workers and in the delay simulator at K = 8 (the staleness of 8
// asynchronous workers, run on one core), compared at a duality gap: the
// passes are reproducible, the seconds and speedups depend on the machine
// (printed here: the workers, the execution and the passes only).
func ExampleSpeedupTable() {
	data := ssvmnb.Must(ssvmnb.Load("synthetic", datasets.Options{Synthetic: datasets.SyntheticConfig{TrainWords: 50, Seed: 1}}))
	train := ssvmnb.NewData("synthetic, training set only", data.Train, nil)
	m := solver.BCFW{Lambda: 0.01, GapEvery: 2, Seed: 1}
	var runs []*ssvmnb.Trainer
	for _, r := range []struct {
		name    string
		workers int
		x       run.Execution
	}{
		{"sequential", 1, nil},
		{"mini-batch of 2", 2, execution.MiniBatch{Batch: 2}},
		{"simulated, 8 workers", 1, execution.Simulated{Workers: 8}},
	} {
		t := ssvmnb.Must(ssvmnb.New(r.name, train, m, r.x))
		t.Workers = r.workers // saved with the run: a resumed run has them too
		ssvmnb.Must(t.Run(20))
		runs = append(runs, t)
	}
	tab := ssvmnb.SpeedupTable(0.1, runs...)
	fmt.Println(tab.Columns)
	for _, row := range tab.Rows {
		fmt.Printf("%s: %s workers, %s, %s passes to gap 0.1\n", row[0], row[1], row[2], row[3])
	}
	// Output:
	// [run workers execution passes to gap 0.1 solver s whole run s speedup (solver) speedup (whole run)]
	// sequential: 1 workers, sequential, 18 passes to gap 0.1
	// mini-batch of 2: 2 workers, mini-batch of 2, 18 passes to gap 0.1
	// simulated, 8 workers: 1 workers, simulated, K = 8, 20 passes to gap 0.1
}

// The figure "passes and time against workers": the delay simulator's
// passes to a gap at K = 1, 4 and 16, and the solver time Amdahl's law
// predicts from the sequential run and the share of its time the workers
// can take (WorkerShare: its oracle calls, measured, and the scoring of
// stored corners, estimated; this run stores none), with the measured runs
// on it.
func ExampleWorkersFigures() {
	data := ssvmnb.Must(ssvmnb.Load("synthetic", datasets.Options{Synthetic: datasets.SyntheticConfig{TrainWords: 50, Seed: 1}}))
	train := ssvmnb.NewData("synthetic, training set only", data.Train, nil)
	var simulated []*ssvmnb.Trainer
	for _, k := range []int{1, 4, 16} {
		t := ssvmnb.Must(ssvmnb.New(fmt.Sprintf("K = %d", k), train, solver.BCFW{Lambda: 0.01, GapEvery: 2, Seed: 1}, execution.Simulated{Workers: k}))
		t.Workers = 1
		ssvmnb.Must(t.Run(20))
		simulated = append(simulated, t)
	}
	seq := simulated[0] // K = 1 is BCFW bit for bit: the sequential run
	share := ssvmnb.Must(ssvmnb.WorkerShare(seq))
	passes, seconds := ssvmnb.WorkersFigures(0.1, share.P(), simulated, seq)
	for _, f := range []*viz.Figure{passes, seconds} {
		fmt.Println(f.Title)
		for _, s := range f.Series {
			fmt.Printf("  %s\n", strings.Split(s.Name, " (")[0]) // p varies with the machine
		}
		for _, n := range f.Notes {
			fmt.Printf("  note: %s\n", n)
		}
	}
	fmt.Println("passes to gap 0.1 at K = 1, 4, 16:", passes.Series[0].Y)
	// Output:
	// Passes to gap 0.1 against workers
	//   delay simulator
	//   K = 1
	//   note: delay simulator: gap 0.1 not reached at K = 16
	// Solver time to gap 0.1 against workers: predicted and measured
	//   Amdahl alone
	//   predicted: delay simulator
	//   K = 1
	// passes to gap 0.1 at K = 1, 4, 16: [18 18 NaN]
}

// The share of a run's solver time that the workers of a mini-batch or of
// the asynchronous execution can take, p of Amdahl's law: the oracle calls
// of its block steps (their number times the time of a call, measured) and
// the scoring of the corners it stores (here the cache's; estimated). The
// values depend on the machine; their signs and sum do not.
func ExampleWorkerShare() {
	data := ssvmnb.Must(ssvmnb.Load("synthetic", datasets.Options{Synthetic: datasets.SyntheticConfig{TrainWords: 50, Seed: 1}}))
	train := ssvmnb.NewData("synthetic, training set only", data.Train, nil)
	t := ssvmnb.Must(ssvmnb.New("cached", train, solver.BCFW{Lambda: 0.01, GapEvery: 2, Seed: 1, Step: solver.Pairwise, Cache: &solver.Cache{}}))
	t.Workers = 1
	ssvmnb.Must(t.Run(10))
	s := ssvmnb.Must(ssvmnb.WorkerShare(t))
	fmt.Println("oracle calls of the block steps, share above 0:", s.Oracle > 0)
	fmt.Println("scoring of the cached corners, share above 0:", s.Scoring > 0)
	fmt.Println("p is their sum, at most 1:", s.P() == math.Min(1, s.Oracle+s.Scoring))
	// Output:
	// oracle calls of the block steps, share above 0: true
	// scoring of the cached corners, share above 0: true
	// p is their sum, at most 1: true
}
