package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
)

// chunkCorpus returns n sentences of 1..maxT tokens from a toy grammar
// where the POS tag decides the chunk tag: DT and NN make noun phrases, VB
// verb phrases and PUNCT is outside (IOB2). The words carry no information
// beyond their POS.
func chunkCorpus(rng *rand.Rand, n, maxT int) []Sentence {
	out := make([]Sentence, n)
	for i := range out {
		T := 1 + rng.IntN(maxT)
		s := Sentence{Fields: make([][]string, 2), Line: 1 + i*(maxT+1)}
		prev := ""
		for range T {
			var pos, tag string
			switch rng.IntN(4) {
			case 0:
				pos, tag = "DT", "B-NP"
			case 1:
				pos, tag = "NN", "I-NP"
				if prev != "NP" {
					tag = "B-NP"
				}
			case 2:
				pos, tag = "VB", "B-VP"
			default:
				pos, tag = "PUNCT", "O"
			}
			prev = strings.TrimPrefix(strings.TrimPrefix(tag, "B-"), "I-")
			s.Fields[0] = append(s.Fields[0], fmt.Sprintf("%s%d", strings.ToLower(pos), rng.IntN(5)))
			s.Fields[1] = append(s.Fields[1], pos)
			s.Tags = append(s.Tags, tag)
		}
		out[i] = s
	}
	return out
}

