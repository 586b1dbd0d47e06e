package datasets

import (
	"hash/fnv"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
)

// fingerprint hashes the ids, folds, letters and pixels of words.
func fingerprint(words []Word) uint64 {
	h := fnv.New64a()
	for _, w := range words {
		h.Write([]byte{byte(w.ID), byte(w.ID >> 8), byte(w.Fold), byte(len(w.Letters))})
		for t, l := range w.Letters {
			h.Write([]byte{byte(l)})
			h.Write(w.Pixels[t])
		}
	}
	return h.Sum64()
}

func TestSyntheticDeterministic(t *testing.T) {
	cfg := SyntheticConfig{TrainWords: 40, TestWords: 30, Seed: 7}
	tr1, te1, err := Synthetic(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr2, te2, err := Synthetic(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tr1, tr2) || !reflect.DeepEqual(te1, te2) {
		t.Fatal("same seed gave different words")
	}
	cfg.Seed = 8
	tr3, te3, err := Synthetic(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if fingerprint(tr1) == fingerprint(tr3) || fingerprint(te1) == fingerprint(te3) {
		t.Error("different seeds gave the same words")
	}
	// The test words do not depend on the number of training words.
	cfg.Seed, cfg.TrainWords = 7, 5
	_, te4, err := Synthetic(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range te4 {
		te4[i].ID -= 5 - 40
	}
	if !reflect.DeepEqual(te1, te4) {
		t.Error("test words depend on TrainWords")
	}
}

// TestSyntheticGolden pins the output of the default configuration, so that
// a change of the generator (or of the PCG stream) is noticed: the same seed
// must give the same data on every machine and Go version.
func TestSyntheticGolden(t *testing.T) {
	tr, te, err := Synthetic(SyntheticConfig{})
	if err != nil {
		t.Fatal(err)
	}
	const wantTrain, wantTest = 0xc3de066be35bc01d, 0xa530445254ed7af5
	if got := fingerprint(tr); got != wantTrain {
		t.Errorf("train fingerprint %#x, want %#x", got, uint64(wantTrain))
	}
	if got := fingerprint(te); got != wantTest {
		t.Errorf("test fingerprint %#x, want %#x", got, uint64(wantTest))
	}
	if got, want := tr[0].String(), "cgtjn"; got != want {
		t.Errorf("first training word %q, want %q", got, want)
	}
}

func TestSyntheticShape(t *testing.T) {
	tests := []struct {
		name           string
		cfg            SyntheticConfig
		ntr, nte       int
		minLen, maxLen int
	}{
		{"defaults", SyntheticConfig{}, 300, 300, 3, 9},
		{"counts", SyntheticConfig{TrainWords: 10, TestWords: 4}, 10, 4, 3, 9},
		{"fixed length", SyntheticConfig{TrainWords: 20, TestWords: 1, MinLen: 5, MaxLen: 5}, 20, 1, 5, 5},
		{"only MinLen", SyntheticConfig{TrainWords: 20, TestWords: 1, MinLen: 12}, 20, 1, 12, 12},
		{"only MaxLen", SyntheticConfig{TrainWords: 50, TestWords: 1, MaxLen: 2}, 50, 1, 2, 2},
		{"single letters", SyntheticConfig{TrainWords: 50, TestWords: 1, MinLen: 1, MaxLen: 1}, 50, 1, 1, 1},
		{"max noise", SyntheticConfig{TrainWords: 5, TestWords: 5, FlipNoise: 0.5}, 5, 5, 3, 9},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, te, err := Synthetic(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(tr) != tc.ntr || len(te) != tc.nte {
				t.Fatalf("%d train, %d test words", len(tr), len(te))
			}
			seen := map[int]bool{}
			for _, set := range []struct {
				words []Word
				fold  int
			}{{tr, 0}, {te, 1}} {
				for _, w := range set.words {
					if w.Fold != set.fold || seen[w.ID] {
						t.Fatalf("word %d: fold %d (want %d), id seen before: %v", w.ID, w.Fold, set.fold, seen[w.ID])
					}
					seen[w.ID] = true
					if n := len(w.Letters); n < tc.minLen || n > tc.maxLen || len(w.Pixels) != n {
						t.Fatalf("word %d: %d letters, %d images; want length in [%d, %d]", w.ID, n, len(w.Pixels), tc.minLen, tc.maxLen)
					}
					for k, l := range w.Letters {
						if l < 0 || l >= NumLetters || len(w.Pixels[k]) != LetterPixels {
							t.Fatalf("word %d letter %d: label %d, %d pixels", w.ID, k, l, len(w.Pixels[k]))
						}
						for _, v := range w.Pixels[k] {
							if v > 1 {
								t.Fatalf("pixel value %d", v)
							}
						}
					}
				}
			}
		})
	}
}

func TestSyntheticConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  SyntheticConfig
		want string
	}{
		{"negative train", SyntheticConfig{TrainWords: -1}, "negative word count"},
		{"negative test", SyntheticConfig{TestWords: -3}, "negative word count"},
		{"negative length", SyntheticConfig{MinLen: -1}, "negative word length"},
		{"min above max", SyntheticConfig{MinLen: 6, MaxLen: 4}, "MinLen 6 > MaxLen 4"},
		{"negative noise", SyntheticConfig{FlipNoise: -0.1}, "flip noise -0.1 outside [0, 0.5]"},
		{"noise above half", SyntheticConfig{FlipNoise: 0.6}, "outside [0, 0.5]"},
		{"NaN noise", SyntheticConfig{FlipNoise: math.NaN()}, "outside [0, 0.5]"},
		{"too large", SyntheticConfig{TrainWords: 1 << 25, MaxLen: 10}, "too large"},
		{"overflow", SyntheticConfig{TrainWords: math.MaxInt, TestWords: math.MaxInt}, "too large"},
		{"too long", SyntheticConfig{TrainWords: 10, MaxLen: 1 << 30}, "too large"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Synthetic(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
			if _, _, err := SyntheticOCR(tc.cfg); err == nil {
				t.Error("SyntheticOCR accepted the config")
			}
		})
	}
}

