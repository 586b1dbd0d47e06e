// Package core holds the machinery the solver families share below their
// algorithms: the one loop every solver runs (Loop, which drives an Engine
// on the schedule of exact evaluations and the criteria of run.Stop, with
// the seam where parallel executors go), the block samplers (uniform,
// permutation, gap sampling of Osokin et al. 2016, Alg. 2, and the
// example-grouped permutation of the soft solver), the lazy weighted
// average of the iterates (Lacoste-Julien et al. 2013, App. C), the exact
// line search, the validation of the settings and Stop criteria every
// family shares, the workers of a pass over the examples (Parallel, taken
// in chunks, every item writing its own slot so that the result does not
// depend on the timing) and the checkpoint plumbing (random state, draws,
// versioned gob files). The executions of block steps, with their worker
// pool, are package solver/execution's.
//
// It is internal: the families (packages solver, solver/soft and
// solver/kernel) build on it, and their users see only package run.
package core
