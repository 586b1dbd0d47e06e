package oracles

import "math"

// AlignmentCounts are the link counts of a word alignment A (the predicted
// links) against gold sure links S and possible links P (S included), the
// counts behind the alignment error rate of Och and Ney (2003) and the
// scorer of the HLT-NAACL 2003 shared task, wa_eval_align.pl. Counts add
// up over sentences (the scores are micro-averaged over the corpus, as the
// scorer computes them).
type AlignmentCounts struct {
	Predicted    int // |A|
	Sure         int // |S|
	Possible     int // |P|, sure links included
	SureHits     int // |A & S|
	PossibleHits int // |A & P|
}

// Add returns the sum of two counts.
func (c AlignmentCounts) Add(o AlignmentCounts) AlignmentCounts {
	return AlignmentCounts{
		Predicted:    c.Predicted + o.Predicted,
		Sure:         c.Sure + o.Sure,
		Possible:     c.Possible + o.Possible,
		SureHits:     c.SureHits + o.SureHits,
		PossibleHits: c.PossibleHits + o.PossibleHits,
	}
}

// ratio returns a/b, NaN when b is 0 (a score that is not defined).
func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// AER returns the alignment error rate 1 - (|A & S| + |A & P|) / (|A| + |S|),
// NaN when A and S are both empty. (wa_eval_align.pl prints 0 for an empty
// A, whatever S; the formula gives 1 when S is not empty.)
func (c AlignmentCounts) AER() float64 {
	return 1 - ratio(c.SureHits+c.PossibleHits, c.Predicted+c.Sure)
}

// Precision returns |A & P| / |A|, the precision of Och and Ney (2003)
// and Taskar et al. (2005): the "Evaluation of PROBABLE alignments,
// Precision" of wa_eval_align.pl for a submission whose links are all
// marked sure (or unmarked). NaN when A is empty (the scorer prints 0).
func (c AlignmentCounts) Precision() float64 { return ratio(c.PossibleHits, c.Predicted) }

// Recall returns |A & S| / |S|, the recall of Och and Ney (2003) and
// Taskar et al. (2005): the scorer's "Evaluation of SURE alignments,
// Recall" for a submission of sure links. NaN when S is empty.
func (c AlignmentCounts) Recall() float64 { return ratio(c.SureHits, c.Sure) }

// SurePrecision returns |A & S| / |A|, the scorer's "SURE Precision".
func (c AlignmentCounts) SurePrecision() float64 { return ratio(c.SureHits, c.Predicted) }

// PossibleRecall returns |A & P| / |P|, the scorer's "PROBABLE Recall"
// (its denominator, the number of S lines plus the number of P lines of
// the gold file, is |P| when every link is listed once).
func (c AlignmentCounts) PossibleRecall() float64 { return ratio(c.PossibleHits, c.Possible) }

// Counts returns the alignment counts of the labelings pred[i] of every
// example against their sure and possible edges. A labeling that is not a
// matching of its example (wrong length, a column twice) is counted
// as an empty alignment.
func (m *Matching) Counts(pred [][]int32) AlignmentCounts {
	var c AlignmentCounts
	for i := range m.examples {
		c = c.Add(m.examples[i].counts(pred[i]))
	}
	return c
}

// Score predicts every example with the weights w and returns the
// alignment counts of the predictions: Score(w).AER() is the test AER of
// a model.
func (m *Matching) Score(w []float64) AlignmentCounts {
	var c AlignmentCounts
	var y []int32
	for i := range m.examples {
		y = m.Predict(i, w, y)
		c = c.Add(m.examples[i].counts(y))
	}
	return c
}

// counts returns the alignment counts of y on one example.
func (ex *matchingExample) counts(y []int32) AlignmentCounts {
	c := AlignmentCounts{Sure: len(ex.Sure), Possible: len(ex.Sure) + len(ex.Possible)}
	if !ex.valid(y) {
		return c
	}
	for j, k := range y {
		if k < 0 {
			continue
		}
		c.Predicted++
		switch ex.gold[j*ex.Cols+int(k)] {
		case edgeSure:
			c.SureHits++
			c.PossibleHits++
		case edgePossible:
			c.PossibleHits++
		}
	}
	return c
}

// Metrics returns the alignment error rate, precision and recall of the
// predictions (AlignmentCounts.AER, Precision, Recall), over the whole
// set, as wa_eval_align.pl computes them.
func (m *Matching) Metrics(pred [][]int32) []Metric {
	c := m.Counts(pred)
	return []Metric{{"AER", c.AER()}, {"precision", c.Precision()}, {"recall", c.Recall()}}
}
