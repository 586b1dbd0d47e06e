// Package chain is exact inference on chains: K states at each of T
// positions, a score per position and state (the unary table) and a score
// per pair of successive states (the transition table, shared by every
// position).
//
// Viterbi maximizes the total score, the max oracle and the prediction of
// the linear-chain model oracles.Chain (the OCR and CoNLL experiments of
// Lacoste-Julien et al. 2013, Sec. 6, and Osokin et al. 2016, App. I). It
// is the max-sum algorithm of package maxsum specialized to a chain whose
// transitions are one dense K x K table: the forward pass is a max-plus
// product per position, which runs in SIMD on amd64.
//
// Marginals is the forward-backward algorithm in log space: the node and
// summed edge marginals of the Gibbs distribution the same tables define,
// the expectation oracle of online exponentiated gradient (Collins et al.
// 2008).
//
// Like every package under inference, it works on tables and knows nothing
// of features, losses or solvers: the models of packages oracles and
// factorgraph fill the tables from their weights and call it.
package chain
