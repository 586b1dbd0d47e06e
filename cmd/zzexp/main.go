package main

import (
	"context"
	"fmt"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
)

func main() {
	train, test, _ := datasets.LoadOCR("/work/shared/data/ocr/letter.data.gz", datasets.SplitSmall)
	for seed := uint64(1); seed <= 5; seed++ {
		s, _ := solver.New(train, solver.Config{Lambda: 0.01, GapEvery: 10, Seed: seed, Averaging: true})
		s.Run(context.Background(), solver.Stop{Passes: 100})
		tr := s.Trace()
		first := -1.0
		for _, p := range tr {
			if p.GapAvg < 0.1 && first < 0 {
				first = p.Pass
			}
		}
		fmt.Printf("seed %d gapavg10 %.4f gap10 %.4f gapavg70 %.4f first<0.1 %v test(avg) %.4f test %.4f\n", seed, tr[1].GapAvg, tr[1].Gap, tr[7].GapAvg, first, oracles.MeanLoss(test, s.AverageWeights()), oracles.MeanLoss(test, s.Weights()))
	}
}
