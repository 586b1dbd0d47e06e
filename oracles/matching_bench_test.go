package oracles_test

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/internal/realdata"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
)

var (
	hansardsOnce  sync.Once
	hansardsTrain *oracles.Matching
	hansardsErr   error
)

// hansardsIntersected loads the 5,000-pair intersected Hansards training
// set once (about 10 s).
func hansardsIntersected(b *testing.B) *oracles.Matching {
	dir := filepath.Dir(realdata.File(b, "hansards/test.e"))
	hansardsOnce.Do(func() {
		h, err := datasets.LoadHansards(datasets.HansardsOptions{Path: dir, Training: datasets.HansardsIntersected})
		hansardsTrain, hansardsErr = h.Train, err
		if err != nil {
			hansardsTrain = nil
		}
	})
	if hansardsErr != nil {
		b.Fatal(hansardsErr)
	}
	return hansardsTrain
}

// benchMatching times MaxOracle or Predict over the examples of p in turn,
// so that ns/op is the mean over them.
func benchMatching(b *testing.B, p *oracles.Matching, predict bool) {
	w := trainedLikeWeights(p.Dim())
	y := make([]int32, 0, 256)
	b.ReportAllocs()
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		i := k % p.Len()
		if predict {
			y = p.Predict(i, w, y)
		} else {
			y, _ = p.MaxOracle(i, w, y)
		}
	}
}

// BenchmarkMatchingOracle times one loss-augmented decoding (edge scores
// and the Hungarian method) and one prediction of the word-alignment
// model: on the 5,000 Hansards training pairs of the intersected set (d =
// 86, 14.7 English and 17.1 French words on average; skipped without the
// data), and on random problems of up to 20 x 20 words with 86 features
// of density 0.3.
func BenchmarkMatchingOracle(b *testing.B) {
	random := oraclestest.Matching(oraclestest.MatchingConfig{N: 200, MaxRows: 20, MaxCols: 20, Features: 86, Density: 0.3, Seed: 1})
	b.Run("random/MaxOracle", func(b *testing.B) { benchMatching(b, random, false) })
	b.Run("random/Predict", func(b *testing.B) { benchMatching(b, random, true) })
	b.Run("hansards/MaxOracle", func(b *testing.B) { benchMatching(b, hansardsIntersected(b), false) })
	b.Run("hansards/Predict", func(b *testing.B) { benchMatching(b, hansardsIntersected(b), true) })
}
