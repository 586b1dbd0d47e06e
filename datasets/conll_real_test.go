package datasets

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/fwstruct/fwstruct/internal/race"
	"github.com/fwstruct/fwstruct/internal/realdata"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
)

// truthLabels returns the chain's ground truth of every example, with the
// label of O at the tokens of no class (a tag unseen in training).
func truthLabels(c *Chunking) [][]int32 {
	o := int32(slices.Index(c.Tags, "O"))
	out := make([][]int32, c.Len())
	for i := range out {
		out[i] = slices.Clone(c.Truth(i))
		for t, l := range out[i] {
			if l == oracles.NoClass {
				out[i][t] = o
			}
		}
	}
	return out
}

// TestRealConll checks the counts of CoNLL-2000 and runs the conformance
// suite on real sentences.
func TestRealConll(t *testing.T) {
	realdata.File(t, "conll2000/train.txt.gz")
	root := realdata.Dir(t)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	train, test, err := LoadConll(root, ConllOptions{})
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&after)
	t.Logf("loaded in %v; heap %.1f MB (sentences, dictionary, both chains)", elapsed, float64(after.HeapAlloc-before.HeapAlloc)/1e6)
	tokens := func(c *Chunking) (n int) {
		for i := 0; i < c.Len(); i++ {
			n += c.SeqLen(i)
		}
		return n
	}
	// 74,658 in Osokin et al. (2016, App. I.2): see DefaultMinCount.
	const F, K = 75289, 22
	if train.Len() != 8936 || test.Len() != 2012 || tokens(train) != 211727 || tokens(test) != 47377 {
		t.Errorf("%d/%d sentences, %d/%d tokens; want 8936/2012, 211727/47377", train.Len(), test.Len(), tokens(train), tokens(test))
	}
	if len(train.Tags) != K || train.Dict.Len() != F || train.Dict.Seen() != 335674 || train.Dim() != F*K+K*K+3*K || test.Dim() != train.Dim() {
		t.Errorf("%d tags, %d features of %d attributes, d = %d", len(train.Tags), train.Dict.Len(), train.Dict.Seen(), train.Dim())
	}
	if test.Unseen.Items != 2 || !slices.Equal(test.Unseen.Labels, []string{"I-LST"}) || train.Unseen.Items != 0 {
		t.Errorf("unseen %+v (test), %+v (train); want the 2 tokens of I-LST, none", test.Unseen, train.Unseen)
	}
	t.Logf("d = %d; attribute occurrences dropped: %d (train), %d (test); longest sentence %d tokens", train.Dim(), train.Dropped, test.Dropped, train.MaxLen())

	// The truth scores 100 on the training set. On the test set, the two
	// I-LST tokens (unseen in training) follow B-LST tokens, "( 1" and
	// "( 2": gold LST chunks of two tokens; predicted O there, the LST
	// chunks end after one token. Same number of chunks, two of them
	// wrong, two tags wrong, and two tokens wrong in the task loss (the
	// chain's truth there is no label, not O).
	if c := train.Evaluate(truthLabels(train)); c.Correct != c.Gold || c.Guessed != c.Gold || c.CorrectTags != c.Tokens {
		t.Errorf("training truth: %+v", c)
	}
	best := truthLabels(test)
	if c := test.Evaluate(best); c.Guessed != c.Gold || c.Correct != c.Gold-2 || c.CorrectTags != c.Tokens-2 {
		t.Errorf("test truth: %+v, want 2 chunks and 2 tags wrong", c)
	}
	wrong := 0
	for i := range best {
		wrong += int(math.Round(test.Loss(i, best[i]) * float64(test.SeqLen(i))))
	}
	if wrong != 2 {
		t.Errorf("the best prediction has %d tokens wrong in the task loss, want the 2 of I-LST", wrong)
	}

	// Memory: the chain stores 4 bytes per non-zero (binary features) and
	// per position; a pass of oracles and psi allocates only its scratch,
	// O(length * features) per goroutine, not O(d) (a dense psi scratch
	// would be 9 bytes per coordinate: 15 MB).
	nnz, positions := 0, tokens(train)
	for i := 0; i < train.Len(); i++ {
		for k := 0; k < train.SeqLen(i); k++ {
			nnz += len(train.Features(i, k).Idx)
		}
	}
	w := oraclestest.Weights(rand.New(rand.NewPCG(1, 2)), train.Dim(), 0.1)
	var psi oracles.SparseVec
	var y []int32
	runtime.ReadMemStats(&before)
	for i := 0; i < train.Len(); i++ {
		y, _ = train.MaxOracle(i, w, y)
		train.Psi(i, y, &psi)
	}
	runtime.ReadMemStats(&after)
	scratch := float64(after.TotalAlloc - before.TotalAlloc)
	t.Logf("training chain: %d non-zeros, %.1f MB; a pass of MaxOracle and Psi allocates %.3f MB (scratch and buffers)",
		nnz, float64(4*nnz+8*positions+4*train.Len())/1e6, scratch/1e6)
	if scratch > 2e6 && !race.Enabled { // sync.Pool drops scratch under -race
		t.Errorf("a pass allocates %.1f MB, want the scratch of one goroutine, far below 9 bytes x d = %.1f MB", scratch/1e6, 9*float64(train.Dim())/1e6)
	}

	// CRFsuite's example keeps every attribute.
	all, err := BuildDictionary(train.Sentences, AttributeConfig{MinCount: 1})
	if err != nil {
		t.Fatal(err)
	}
	if all.Len() != 335674 {
		t.Errorf("every attribute: %d features, want 335674", all.Len())
	}
	// The training set drops the occurrences of the attributes seen once
	// or twice.
	rare := 0
	for f := 0; f < all.Len(); f++ {
		if all.Count(f) < DefaultMinCount {
			rare += all.Count(f)
		}
	}
	if train.Dropped != rare {
		t.Errorf("%d attribute occurrences dropped from the training set, want the %d of attributes seen fewer than %d times", train.Dropped, rare, DefaultMinCount)
	}

	// Brute force on the shortest real sentences (22^3 labelings at most),
	// with the real dictionary and dimension.
	var short []Sentence
	for _, s := range train.Sentences {
		if s.Len() <= 3 && len(short) < 8 {
			short = append(short, s)
		}
	}
	p, err := NewChunking(short, train.Dict, train.Tags)
	if err != nil {
		t.Fatal(err)
	}
	oraclestest.Conformance(t, p, oraclestest.CheckOptions{Seed: 1, Weights: 2})
	oraclestest.Conformance(t, train, oraclestest.CheckOptions{Seed: 2, Examples: 12, Weights: 2, Scale: 0.1})
	oraclestest.Conformance(t, test, oraclestest.CheckOptions{Seed: 3, Examples: 6, Weights: 1, Scale: 0.1})
}

// TestRealConllPerceptron checks the features end to end: two epochs of the
// averaged perceptron reach a test chunk F1 above 92.5 (93.06 measured;
// linear-chain models with these features reach 93-94).
func TestRealConllPerceptron(t *testing.T) {
	realdata.File(t, "conll2000/train.txt.gz")
	train, test, err := LoadConll(realdata.Dir(t), ConllOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w := averagedPerceptron(train.Chain, 2, false)
	c := test.Evaluate(predictAll(test, w))
	t.Logf("test: %+v; precision %.2f recall %.2f F1 %.2f accuracy %.2f", c, c.Precision(), c.Recall(), c.F1(), c.Accuracy())
	if c.F1() < 92.5 {
		t.Errorf("test chunk F1 %.2f after two perceptron epochs, want at least 92.5", c.F1())
	}
}
