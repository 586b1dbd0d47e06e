package align

import (
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/inference/matching"
	"github.com/fwstruct/fwstruct/oracles"
)

// Baseline is an unsupervised word aligner evaluated on test pairs.
type Baseline struct {
	// Name says what the baseline is.
	Name string
	// Threshold is the Dice threshold of the Dice matching, chosen on the
	// tuning pairs; NaN for the other baselines.
	Threshold float64
	// Pred holds the predicted labeling of every test pair: Pred[i][j] is
	// the French word aligned with English word j, -1 for none (the
	// labelings of oracles.Matching; Links turns one into links).
	Pred [][]int32
	// Counts are the alignment counts of Pred against the test pairs'
	// gold links (AER, precision, recall).
	Counts oracles.AlignmentCounts
}

// diceThresholds is the grid the Dice threshold is chosen from.
var diceThresholds = func() []float64 {
	var out []float64
	for t := 0.02; t < 0.99; t += 0.02 {
		out = append(out, math.Round(t*100)/100)
	}
	return out
}()

// Baselines returns the baselines of a supervised aligner on the test
// pairs, computed from the model's unaligned pairs alone:
//
//   - "dice matching": the maximum-weight matching of the Dice coefficients
//     minus a threshold (the links of Dice above the threshold that form
//     the best matching), the threshold (a multiple of 0.02) chosen for
//     the lowest AER on the gold links of the tune pairs;
//   - "IBM Model 1 intersection" and "diagonal IBM Model 2 intersection":
//     the links on which the two directional Viterbi alignments of the
//     aligner agree (Intersection).
//
// The pairs' links must lie within their sentences.
func (m *Model) Baselines(tune, test []Pair) ([]Baseline, error) {
	tuneGold, err := scorer(tune)
	if err != nil {
		return nil, fmt.Errorf("align: baselines: tuning pairs: %w", err)
	}
	testGold, err := scorer(test)
	if err != nil {
		return nil, fmt.Errorf("align: baselines: test pairs: %w", err)
	}
	bestT, bestAER := math.NaN(), math.Inf(1)
	for _, t := range diceThresholds {
		pred, err := m.diceMatchings(tune, t)
		if err != nil {
			return nil, fmt.Errorf("align: baselines: tuning pairs: %w", err)
		}
		if aer := tuneGold.Counts(pred).AER(); aer < bestAER {
			bestT, bestAER = t, aer
		}
	}
	dice := Baseline{Name: "dice matching", Threshold: bestT}
	if dice.Pred, err = m.diceMatchings(test, bestT); err != nil {
		return nil, fmt.Errorf("align: baselines: test pairs: %w", err)
	}
	out := []Baseline{dice}
	for _, a := range []Aligner{IBM1, DiagonalIBM2} {
		inter := Baseline{Name: a.String() + " intersection", Threshold: math.NaN(), Pred: make([][]int32, len(test))}
		for i, p := range test {
			inter.Pred[i] = linksLabeling(len(p.English), m.Intersection(p.English, p.French, a))
		}
		out = append(out, inter)
	}
	for k := range out {
		out[k].Counts = testGold.Counts(out[k].Pred)
	}
	return out, nil
}

// scorer returns a matching problem without features over the pairs,
// which scores their alignments against their gold links
// (oracles.Matching.Counts, as the shared task's scorer counts them).
func scorer(pairs []Pair) (*oracles.Matching, error) {
	ex := make([]oracles.MatchingExample, len(pairs))
	for i, p := range pairs {
		n, c := len(p.English), len(p.French)
		ex[i] = oracles.MatchingExample{Rows: n, Cols: c, Start: make([]int32, n*c+1), Sure: p.Sure, Possible: p.Possible}
	}
	return oracles.NewMatching(1, ex, oracles.MatchingCosts{})
}

// diceMatchings returns the Dice matching of every pair with threshold t.
func (m *Model) diceMatchings(pairs []Pair, t float64) ([][]int32, error) {
	var s matching.Solver
	out := make([][]int32, len(pairs))
	for i, p := range pairs {
		st := m.Sentence(p.English, p.French)
		w := make([]float64, len(st.Dice))
		for e, d := range st.Dice {
			w[e] = d - t
		}
		y, _, err := s.MaxWeight(st.Rows, st.Cols, w, nil)
		if err != nil {
			return nil, fmt.Errorf("pair %d (id %d): %w", i, p.ID, err)
		}
		out[i] = y
	}
	return out, nil
}

// linksLabeling returns the labeling of a matching given as links: y[j] =
// k for every link (j, k), -1 elsewhere.
func linksLabeling(rows int, links [][2]int32) []int32 {
	y := make([]int32, rows)
	for j := range y {
		y[j] = -1
	}
	for _, l := range links {
		y[l[0]] = l[1]
	}
	return y
}

// Links returns the links (j, y[j]) of a labeling, in increasing j: the
// inverse of the labeling of an oracles.Matching problem.
func Links(y []int32) [][2]int32 {
	var out [][2]int32
	for j, k := range y {
		if k >= 0 {
			out = append(out, [2]int32{int32(j), k})
		}
	}
	return out
}
