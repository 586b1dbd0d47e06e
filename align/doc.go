// Package align holds the unsupervised word-alignment models that stand
// beside the structural SVM of word alignment (oracles.Matching, whose
// features package datasets computes): the corpus statistics and EM
// aligners the features read, and the baselines the SSVM is compared with.
//
// Train counts, on unaligned sentence pairs, how many pairs hold each word
// and each pair of words (Dice coefficients) and how often each word occurs
// (frequency ranks), and trains two directional aligners by EM in both
// directions, each with a NULL word on the generating side: IBM Model 1
// (Brown et al. 1993) and the diagonal reparameterization of IBM Model 2 of
// Dyer, Chahuneau and Smith (2013, fast_align). Model.Sentence gives the
// statistics of any sentence pair (Dice coefficients, Model 1's
// translation probabilities, posteriors and Viterbi links), Intersection
// the links on which the two Viterbi alignments of an aligner agree.
//
// Model.Baselines evaluates the unsupervised aligners on gold pairs: the
// Dice matching (the maximum-weight matching of Dice minus a threshold
// tuned on other gold pairs) and the intersected IBM Model 1 and diagonal
// IBM Model 2 alignments, scored by the alignment error rate
// (oracles.AlignmentCounts).
//
// A labeling of a sentence pair is that of oracles.Matching: y[j] is the
// French word aligned with English word j, -1 for none; Links turns it
// into links (j, k).
package align
