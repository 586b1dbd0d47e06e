package solver_test

import (
	"context"
	"fmt"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
)

// Warm-start a variant from a run: after 5 passes of uniform sampling,
// fork a run with gap sampling. The original goes on unchanged; the fork's
// trace records the switch.
func ExampleSolver_Fork() {
	train, _, err := datasets.SyntheticOCR(datasets.SyntheticConfig{TrainWords: 60, Seed: 3})
	if err != nil {
		panic(err)
	}
	s, err := solver.BCFW{Lambda: 0.01, GapEvery: 5}.New(train)
	if err != nil {
		panic(err)
	}
	if _, err := s.Run(context.Background(), run.Stop{Passes: 5}); err != nil {
		panic(err)
	}
	m := s.Method().(solver.BCFW)
	m.Sampling = run.GapSampling
	gap, err := s.Fork(m)
	if err != nil {
		panic(err)
	}
	at := gap.Trace()[len(gap.Trace())-1]
	fmt.Printf("pass %.0f: %s\n", at.Pass, at.Event)
	if _, err := gap.Run(context.Background(), run.Stop{Passes: 15}); err != nil {
		panic(err)
	}
	fmt.Println("original still at pass", s.Passes(), "with", s.Method().(solver.BCFW).Sampling, "sampling")
	// Output:
	// pass 5: fork: sampling uniform -> gap
	// original still at pass 5 with uniform sampling
}
