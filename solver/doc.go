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
//
// # Every core: mini-batch, asynchronous and simulated executions of BCFW
//
// Wang, Sadhanala, Dai, Neiswanger, Sra and Xing (2016, "Parallel and
// Distributed Block-Coordinate Frank-Wolfe Algorithms", ICML; arXiv
// 1409.6086) give BCFW a parallel theory: Alg. 1 (AP-BCFW) has workers
// solve block oracles on a possibly stale iterate while a server applies
// the updates of tau distinct blocks at a time; the synchronous mini-batch
// is the case without delay, and their analysis depends on the expected,
// not the worst, delay. Three executions of BCFW's block steps implement it
// over one queue of oracle answers in flight (minibatch.go):
//
//   - Config.Batch = tau (mini-batch, minibatch.go): tau distinct blocks
//     (core.Sampler.Distinct), their oracle calls in parallel on the
//     workers against one w, their steps applied in draw order. The run
//     depends on the seed and tau only, never on the worker count: this is
//     why tau is a Config field and the workers an Option (a checkpoint
//     resumes the same run on any machine, and TestGoldenWorkers holds).
//     The CLI's --workers N > 1 sets --batch N unless --batch is given.
//   - Config.Async (async.go): the workers solve oracles on their own copy
//     of w; the updater applies the answers as they arrive. Not
//     reproducible bit for bit.
//   - Config.SimulateWorkers = K (delay.go): the asynchronous schedule of K
//     equally fast workers run sequentially and deterministically (each
//     answer applied K-1 steps after the iterate it saw), so passes-to-gap
//     at 8, 16 or 64 workers can be measured on any machine; K = 1 is BCFW
//     bit for bit.
//
// Each block step keeps its own exact line search at the current iterate,
// with the answer's score recomputed there; the paper instead moves along
// the combined direction of the batch with one step size (predefined or
// line-searched). The two agree for FW steps with the predefined step size
// (steps on distinct blocks commute); the per-block search is our choice,
// as it needs no cross terms between the blocks' directions and applies
// unchanged to pairwise and away steps, box constraints and the gap-based
// cache. Every reported gap is computed at the one iterate the updater
// holds, so certificates stay exact.
//
// All three combine with every sampling, FW, pairwise and away steps, box
// constraints, averaging and the gap-based cache (the cache rule is
// evaluated at the w of a block's draw; a block expected to hit gets no
// oracle call in advance). They refuse, each with a one-line error:
// multi-plane BCFW (its approximate passes call no oracle and are
// sequential by design; the workers parallelize its exact gap passes),
// exact block steps (sequential by definition), the batch algorithms FW,
// the cutting plane and SSG (FW and the cutting plane already call every
// oracle of an iteration against one w, on the workers), and a relative
// approximate oracle (its accuracy condition is relative to the dual
// state at the current w). The soft-constraint solver (solver/soft) does
// not take them, by design: its blocks are the nodes of factor graphs and
// a block's "oracle" is an argmax over one node's table, a microsecond of
// memory-bound work that a hand-off to another goroutine costs more than;
// its workers parallelize the gap passes. The kernelized solver
// (solver/kernel) does not take them either, because it needs none: its
// oracle is a kernel sum over the support vectors whose kernel values
// depend on the inputs only, so its workers compute the kernel rows of
// the next steps' blocks ahead (a kernel block, for the samplings whose
// draws can be guessed: uniform, permutation, shrinking's sweeps; gap
// sampling splits its one row over them) while the steps themselves,
// scores at the current alpha and the update, stay sequential: the run is
// the sequential run bit for bit whatever the number of workers, for every
// sampling (solver/kernel's "Parallel steps"). The CLI refuses --batch,
// --async and --simulate-workers for both; --workers applies.
//
// What they buy, measured on a quiet 2-core machine (one run each,
// interleaved, solver time): LP-hard BCFW on Yeast (lambda 0.01, 20
// passes; nearly all of its time is the LP oracle) 19.1 s with one worker,
// 17.2 s as a mini-batch of 2 (1.11x) and 10.9 s asynchronous with 2
// workers (1.76x), at the same primal within 0.1%. On the horses (graph
// cut, lambda 1e-4, to gap 0.001, about 270 passes) both are slower than
// one worker: 6.0 s sequential, 8.9-9.8 s as a mini-batch of 2, 7.7-8.4 s
// asynchronous; their oracle streams ~360 KB of features a call, so two
// cores share one memory bandwidth, and the hand-off of every batch costs
// on top. Measure before choosing: `fwstruct train ... --workers 2` against
// `--workers 1`, and --simulate-workers K for the passes K workers would
// need.
package solver
