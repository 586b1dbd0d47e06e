package datasets_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/internal/realdata"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
)

var (
	horsesOnce    sync.Once
	horsesData    *datasets.Horses
	horsesWeights []float64
	horsesErr     error
)

// realHorses loads horses-small through the user cache directory (the
// first run preprocesses) and trains the Potts model for 20 passes, so that
// the oracle benchmarks run at realistic weights.
func realHorses(b *testing.B) (*datasets.Horses, []float64) {
	dir := filepath.Dir(filepath.Dir(realdata.File(b, "horses/gray/horse001.jpg")))
	horsesOnce.Do(func() {
		horsesData, horsesErr = datasets.LoadHorses(datasets.HorsesOptions{Path: dir})
		if horsesErr != nil {
			return
		}
		potts, _ := boxes(horsesData.Train)
		var s *solver.Solver
		if s, horsesErr = solver.New(horsesData.Train, solver.Config{Lambda: horsesLambda, Box: potts, GapEvery: 10, Seed: 1}); horsesErr != nil {
			return
		}
		_, horsesErr = s.Run(context.Background(), run.Stop{Passes: 20})
		horsesWeights = s.Weights()
	})
	if horsesErr != nil {
		b.Fatal(horsesErr)
	}
	return horsesData, horsesWeights
}

// BenchmarkHorsesMaxOracle times one loss-augmented oracle call (scores and
// max-flow) on a horses-small training image, about 150 superpixels
// (target: <= 300 us).
func BenchmarkHorsesMaxOracle(b *testing.B) {
	h, w := realHorses(b)
	y := make([]int32, 0, 1024)
	b.ReportAllocs()
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		y, _ = h.Train.MaxOracle(k%h.Train.Len(), w, y)
	}
}

// BenchmarkHorsesScore times the scoring part of an oracle call alone (the
// unary and pairwise scores); the rest of BenchmarkHorsesMaxOracle is the
// graph construction, the max-flow and the score of the answer.
func BenchmarkHorsesScore(b *testing.B) {
	h, w := realHorses(b)
	b.ReportAllocs()
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		i := k % h.Train.Len()
		h.Train.Score(i, h.Train.Truth(i), w)
	}
}

// BenchmarkHorsesPreprocess times the whole preprocessing of the 328
// images (decoding, SLIC, codebook, features) without the cache (target:
// <= 30 s on 2 cores).
func BenchmarkHorsesPreprocess(b *testing.B) {
	dir := filepath.Dir(filepath.Dir(realdata.File(b, "horses/gray/horse001.jpg")))
	for k := 0; k < b.N; k++ {
		if _, err := datasets.LoadHorses(datasets.HorsesOptions{Path: dir, NoCache: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHorsesCachedLoad times a load of the 328 images from the
// preprocessing cache (target: well under a second).
func BenchmarkHorsesCachedLoad(b *testing.B) {
	dir := filepath.Dir(filepath.Dir(realdata.File(b, "horses/gray/horse001.jpg")))
	opt := datasets.HorsesOptions{Path: dir, CacheDir: b.TempDir()}
	if _, err := datasets.LoadHorses(opt); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		if _, err := datasets.LoadHorses(opt); err != nil {
			b.Fatal(err)
		}
	}
}
