// Package factorgraph holds structured models written as factor graphs, the
// form of Meshi, Srebro and Hazan (2015), "Efficient training of structured
// SVMs via soft constraints" (AISTATS 2015), and the hard
// views of them that the example-level solvers train on.
//
// # Model
//
// Every example m has its own Graph: discrete variables i with cardinalities
// |Y_i|, and factors c over subsets of them. Meshi's index alpha runs over
// both: in this package the nodes of a graph are numbered with the
// variables first (alpha = i for i < NumVars) and the factors after them
// (alpha = NumVars + c). A node's joint states y_alpha are numbered
// row-major over its scope, the last variable fastest:
// s = (...(y_{v1} |Y_{v2}| + y_{v2}) |Y_{v3}| + ...) + y_{vk}, so that the
// state of variable v_j is (s / Stride_j) mod |Y_{vj}|.
//
// The score decomposes over nodes (Meshi eq. 2-3):
//
//	<w, phi(x, y)> = sum_alpha <w, phi_alpha(x, y_alpha)>,
//
// and each phi_alpha is a sum of feature Terms: a Term takes one input
// vector x of the example (or the constant 1) and places x ⊗ e_slot(y_alpha)
// at the coordinates Offset + f*Slots + slot of the shared weight vector,
// where the Template of the term maps every state of the node to a slot
// (or to none, -1). Terms of different nodes and examples that share an
// Offset share weights (the emission weights of every position of a chain),
// terms with their own Offset have their own (the per-label weights w_i of
// the multi-label model).
//
// The task loss decomposes the same way, Delta(y, y^m) = sum_alpha
// Delta_alpha(y_alpha, y^m_alpha), with a loss table per node (normalized
// Hamming by default: 1/NumVars on every wrong variable, none on factors).
//
// # Views
//
// A Model is not itself an oracles.Problem: the example-level solvers train
// on one of its views, all with whole examples as blocks.
//
//   - Exact: labelings are assignments of the variables; the max oracle is
//     exact MAP, max-sum on forests (trees and chains) and a Gray-code
//     enumeration of every labeling otherwise.
//   - Relaxed: Meshi's "LP-hard" problem, the relaxation of eq. 3 over the
//     local marginal polytope (eq. 4). Its labelings encode vertices mu of
//     the polytope, its max oracle solves the LP relaxation of
//     loss-augmented MAP with the simplex method of package lp
//     (inference/lp).
//   - Rounded: labelings are assignments; the max oracle and Predict solve
//     the LP and round it (Meshi Sec. 6, "a simple rounding scheme"). It is
//     oracles.Approximate, its Exact view certifying gaps.
//
// # Node by node
//
// Meshi's factor-level Alg. 1 (package solver/soft) works on the same
// Model directly, with blocks (m, alpha) for every example and node
// (Graph.NumNodes per example). The model gives it the node-level
// quantities of eq. 2-3: NodeScores the scores <w, phi_alpha(x, y_alpha)>,
// Theta the node scores theta^(m)_alpha(y_alpha; w) relative to the truth,
// NodeLoss the loss vectors l, TrueState, Inputs and the graph's structure
// (Scope, Strides, Terms, VarFactors: N_i). What is the soft solver's own,
// the agreement variables delta, the reparameterized scores and the slot
// form of its steps, lives in its internal package nodes.
//
// # Where this package sits
//
// fwstruct is built in layers: models (package oracles and this package)
// compute features, losses and scores and call inference (the packages
// under inference/: Viterbi, max-flow, the LP; see package inference);
// solvers (packages solver, solver/soft, solver/kernel) train on models;
// viz, ssvmnb (the notebook API) and cmd/fwstruct present them. This
// package knows nothing of solvers: its views are oracles.Problem values,
// its Model is what solver/soft reads.
package factorgraph
