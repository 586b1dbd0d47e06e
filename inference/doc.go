// Package inference is the home of the inference algorithms that the
// structured models call: maximizations (and, later, marginals) over
// discrete labelings, on graphs and tables of scores. It holds no code
// itself; its subpackages are the algorithms.
//
// fwstruct is built in layers, each knowing only the ones below it:
//
//   - models: package oracles (the oracles.Problem interface, chains,
//     multi-class, graph-cut segmentation) and package factorgraph (models
//     over factor graphs and their exact, LP-relaxed and rounded views)
//     turn weights into tables of scores and call inference;
//   - inference (the subpackages of this directory) works on those graphs
//     and tables only: it knows nothing of features, losses, oracles or
//     solvers;
//   - solvers: package solver (BCFW and its variants), solver/soft and
//     solver/kernel, over solver/run, train on models through
//     oracles.Problem (or, for solver/soft, a factorgraph.Model);
//   - presentation: viz, ssvmnb (the notebook API, used by the notebooks)
//     and cmd/fwstruct.
//
// The packages:
//
//   - chain: Viterbi on chains (oracles.Chain);
//   - lp: the simplex method for the LP relaxations over the local
//     polytope (factorgraph.Relaxed and factorgraph.Rounded);
//   - matching: maximum-weight bipartite matching (the Hungarian method;
//     the decoding of word alignments);
//   - maxflow: Boykov-Kolmogorov max-flow / min-cut (the graph-cut oracle
//     of oracles.Segmentation).
//
// One inference algorithm lives elsewhere on purpose: exact max-sum on
// forests (and the Gray-code enumeration for small cyclic graphs) stays in
// package factorgraph, because it runs on the graph's own node order,
// parent links and packed score tables, which are the model's internals;
// moving it would export that layout for one caller.
package inference
