// Package lp solves linear programs in standard form,
//
//	minimize cᵀx  subject to  A x = b,  x >= 0,
//
// with the two-phase primal simplex method on a dense tableau (Dantzig's
// rule, with Bland's rule after a run of degenerate pivots so that the
// method cannot cycle; Bland 1977, "New finite pivoting rules for the
// simplex method", Math. Oper. Res. 2(2)).
//
// It is built for many linear programs that share A and b and differ in c,
// such as the LP relaxations of MAP inference over the local marginal
// polytope that a max oracle solves once per example and call (Meshi et al.
// 2015, eq. 4; the Relaxed and Rounded views of package factorgraph build
// the program of each graph once): New runs phase I once, keeps
// the canonical tableau of a feasible basis and drops redundant rows; every
// Solve copies that tableau and runs phase II only, without allocating
// (given a reused Workspace). A returned solution is a basic feasible
// solution, i.e. a vertex of the polytope {x >= 0 : A x = b}.
//
// gonum.org/v1/gonum/optimize/convex/lp.Simplex solves the same problems and
// is the reference this package is tested against; it refactors the basis
// from scratch at every pivot (three dense LU solves) and has no way to
// reuse a phase I across problems. BenchmarkYeastSimplex and
// BenchmarkYeastGonumLP in package factorgraph time the two on the 287 x
// 392 local-polytope LPs of the Yeast multi-label model (figures in
// docs/performance.md).
//
// Like every package under inference, it knows nothing of features,
// losses or solvers.
package lp
