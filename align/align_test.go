package align

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
)

// lexicon pairs English words with their French translations.
var lexicon = [][2]string{
	{"the", "le"}, {"house", "maison"}, {"minister", "ministre"}, {"of", "de"}, {"summer", "été"},
	{"government", "gouvernement"}, {"today", "aujourd'hui"}, {"question", "question"}, {"member", "député"},
	{"we", "nous"}, {"must", "devons"}, {"act", "agir"}, {"canada", "canada"}, {"people", "gens"}, {"very", "très"},
	{"good", "bon"}, {"country", "pays"}, {"law", "loi"}, {"year", "année"}, {"work", "travail"},
}

// corpus returns n sentence pairs of 3 to 6 words each, the French side
// the word-by-word translation of the English side with one pair of
// neighbours swapped in every third sentence; Sure holds the true links.
func corpus(n int, seed uint64) []Pair {
	rng := rand.New(rand.NewPCG(seed, 5))
	pairs := make([]Pair, n)
	for i := range pairs {
		m := 3 + rng.IntN(4)
		p := Pair{ID: i + 1, English: make([]string, m), French: make([]string, m)}
		perm := make([]int, m) // English word j goes to French position perm[j]
		for j := range perm {
			perm[j] = j
		}
		if i%3 == 0 {
			k := rng.IntN(m - 1)
			perm[k], perm[k+1] = perm[k+1], perm[k]
		}
		for j := range p.English {
			w := lexicon[rng.IntN(len(lexicon))]
			p.English[j], p.French[perm[j]] = w[0], w[1]
			p.Sure = append(p.Sure, [2]int32{int32(j), int32(perm[j])})
		}
		pairs[i] = p
	}
	return pairs
}