// buildChunking builds the training and test problems of two corpora.
func buildChunking(t testing.TB, train, test []Sentence, minCount int) (*Chunking, *Chunking) {
	t.Helper()
	d, err := BuildDictionary(train, AttributeConfig{MinCount: minCount})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewChunking(train, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	te, err := NewChunking(test, d, tr.Tags)
	if err != nil {
		t.Fatal(err)
	}
	return tr, te
}

func TestNewChunking(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	train := chunkCorpus(rng, 40, 6)
	test := chunkCorpus(rng, 10, 6)
	// A test tag the training set lacks, and a word it never saw.
	test[0].Tags[0] = "B-LST"
	test[0].Fields[0][0] = "unseen"
	tr, te := buildChunking(t, train, test, 1)
	if want := []string{"B-NP", "B-VP", "I-NP", "O"}; !reflect.DeepEqual(tr.Tags, want) {
		t.Fatalf("tags %v, want %v", tr.Tags, want)
	}
	K, F := len(tr.Tags), tr.Dict.Len()
	if tr.Dim() != F*K+K*K+3*K || te.Dim() != tr.Dim() || tr.NumLabels() != K || tr.NumFeatures() != F {
		t.Fatalf("dimensions %d and %d with F = %d, K = %d", tr.Dim(), te.Dim(), F, K)
	}
	if tr.Unseen.Items != 0 || tr.Unseen.Labels != nil || tr.Dropped != 0 || tr.Unseen.Features != 0 {
		t.Errorf("training set: unseen %+v, %d dropped attributes; want none", tr.Unseen, tr.Dropped)
	}
	// The unseen tag is no label of the chain (not a fallback such as O).
	if te.Unseen.Items != 1 || !slices.Equal(te.Unseen.Labels, []string{"B-LST"}) || te.Unseen.Item != "token" || te.Truth(0)[0] != oracles.NoClass {
		t.Errorf("test set: unseen %+v, first label %d; want 1 token of B-LST, of no class", te.Unseen, te.Truth(0)[0])
	}
	if te.Unseen.Features != te.Dropped {
		t.Errorf("test set: Unseen.Features %d, Dropped %d", te.Unseen.Features, te.Dropped)
	}
	// "unseen" drops at least w[0] of token 0, then w[0]|w[1] there and
	// w[-1], w[-1]|w[0] at token 1 when it exists, and w[-2] at token 2.
	wantDropped := 1
	if T := test[0].Len(); T > 1 {
		wantDropped += 3
		if T > 2 {
			wantDropped++
		}
	}
	if te.Dropped < wantDropped {
		t.Errorf("test set: %d dropped attributes, want at least %d", te.Dropped, wantDropped)
	}
	for i := 0; i < tr.Len(); i++ {
		for k, l := range tr.Truth(i) {
			if tr.Tags[l] != train[i].Tags[k] {
				t.Fatalf("example %d token %d: label %d is %q, gold %q", i, k, l, tr.Tags[l], train[i].Tags[k])
			}
		}
	}
	if _, err := NewChunking(nil, tr.Dict, nil); err == nil {
		t.Error("no sentences: no error")
	}
	if _, err := NewChunking(train, tr.Dict, []string{"O", "O"}); err == nil {
		t.Error("repeated tag: no error")
	}
}

// TestChunkingConformance runs the conformance suite on tiny generated
// problems, where brute force enumerates the 4^T labelings.
func TestChunkingConformance(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	tr, te := buildChunking(t, chunkCorpus(rng, 30, 5), chunkCorpus(rng, 10, 5), 1)
	for _, p := range []*Chunking{tr, te} {
		oraclestest.Conformance(t, p, oraclestest.CheckOptions{Seed: 5})
	}
}

func TestChunkingEvaluate(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	tr, te := buildChunking(t, chunkCorpus(rng, 30, 8), chunkCorpus(rng, 12, 8), 1)
	truth := func(c *Chunking) [][]int32 {
		out := make([][]int32, c.Len())
		for i := range out {
			out[i] = c.Truth(i)
		}
		return out
	}
	c := tr.Evaluate(truth(tr))
	if c.Correct != c.Gold || c.Guessed != c.Gold || c.CorrectTags != c.Tokens || c.Gold == 0 {
		t.Errorf("the truth scores %+v, want every chunk and tag right", c)
	}
	// Shift every label by one: compare with ChunkEval on the strings.
	pred := truth(te)
	var e ChunkEval
	for i := range pred {
		y := append([]int32(nil), pred[i]...)
		for k := range y {
			y[k] = (y[k] + 1) % int32(len(te.Tags))
		}
		pred[i] = y
		e.Add(te.Sentences[i].Tags, te.TagStrings(i, y))
	}
	want := e.Counts()
	if got := te.Evaluate(pred); got != want {
		t.Errorf("Evaluate %+v, ChunkEval %+v", got, want)
	}
	m := te.Metrics(pred)
	names := []string{"chunk precision %", "chunk recall %", "chunk F1 %", "token accuracy %"}
	vals := []float64{want.Precision(), want.Recall(), want.F1(), want.Accuracy()}
	if len(m) != len(names) {
		t.Fatalf("%d metrics, want %d", len(m), len(names))
	}
	for k := range m {
		if m[k].Name != names[k] || !(m[k].Value == vals[k] || math.IsNaN(vals[k]) && math.IsNaN(m[k].Value)) {
			t.Errorf("metric %d: %s = %v, want %s = %v", k, m[k].Name, m[k].Value, names[k], vals[k])
		}
	}
	// A missing prediction leaves its sentence's tokens out.
	short := te.Evaluate(pred[:1])
	if short.Tokens != te.SeqLen(0) {
		t.Errorf("one prediction of %d tokens: %d tokens counted", te.SeqLen(0), short.Tokens)
	}
}

// TestChunkingUnseenTagCounts builds a test sentence whose gold tags are
// partly missing from training (issue 35, item 6): those tokens are errors
// of every prediction, in the chain's task loss as in conlleval's counts,
// and a loss of 0 is out of reach.
func TestChunkingUnseenTagCounts(t *testing.T) {
	train := []Sentence{sentence(1, []string{"B-NP", "I-NP", "O"}, []string{"the", "dog", "."}, []string{"DT", "NN", "."})}
	test := []Sentence{sentence(1, []string{"B-LST", "I-LST", "B-NP"}, []string{"(", "1", "dog"}, []string{"(", "CD", "NN"})}
	tr, te := buildChunking(t, train, test, 1)
	if te.Unseen.Items != 2 || !slices.Equal(te.Unseen.Labels, []string{"B-LST", "I-LST"}) {
		t.Fatalf("unseen %+v, want the 2 tokens of B-LST and I-LST", te.Unseen)
	}
	label := func(tag string) int32 { return int32(slices.Index(tr.Tags, tag)) }
	o, bnp := label("O"), label("B-NP")
	tests := []struct {
		name string
		pred []int32
		want ChunkCounts
		loss float64
	}{
		// Gold chunks: LST [0,2), NP [2,3). With O at the unseen tokens:
		// one guessed chunk, NP [2,3), correct; only token 2 right. The
		// fallback O once counted as the truth there: loss 0.
		{"O at the unseen tokens", []int32{o, o, bnp}, ChunkCounts{Correct: 1, Guessed: 1, Gold: 2, CorrectTags: 1, Tokens: 3}, 2.0 / 3},
		{"every token wrong", []int32{bnp, bnp, o}, ChunkCounts{Correct: 0, Guessed: 2, Gold: 2, CorrectTags: 0, Tokens: 3}, 1},
	}
	for _, tc := range tests {
		got := te.Evaluate([][]int32{tc.pred})
		if got != tc.want {
			t.Errorf("%s: counts %+v, want %+v", tc.name, got, tc.want)
		}
		// The task loss is the token error rate that conlleval counts.
		if loss := te.Loss(0, tc.pred); loss != tc.loss || math.Abs(loss-(1-got.Accuracy()/100)) > 1e-12 {
			t.Errorf("%s: loss %v, want %v = 1 - token accuracy %v%%", tc.name, loss, tc.loss, got.Accuracy())
		}
	}
	// Whatever the weights, the test loss counts the unseen tokens.
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 5; trial++ {
		w := oraclestest.Weights(rng, te.Dim(), 1)
		if l := oracles.MeanLoss(te, w); l < 2.0/3 {
			t.Errorf("test loss %v below the 2/3 of the unseen tokens", l)
		}
	}
	// The problem stays consistent: psi and the max oracle agree with
	// brute force on the sentence with tokens of no class (small weights:
	// the max oracle can score below 0 there, see oracles.NoClass).
	oraclestest.Conformance(t, te, oraclestest.CheckOptions{Scale: 0.01})
}

func TestChunkingRender(t *testing.T) {
	s := sentence(1, strings.Fields("B-NP B-VP B-NP I-NP I-NP I-NP O"),
		strings.Fields("He reckons the current account deficit ."), strings.Fields("PRP VBZ DT JJ NN NN ."))
	d, err := BuildDictionary([]Sentence{s}, AttributeConfig{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewChunking([]Sentence{s}, d, []string{"B-NP", "B-VP", "I-NP", "O"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.Render(0, nil), "[NP He] [VP reckons] [NP the current account deficit] ."; got != want {
		t.Errorf("gold: %q, want %q", got, want)
	}
	// O B-VP I-NP I-NP B-NP B-VP ? (label 7 is out of range): IOB1 reads
	// I-NP after B-VP as the start of an NP.
	y := []int32{3, 1, 2, 2, 0, 1, 7}
	if got, want := c.Render(0, y), "He [VP reckons] [NP the current] [NP account] [VP deficit] [ .]"; got != want {
		t.Errorf("prediction: %q, want %q", got, want)
	}
}

func TestChunkingHoldOut(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 48))
	tr, _ := buildChunking(t, chunkCorpus(rng, 20, 5), chunkCorpus(rng, 2, 5), 1)
	fit, held, err := tr.HoldOut(0.1)
	if err != nil {
		t.Fatal(err)
	}
	if fit.Len() != 18 || held.Len() != 2 || fit.Dim() != tr.Dim() || held.Dim() != tr.Dim() {
		t.Fatalf("HoldOut(0.1) of 20: %d and %d sentences of dimension %d and %d", fit.Len(), held.Len(), fit.Dim(), held.Dim())
	}
	for i := 0; i < tr.Len(); i++ {
		part, j := fit, i
		if i >= 18 {
			part, j = held, i-18
		}
		if !reflect.DeepEqual(part.Truth(j), tr.Truth(i)) || !reflect.DeepEqual(part.Features(j, 0), tr.Features(i, 0)) {
			t.Fatalf("sentence %d differs after HoldOut", i)
		}
	}
	if _, held, _ := tr.HoldOut(0.01); held == nil || held.Len() != 1 {
		t.Error("a fraction of 1% of 20 sentences does not hold one out")
	}
	for _, frac := range []float64{0, 1, -0.5, math.NaN(), 0.99} {
		if _, _, err := tr.HoldOut(frac); err == nil {
			t.Errorf("HoldOut(%v): no error", frac)
		}
	}
}

var _ oracles.Problem = (*Chunking)(nil)

// predictAll returns the predictions of w on every example of c.
func predictAll(c *Chunking, w []float64) [][]int32 {
	out := make([][]int32, c.Len())
	for i := range out {
		out[i] = c.Predict(i, w, nil)
	}
	return out
}

// TestChunkingLearnable checks the whole path (attributes, chain, Viterbi,
// chunk scores) by learning the toy grammar of chunkCorpus, where the POS
// tags and the previous tag decide the chunk tags: a perceptron gets every
// test chunk right.
func TestChunkingLearnable(t *testing.T) {
	rng := rand.New(rand.NewPCG(49, 50))
	tr, te := buildChunking(t, chunkCorpus(rng, 200, 10), chunkCorpus(rng, 50, 10), DefaultMinCount)
	w := averagedPerceptron(tr.Chain, 3, false) // synthetic_test.go
	c := te.Evaluate(predictAll(te, w))
	if c.Correct != c.Gold || c.Guessed != c.Gold || c.Gold == 0 {
		t.Errorf("test chunks after training: %+v, want all right", c)
	}
}
