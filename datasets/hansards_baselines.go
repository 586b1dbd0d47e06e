package datasets

import (
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/inference/matching"
	"github.com/fwstruct/fwstruct/oracles"
)

// AlignmentBaseline is an unsupervised word aligner evaluated on the test
// pairs of a Hansards split.
type AlignmentBaseline struct {
	// Name says what the baseline is.
	Name string
	// Threshold is the Dice threshold of the Dice matching, chosen on the
	// gold training pairs; NaN for the other baselines.
	Threshold float64
	// Pred holds the predicted labeling of every test pair (the
	// labelings of Hansards.Test).
	Pred [][]int32
	// Counts are the alignment counts of Pred on the test pairs (AER,
	// precision, recall).
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

// Baselines returns the baselines of the matching model on the test
// pairs, computed from the unaligned pairs alone:
//
//   - "dice matching": the maximum-weight matching of the Dice coefficients
//     minus a threshold (the links of Dice above the threshold that form
//     the best matching), the threshold (a multiple of 0.02) chosen for
//     the lowest AER on the gold training pairs (the first TrainGold);
//   - "IBM Model 1 intersection" and "diagonal IBM Model 2 intersection":
//     the links on which the two directional Viterbi alignments of the
//     aligner agree.
func (h *Hansards) Baselines() ([]AlignmentBaseline, error) {
	goldTrain, err := h.Model.Problem(h.Gold[:h.TrainGold])
	if err != nil {
		return nil, fmt.Errorf("hansards baselines: %w", err)
	}
	bestT, bestAER := math.NaN(), math.Inf(1)
	for _, t := range diceThresholds {
		aer := goldTrain.Counts(h.Model.diceMatchings(h.Gold[:h.TrainGold], t)).AER()
		if aer < bestAER {
			bestT, bestAER = t, aer
		}
	}
	dice := AlignmentBaseline{Name: "dice matching", Threshold: bestT, Pred: h.Model.diceMatchings(h.TestPairs, bestT)}
	out := []AlignmentBaseline{dice}
	for _, a := range []aligner{ibm1, diagonalIBM2} {
		inter := AlignmentBaseline{Name: a.String() + " intersection", Threshold: math.NaN(), Pred: make([][]int32, len(h.TestPairs))}
		for i, p := range h.TestPairs {
			inter.Pred[i] = linksLabeling(len(p.English), h.Model.intersection(p.English, p.French, a))
		}
		out = append(out, inter)
	}
	for k := range out {
		out[k].Counts = h.Test.Counts(out[k].Pred)
	}
	return out, nil
}

// diceMatchings returns the Dice matching of every pair with threshold t.
func (m *AlignmentModel) diceMatchings(pairs []AlignedPair, t float64) [][]int32 {
	var s matching.Solver
	out := make([][]int32, len(pairs))
	for i, p := range pairs {
		st := m.stats(p.English, p.French)
		w := make([]float64, len(st.dice))
		for e, d := range st.dice {
			w[e] = d - t
		}
		y, _, err := s.MaxWeight(st.rows, st.cols, w, nil)
		if err != nil { // Dice coefficients are finite
			panic(err)
		}
		out[i] = y
	}
	return out
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
// inverse of the labeling of a Matching problem.
func Links(y []int32) [][2]int32 {
	var out [][2]int32
	for j, k := range y {
		if k >= 0 {
			out = append(out, [2]int32{int32(j), k})
		}
	}
	return out
}
