package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
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
	if tr.UnseenTags != 0 || tr.Dropped != 0 {
		t.Errorf("training set: %d unseen tags, %d dropped attributes; want 0, 0", tr.UnseenTags, tr.Dropped)
	}
	if te.UnseenTags != 1 || te.Truth(0)[0] != 3 { // the fallback is O, label 3
		t.Errorf("test set: %d unseen tags, first label %d; want 1 and the label of O (3)", te.UnseenTags, te.Truth(0)[0])
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

// TestChunkingUnseenTagCounts builds a test sentence whose gold tag is
// missing from training: the chain's truth (with the fallback O) scores
// less than 100 against the gold strings.
func TestChunkingUnseenTagCounts(t *testing.T) {
	train := []Sentence{sentence(1, []string{"B-NP", "I-NP", "O"}, []string{"the", "dog", "."}, []string{"DT", "NN", "."})}
	test := []Sentence{sentence(1, []string{"B-LST", "I-LST", "B-NP"}, []string{"(", "1", "dog"}, []string{"(", "CD", "NN"})}
	_, te := buildChunking(t, train, test, 1)
	// Gold chunks: LST [0,2), NP [2,3). The truth labels of the chain are
	// O O B-NP (both LST tags unseen): one guessed chunk, NP [2,3),
	// correct. Tags: only token 2 right.
	got := te.Evaluate([][]int32{te.Truth(0)})
	want := ChunkCounts{Correct: 1, Guessed: 1, Gold: 2, CorrectTags: 1, Tokens: 3}
	if got != want || te.UnseenTags != 2 {
		t.Errorf("counts %+v with %d unseen tags, want %+v with 2", got, te.UnseenTags, want)
	}
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
