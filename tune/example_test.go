package tune_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/tune"
)

// ExampleRun tunes lambda of BCFW by 3-fold cross-validation on a small
// multiclass data set written in svmlight format, then reads the chosen
// value and the final model's test error.
func ExampleRun() {
	dir, err := os.MkdirTemp("", "tune")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	for _, f := range []struct {
		name string
		n    int
	}{{"points.svm", 120}, {"points.svm.t", 60}} {
		rng := rand.New(rand.NewPCG(uint64(f.n), 1))
		var b strings.Builder
		for i := 0; i < f.n; i++ {
			c := i % 2
			fmt.Fprintf(&b, "%d 1:%.4f 2:%.4f\n", c, float64(2*c-1)+rng.NormFloat64(), rng.NormFloat64())
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), []byte(b.String()), 0o644); err != nil {
			panic(err)
		}
	}
	data, err := datasets.LoadData(filepath.Join(dir, "points.svm"), datasets.Options{})
	if err != nil {
		panic(err)
	}
	res, err := tune.Run(context.Background(), data, solver.BCFW{Seed: 1},
		tune.Config{Lambdas: []float64{1, 0.1, 0.01}, Folds: 3, Stop: run.Stop{Passes: 20}})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s over %d folds, warm-started: %v\n", res.Metric, res.Folds, res.Warm)
	for _, p := range res.Curve {
		fmt.Printf("lambda %-5g %d fold values\n", p.Lambda, len(p.Folds))
	}
	fmt.Println("final lambda is the chosen one:", res.Method.(solver.BCFW).Lambda == res.Chosen().Lambda)
	// Output:
	// error_rate over 3 folds, warm-started: true
	// lambda 1     3 fold values
	// lambda 0.1   3 fold values
	// lambda 0.01  3 fold values
	// final lambda is the chosen one: true
}