func trained(t *testing.T) *Model {
	t.Helper()
	m, err := Train(corpus(400, 1), 5)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestTrainErrors(t *testing.T) {
	if _, err := Train(nil, 5); err == nil || !strings.Contains(err.Error(), "no sentence pairs") {
		t.Errorf("no pairs: %v", err)
	}
	if _, err := Train(corpus(3, 1), 0); err == nil || !strings.Contains(err.Error(), "EM iteration") {
		t.Errorf("no EM iteration: %v", err)
	}
}

func TestRanks(t *testing.T) {
	rank, logFreq := ranks([]int32{5, 2, 5, 1})
	if !slices.Equal(rank, []int32{1, 3, 1, 4}) {
		t.Errorf("ranks %v, want [1 3 1 4] (ties share a rank)", rank)
	}
	top := math.Log1p(5)
	for k, want := range []float64{1, math.Log1p(2) / top, 1, math.Log1p(1) / top} {
		if math.Abs(float64(logFreq[k])-want) > 1e-6 {
			t.Errorf("logFreq[%d] = %v, want %v", k, logFreq[k], want)
		}
	}
}

func TestSentence(t *testing.T) {
	m := trained(t)
	st := m.Sentence([]string{"The", "house", "zebra"}, []string{"la", "maison", "le"})
	if st.Rows != 3 || st.Cols != 3 || len(st.Dice) != 9 || len(st.English) != 3 || len(st.ViterbiEF) != 3 || len(st.ViterbiFE) != 3 {
		t.Fatalf("shape: %d x %d, %d Dice, %d words", st.Rows, st.Cols, len(st.Dice), len(st.English))
	}
	at := func(j, k int) int { return j*st.Cols + k }
	// Words compare in lower case; a translation pair has a Dice near 1,
	// others a small one; unseen words none.
	if d := st.Dice[at(0, 2)]; d < 0.9 {
		t.Errorf("Dice(the, le) = %v, want near 1", d)
	}
	if d := st.Dice[at(1, 1)]; d < 0.9 {
		t.Errorf("Dice(house, maison) = %v, want near 1", d)
	}
	if d := st.Dice[at(1, 2)]; d > 0.4 {
		t.Errorf("Dice(house, le) = %v, want small", d)
	}
	for k := 0; k < 3; k++ {
		if st.Dice[at(2, k)] != 0 || st.TEF[at(2, k)] != tFloor {
			t.Errorf("unseen zebra: Dice %v, t %v", st.Dice[at(2, k)], st.TEF[at(2, k)])
		}
	}
	if w := st.English[2]; w != (Word{}) {
		t.Errorf("unseen word %+v, want zero", w)
	}
	if w := st.English[0]; w.Tokens == 0 || w.Rank < 1 || !(w.LogFreq > 0 && w.LogFreq <= 1) {
		t.Errorf("seen word %+v", w)
	}
	// The posteriors of a target word (NULL aside) sum to at most 1; the
	// Viterbi links of the translations are found both ways.
	for k := 0; k < 3; k++ {
		var sum float64
		for j := 0; j < 3; j++ {
			sum += st.PostEF[at(j, k)]
		}
		if sum > 1+1e-12 {
			t.Errorf("posteriors of French word %d sum to %v", k, sum)
		}
	}
	if st.ViterbiEF[1] != 1 || st.ViterbiFE[1] != 1 || st.ViterbiEF[2] != 0 || st.ViterbiFE[0] != 2 {
		t.Errorf("Viterbi links EF %v, FE %v", st.ViterbiEF, st.ViterbiFE)
	}
	if st.PostEF[at(1, 1)] < 0.5 || st.TEF[at(1, 1)] < 0.5 || st.TFE[at(1, 1)] < 0.5 {
		t.Errorf("house -> maison: posterior %v, t %v and %v", st.PostEF[at(1, 1)], st.TEF[at(1, 1)], st.TFE[at(1, 1)])
	}
}

func TestIntersection(t *testing.T) {
	m := trained(t)
	for _, a := range []Aligner{IBM1, DiagonalIBM2} {
		// The words of every lexicon pair, the French side in another order.
		en := []string{"the", "minister", "of", "summer"}
		fr := []string{"le", "ministre", "été", "de"}
		got := m.Intersection(en, fr, a)
		want := [][2]int32{{0, 0}, {1, 1}, {2, 3}, {3, 2}}
		if !slices.Equal(got, want) {
			t.Errorf("%v: intersection %v, want %v", a, got, want)
		}
	}
	if s := Aligner(7).String(); s != "Aligner(7)" {
		t.Errorf("String of an unknown aligner: %q", s)
	}
}

func TestBaselines(t *testing.T) {
	m := trained(t)
	tune, test := corpus(30, 2), corpus(40, 3)
	bs, err := m.Baselines(tune, test)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"dice matching", "IBM Model 1 intersection", "diagonal IBM Model 2 intersection"}
	if len(bs) != len(names) {
		t.Fatalf("%d baselines", len(bs))
	}
	gold, err := scorer(test)
	if err != nil {
		t.Fatal(err)
	}
	for k, b := range bs {
		if b.Name != names[k] || len(b.Pred) != len(test) || math.IsNaN(b.Threshold) != (k > 0) {
			t.Errorf("baseline %d: %s, %d predictions, threshold %v", k, b.Name, len(b.Pred), b.Threshold)
		}
		if b.Counts != gold.Counts(b.Pred) || b.Counts.Sure != len(slices.Concat(pairLinks(test)...)) {
			t.Errorf("%s: counts %+v", b.Name, b.Counts)
		}
		if aer := b.Counts.AER(); !(aer < 0.2) {
			t.Errorf("%s: AER %v on the synthetic corpus, want < 0.2", b.Name, aer)
		}
	}
	if th := bs[0].Threshold; !slices.Contains(diceThresholds, th) {
		t.Errorf("threshold %v not in the grid", th)
	}
	bad := corpus(2, 4)
	bad[1].Sure = append(bad[1].Sure, [2]int32{0, 99})
	if _, err := m.Baselines(bad, test); err == nil || !strings.Contains(err.Error(), "tuning pairs") {
		t.Errorf("a link outside its sentence: %v", err)
	}
	if _, err := m.Baselines(tune, bad); err == nil || !strings.Contains(err.Error(), "test pairs") {
		t.Errorf("a link outside its sentence: %v", err)
	}
}

func pairLinks(pairs []Pair) [][][2]int32 {
	var out [][][2]int32
	for _, p := range pairs {
		out = append(out, p.Sure)
	}
	return out
}

func TestLinks(t *testing.T) {
	y := []int32{2, -1, 0}
	links := Links(y)
	if len(links) != 2 || links[0] != [2]int32{0, 2} || links[1] != [2]int32{2, 0} {
		t.Fatalf("Links(%v) = %v", y, links)
	}
	if got := linksLabeling(3, links); !oracles.SameLabeling(got, y) {
		t.Fatalf("linksLabeling = %v, want %v", got, y)
	}
}
