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
		var s run.Solver
		if s, horsesErr = (solver.BCFW{Lambda: horsesLambda, Box: potts, GapEvery: 10, Seed: 1}).New(horsesData.Train); horsesErr != nil {
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
// max-flow) on a horses-small training image, about 150 superpixels, the
// images in turn, so that each call finds its image's features out of the
// cache as in a BCFW pass (target: < 50 us on a quiet machine, issue 21).
//
//	go test -run '^$' -bench 'HorsesMaxOracle|HorsesScore' -benchtime 3s ./datasets/
//
// Before issue 21: 61.3 us/op on a quiet machine (load < 1). Issue 21
// (scores kernel with its tail and a 12 kB prefetch, cut graph from a
// per-image maxflow.Topology, tighter Boykov-Kolmogorov loops, H without
// branches), measured before -> after in one interleaved session at load
// 12-13 (ratios only): 107 -> 88 us/op (median of 3). callgrind, 1470
// calls: 400k -> 258k instructions a call (scores 134k -> 98k; graph,
// max-flow and H 267k -> 160k). On a quiet machine (load 1.0-1.1, each
// run under chrt -f 10, before and after interleaved, 6 runs each):
// 64.8-71.0 -> 43.3-50.1 us/op (median 47.9; 5 of 6 under 50 us);
// HorsesScore 31.6-34.2 -> 13.9-18.0 us/op.
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
// graph construction, the max-flow and the score of the answer. Before
// issue 21: 25.6 us/op on a quiet machine; before -> after at load 12-13
// (interleaved, command above): 49 -> 30 us/op (median of 3), nearly all
// of it the wait for the features, which the kernel's prefetch halves.
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