func TestSyntheticGlyphs(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		m := newSyntheticModel(seed)
		for a := range m.glyphs {
			ink := 0
			for _, v := range m.glyphs[a] {
				ink += int(v)
			}
			if ink < glyphMinInk {
				t.Errorf("seed %d: glyph %c has %d ink pixels", seed, 'a'+a, ink)
			}
			for k := 0; k < LetterCols; k++ { // the last row stays blank
				if m.glyphs[a][(LetterRows-1)*LetterCols+k] != 0 {
					t.Errorf("seed %d: glyph %c touches the last row", seed, 'a'+a)
				}
			}
			for b := 0; b < a; b++ {
				if d := hamming(&m.glyphs[a], &m.glyphs[b]); d < glyphMinDist {
					t.Errorf("seed %d: glyphs %c and %c differ in %d pixels", seed, 'a'+b, 'a'+a, d)
				}
			}
		}
	}
}

// averagedPerceptron trains an averaged structured perceptron (Collins 2002)
// on train and returns the weights; it is an independent sanity check of the
// difficulty of the synthetic task, unrelated to the solvers. With noTrans,
// the transition and bias features are kept at zero.
func averagedPerceptron(train *oracles.Chain, epochs int, noTrans bool) []float64 {
	d := train.Dim()
	emission := train.NumFeatures() * train.NumLabels()
	w, acc := make([]float64, d), make([]float64, d)
	var y []int32
	var psi oracles.SparseVec
	c := 0.0
	for e := 0; e < epochs; e++ {
		for i := 0; i < train.Len(); i++ {
			c++
			y = train.Predict(i, w, y)
			if train.Loss(i, y) == 0 {
				continue
			}
			train.Psi(i, y, &psi)
			if noTrans {
				for k, j := range psi.Idx {
					if int(j) >= emission {
						psi.Val[k] = 0
					}
				}
			}
			psi.AddTo(w, 1)
			psi.AddTo(acc, c)
		}
	}
	for k := range w {
		w[k] -= acc[k] / c
	}
	return w
}

func TestSyntheticDifficulty(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a perceptron")
	}
	train, test, err := SyntheticOCR(SyntheticConfig{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if train.Dim() != 4082 {
		t.Fatalf("Dim = %d, want 4082", train.Dim())
	}
	chain := oracles.MeanLoss(test, averagedPerceptron(train, 15, false))
	unary := oracles.MeanLoss(test, averagedPerceptron(train, 15, true))
	t.Logf("averaged perceptron test loss: chain %.3f, without transitions %.3f", chain, unary)
	if chain < 0.03 || chain > 0.3 {
		t.Errorf("chain test loss %.3f outside [0.03, 0.3]", chain)
	}
	if unary < chain+0.03 {
		t.Errorf("transitions do not help: %.3f without vs %.3f with", unary, chain)
	}
}
