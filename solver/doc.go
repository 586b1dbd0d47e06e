// Package solver trains structural SVMs with the block-coordinate
// Frank-Wolfe family: one configurable engine whose dimensions are
// orthogonal, as in Osokin et al. (2016): sampling (uniform, permutation,
// gap) x step (FW, pairwise, away) x plane reuse (off, the gap-based F/nu
// cache, or the multi-plane working sets of Shah et al. 2015) x weighted
// averaging x box constraints, plus batch Frank-Wolfe, the stochastic
// subgradient baseline and the 1-slack cutting-plane method
// (Config.Algorithm), and the regularization path (RegPath).
//
// The objective (Lacoste-Julien et al. 2013, eq. 3) is
//
//	min_w  lambda/2 |w|^2 + 1/n sum_i max_y ( L_i(y) - <w, psi_i(y)> )
//
// and the solvers work on its dual, keeping w = sum_i w_i and
// ell = sum_i ell_i. A Solver is a value that can run a few passes, stop, be
// inspected, be saved, and go on.
//
// Settings, wiring and results are apart: Config holds the hyperparameters
// (what a checkpoint keeps and a notebook session compares); the test set,
// the progress callback, the worker count and the block storage are Options;
// Run takes a run.Stop and returns a run.Result that says which iterate it
// describes; the trace is a slice of run.Point.
//
// # Where it sits
//
// This is the solvers layer of fwstruct. Below it, the models (package
// oracles, package factorgraph's views), which call the inference
// algorithms (inference/...); beside it, the sibling families solver/soft
// (soft constraints over factor graphs) and solver/kernel (kernelized BCFW
// and FW), which share its vocabulary (solver/run: Stop, Result, the trace
// point, the Algorithm, Sampling and StepSize settings) and its machinery
// (one loop, the samplers, the averages: solver/internal/core), and pass
// the same conformance suite (solver/run/runtest). Above it, the
// presentation layer (viz, the notebook layer ssvmnb, cmd/fwstruct) drives
// any family through run.Solver. The package knows nothing about files,
// plots or notebooks.
package solver
