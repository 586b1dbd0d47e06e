package dist_test

import (
	"context"
	"fmt"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/dist"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/tune"
)

// Train two lambdas on each of 2 folds of the synthetic data, on prism
// in-process (the program calls flag.Parse and beam.Init first; here the
// tests' TestMain does).
func ExampleTrain() {
	data := datasets.Spec{Name: "synthetic", Options: datasets.Options{
		Synthetic: datasets.SyntheticConfig{TrainWords: 30, TestWords: 10},
	}}
	var units []dist.Unit
	for _, lambda := range []float64{0.1, 0.01} {
		m, err := run.Encode(solver.BCFW{Lambda: lambda, Sampling: run.GapSampling})
		if err != nil {
			panic(err)
		}
		for fold := range 2 {
			u, err := dist.NewTrainUnit(fmt.Sprintf("lambda=%g/fold=%d", lambda, fold), dist.TrainUnit{
				Method: m, Data: data, Folds: 2, Fold: fold, Seed: 1, Stop: run.Stop{Passes: 5},
			})
			if err != nil {
				panic(err)
			}
			units = append(units, u)
		}
	}
	res, err := dist.Train(context.Background(), dist.Beam{}, units)
	if err != nil {
		panic(err)
	}
	for _, r := range res {
		fmt.Printf("%s: %d examples, stopped on %s (%.0f passes, %d oracle calls)\n", r.Key, r.N, r.Status, r.Passes, r.OracleCalls)
	}
	// Output:
	// lambda=0.1/fold=0: 15 examples, stopped on passes (5 passes, 75 oracle calls)
	// lambda=0.1/fold=1: 15 examples, stopped on passes (5 passes, 75 oracle calls)
	// lambda=0.01/fold=0: 15 examples, stopped on passes (5 passes, 75 oracle calls)
	// lambda=0.01/fold=1: 15 examples, stopped on passes (5 passes, 75 oracle calls)
}

// Tune lambda of BCFW by 2-fold cross-validation on prism in-process: the
// plan is tune's (the same as tune.Run's for the same data and settings),
// its units run on the workers.
func ExampleTune() {
	spec := datasets.Spec{Name: "synthetic", Options: datasets.Options{
		Synthetic: datasets.SyntheticConfig{TrainWords: 30, TestWords: 10},
	}}
	d, err := spec.Load()
	if err != nil {
		panic(err)
	}
	plan, err := tune.NewPlan(d, solver.BCFW{Seed: 1}, tune.Config{Lambdas: []float64{0.1, 0.01}, Folds: 2, Stop: run.Stop{Passes: 5}})
	if err != nil {
		panic(err)
	}
	res, err := dist.Tune(context.Background(), dist.Beam{}, spec, plan)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d units (warm-started: %v), %d values of lambda on %d folds\n", len(plan.Units()), res.Warm, len(res.Curve), res.Folds)
	fmt.Printf("final model at the chosen lambda: %v, %.0f passes\n", res.FinalFit.Lambda == res.Chosen().Lambda, res.FinalFit.Passes)
	// Output:
	// 2 units (warm-started: true), 2 values of lambda on 2 folds
	// final model at the chosen lambda: true, 5 passes
}
