package oracles_test

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/internal/realdata"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
)

var (
	ocrOnce  sync.Once
	ocrLarge *oracles.Chain
	ocrErr   error
)

// ocrLargeTrain loads the OCR-large training words (6,251 words) once.
func ocrLargeTrain(b *testing.B) *oracles.Chain {
	path := realdata.File(b, "ocr/letter.data.gz")
	ocrOnce.Do(func() { ocrLarge, _, ocrErr = datasets.LoadOCR(path, datasets.SplitLarge) })
	if ocrErr != nil {
		b.Fatal(ocrErr)
	}
	return ocrLarge
}

// trainedLikeWeights returns weights of realistic scale (random, ~0.05 per
// coordinate) so that Viterbi explores varied paths.
func trainedLikeWeights(d int) []float64 {
	return oraclestest.Weights(rand.New(rand.NewPCG(1, 2)), d, 0.05)
}

// benchMaxOracle runs loss-augmented Viterbi on the examples of c in turn,
// so that ns/op is the mean over them.
func benchMaxOracle(b *testing.B, c *oracles.Chain) {
	w := trainedLikeWeights(c.Dim())
	y := make([]int32, c.MaxLen())
	b.ReportAllocs()
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		y, _ = c.MaxOracle(k%c.Len(), w, y)
	}
}

// benchPsi builds psi_i(y) of the max-oracle answers of the examples of c
// in turn.
func benchPsi(b *testing.B, c *oracles.Chain) {
	w := trainedLikeWeights(c.Dim())
	ys := make([][]int32, c.Len())
	for i := range ys {
		ys[i], _ = c.MaxOracle(i, w, nil)
	}
	var psi oracles.SparseVec
	b.ReportAllocs()
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		i := k % c.Len()
		c.Psi(i, ys[i], &psi)
	}
}

// BenchmarkMaxOracleOCR measures loss-augmented Viterbi per OCR word
// (target: <= 5 us).
func BenchmarkMaxOracleOCR(b *testing.B) { benchMaxOracle(b, ocrLargeTrain(b)) }

// BenchmarkPredictOCR measures plain Viterbi per OCR word.
func BenchmarkPredictOCR(b *testing.B) {
	c := ocrLargeTrain(b)
	w := trainedLikeWeights(c.Dim())
	y := make([]int32, c.MaxLen())
	b.ReportAllocs()
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		y = c.Predict(k%c.Len(), w, y)
	}
}

// BenchmarkPsiOCR measures building psi_i(y) for a max-oracle answer.
func BenchmarkPsiOCR(b *testing.B) { benchPsi(b, ocrLargeTrain(b)) }

// BenchmarkMaxOracleSynthetic runs without real data.
func BenchmarkMaxOracleSynthetic(b *testing.B) {
	benchMaxOracle(b, oraclestest.Chain(oraclestest.ChainConfig{N: 200, MaxLen: 14, Labels: 26, Features: 128, Density: 0.22, Seed: 1}))
}

var (
	conllOnce  sync.Once
	conllTrain *datasets.Chunking
	conllErr   error
)

// conllTrainSet loads the CoNLL-2000 training sentences (8,936, d = 1.66M)
// once.
func conllTrainSet(b *testing.B) *datasets.Chunking {
	realdata.File(b, "conll2000/train.txt.gz")
	root := realdata.Dir(b)
	conllOnce.Do(func() { conllTrain, _, conllErr = datasets.LoadConll(root, datasets.ConllOptions{}) })
	if conllErr != nil {
		b.Fatal(conllErr)
	}
	return conllTrain
}

// BenchmarkMaxOracleCoNLL measures loss-augmented Viterbi per CoNLL
// sentence, cycling over the training set (so ns/op is the mean over its
// sentences; target: well under 200 us, for a BCFW pass under 2 s).
func BenchmarkMaxOracleCoNLL(b *testing.B) { benchMaxOracle(b, conllTrainSet(b).Chain) }

// BenchmarkPsiCoNLL measures building psi_i(y) for a max-oracle answer
// (hashed scratch: d = 1.66M), cycling over the training set.
func BenchmarkPsiCoNLL(b *testing.B) { benchPsi(b, conllTrainSet(b).Chain) }

// BenchmarkOraclePassCoNLL measures what one BCFW pass over the 8,936
// training sentences spends in the model: a max oracle and a psi per
// sentence (one op = one pass).
func BenchmarkOraclePassCoNLL(b *testing.B) {
	c := conllTrainSet(b)
	w := trainedLikeWeights(c.Dim())
	y := make([]int32, c.MaxLen())
	var psi oracles.SparseVec
	b.ReportAllocs()
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		for i := 0; i < c.Len(); i++ {
			y, _ = c.MaxOracle(i, w, y)
			c.Psi(i, y, &psi)
		}
	}
}
