package ssvmnb_test

import (
	"context"
	"fmt"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/ssvmnb"
)

// The cache against plain BCFW, in passes and in solver time to a gap; the
// last column is the speedup in time over the first group.
func ExampleTimeToGapTable() {
	data := ssvmnb.Must(ssvmnb.Load("synthetic", datasets.Options{Synthetic: datasets.SyntheticConfig{TrainWords: 50, Seed: 1}}))
	ctx := context.Background()
	stop := run.Stop{Passes: 10}
	train := ssvmnb.NewData("synthetic, training set only", data.Train, nil)
	seeds := []uint64{1, 2, 3}
	plain := ssvmnb.Must(ssvmnb.Seeds(ctx, "bcfw", train, solver.BCFW{Lambda: 0.01, GapEvery: 2}, seeds, stop))
	cached := ssvmnb.Must(ssvmnb.Seeds(ctx, "bcfw + cache", train,
		solver.BCFW{Lambda: 0.01, GapEvery: 2, Cache: &solver.Cache{}}, seeds, stop))
	tab := ssvmnb.TimeToGapTable([]float64{0.3, 1e-9}, plain, cached)
	fmt.Println(tab.Columns)
	for _, row := range tab.Rows {
		// Solver seconds vary from run to run: print the passes only.
		fmt.Printf("%s: %s passes to gap 0.3, %s to gap 1e-9\n", row[0], row[2], row[5])
	}
	// Output:
	// [method seeds passes to gap 0.3 s to gap 0.3 speedup over bcfw at 0.3 passes to gap 1e-09 s to gap 1e-09 speedup over bcfw at 1e-09]
	// bcfw: 9 passes to gap 0.3, not reached (0/3 seeds) to gap 1e-9
	// bcfw + cache: 9.12 passes to gap 0.3, not reached (0/3 seeds) to gap 1e-9
}
