// Package solver trains structural SVMs with the block-coordinate
// Frank-Wolfe family and its baselines, one type per method, each holding
// only the knobs it reads:
//
//   - BCFW: block-coordinate Frank-Wolfe (Lacoste-Julien et al. 2013,
//     Alg. 4) with the variants of Osokin et al. (2016): gap sampling
//     (Alg. 2), pairwise and away steps (Alg. 3, 4), the gap-based cache
//     (Alg. 5), averaging, box constraints (App. H); Recommended returns
//     the one we recommend;
//   - MultiPlane: multi-plane BCFW (Shah, Kolmogorov and Lampert 2015,
//     Alg. 3), the other policy for reusing old planes;
//   - Exact: exact block steps with shrinking for multiclass problems, the
//     sequential dual method of liblinear's Crammer-Singer solver;
//   - LPHard: BCFW on the LP relaxation of a factor graph (Meshi et al.
//     2015's baseline);
//   - FW (batch Frank-Wolfe, Alg. 2), SSG (the stochastic subgradient
//     baseline), CuttingPlane (the 1-slack cutting-plane method as fully
//     corrective Frank-Wolfe) and OnlineEG (online exponentiated gradient
//     on chains);
//
// and beside them the regularization path (RegPath, Osokin et al. 2016,
// Alg. 6, 7) and grid search (GridSearch). Every method is a run.Method:
// New builds its solver on a problem, the registry (run.Lookup, run.Load)
// knows it by name, and its value encodes as JSON (run.Encode), which is
// how checkpoints, model files and notebook sessions record it. The
// executions of the block steps (sequential, mini-batch, asynchronous,
// simulated) are values of package solver/execution given to New with
// run.WithExecution, not knobs of a method.
//
// The objective (Lacoste-Julien et al. 2013, eq. 3) is
//
//	min_w  lambda/2 |w|^2 + 1/n sum_i max_y ( L_i(y) - <w, psi_i(y)> )
//
// and the solvers work on its dual, keeping w = sum_i w_i and
// ell = sum_i ell_i. A Solver is a value that can run a few passes, stop, be
// inspected, be saved, and go on.
//
// Methods, wiring and results are apart: a method holds the
// hyperparameters (what a checkpoint keeps and a notebook session
// compares); the test set, the progress callback, the worker count and the
// execution are run.Options; Run takes a run.Stop and returns a run.Result
// that says which iterate it describes; the trace is a slice of run.Point.
// Every method compiles to the plan of one engine (config), so that the
// methods share one loop, one checkpoint and one set of tests; the
// engine's plan is internal, and a pair of knobs that must not be combined
// lives in two types rather than in one with a rule.
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
// is the case without delay, and their analysis (Theorem 3 and its
// corollaries) depends on the expected, not the worst, delay.
//
// An execution (package solver/execution, given with run.WithExecution)
// schedules the block steps of BCFW, LP-hard and multi-plane BCFW. The
// engine exposes its block step once, as an execution.Steps (steps.go),
// and knows its execution only as the execution.Scheduler built over it,
// which makes every step; the scheduling (queues, batches drawn ahead,
// the worker pool, the asynchronous workers, the simulator's answers in
// flight and their place in a checkpoint) is the execution package's. A
// step splits into a read part and a write part (ahead.go):
//
//   - when its block is drawn, Begin fixes what the read part reads of the
//     solver's state besides w and the block (the block's stale gap, the
//     cache's global gap);
//   - the read part scores the block's cached corners, applies the cache
//     rule, calls the max oracle when the rule misses and computes the
//     corner of the answer (psi, loss, Gram row), at the w the scheduler
//     gives it: it reads the block's own state and writes nothing but its
//     entry, so it may run on any goroutine while the solver's goroutine
//     writes other blocks (a scheduler never has a block under way twice);
//   - the write part is the line search and the update of the block and
//     of w, on the solver's goroutine, told how many steps old the read is.
//
// Besides those, the seam draws blocks with the method's sampling (one, or
// tau distinct ones excluding those under way), copies w (into a ring of
// buffers, at the cost of the coordinates written since), makes a whole
// sequential step, says how many steps the method allows before it must
// decide again (the rest of a multi-plane pass) and gives the checkpoint
// form of a read part. Every step's line search is exact at the iterate it
// is applied to (the scores of its corners are recomputed there when w
// moved since the read), so the dual never decreases; an evaluation, a
// checkpoint and the end of a Run settle the scheduler first (no read part
// under way), so every reported gap is computed at the one iterate the
// updater holds and certificates stay exact; the steps under way are part
// of the checkpoint, so split and resumed runs continue bit for bit. The
// executions differ in where and when the read parts run:
//
//   - sequential (nil, execution.Sequential, or a MiniBatch of one block
//     without lookahead): every step reads and writes the current iterate;
//   - execution.MiniBatch{Batch: tau, Lookahead: L}: tau distinct blocks
//     (core.Sampler.Distinct), their read parts computed on a pool of
//     workers at a copy of w taken at the draw, their steps written in draw
//     order, each as soon as its read part is there; with L > 0, L batches
//     are drawn ahead of the one being written, so that the workers
//     compute them meanwhile (answers at most (L+1) tau - 1 steps old). The
//     run depends on the seed, tau and L only, never on the number of
//     workers or the timing: a checkpoint resumes the same run on any
//     machine, and TestGoldenWorkers holds;
//   - execution.Async: the workers compute read parts on their own copy of
//     w; the updater writes them as they arrive. Not reproducible bit for
//     bit;
//   - execution.Simulated{Workers: K}: the asynchronous schedule of K
//     equally fast workers run sequentially and deterministically (each
//     answer written K-1 steps after the iterate it saw, or after a delay
//     drawn from its Delays, e.g. those Solver.Delays measured in a real
//     asynchronous run), so passes-to-gap at 8, 16 or 64 workers can be
//     measured on any machine; K = 1 is BCFW bit for bit.
//
// The paper moves along the combined direction of a batch with one step
// size (predefined or line-searched); here each block of the batch makes
// its own line search at the current iterate. The two agree for FW steps
// with the predefined step size (steps on distinct blocks commute); the
// per-block search is our choice, as it needs no cross terms between the
// blocks' directions and applies unchanged to pairwise and away steps, box
// constraints and the gap-based cache.
//
// All three combine with every sampling, FW, pairwise and away steps, box
// constraints, averaging and the gap-based cache (the cache rule is
// evaluated at the w of a block's read part); the mini-batch also with
// multi-plane BCFW (its batches end with its passes, whose kind the slope
// rule decides when one ends; the simulator and the asynchronous
// execution refuse it for that reason). A method says which executions it
// cannot be run by in one place, where the two are combined (when a
// solver is made, loaded or forked), each refusal a one-line error: exact
// block steps (each block's solve reads the w the previous one left), the
// algorithms without BCFW's block steps, FW, the cutting plane, SSG and
// online EG (FW and the cutting plane already call every oracle of an
// iteration against one w, on the workers), and a relative approximate oracle with any execution
// that reads ahead (its accuracy condition is relative to the dual state
// at the current w). The soft-constraint solver (solver/soft) does not
// take them, by design: its blocks are the nodes of factor graphs and a
// block's "oracle" is an argmax over one node's table, a microsecond of
// memory-bound work that a hand-off to another goroutine costs more than;
// its workers parallelize the gap passes. The kernelized solver
// (solver/kernel) does not take them either, because it needs none: its
// oracle is a kernel sum over the support vectors whose kernel values
// depend on the inputs only, so its workers compute the kernel rows of the
// next steps' blocks ahead (a kernel block, for the samplings whose draws
// can be guessed: uniform, permutation, shrinking's sweeps; gap sampling
// splits its one row over them) while the steps themselves, scores at the
// current alpha and the update, stay sequential: the run is the
// sequential run bit for bit whatever the number of workers, for every
// sampling (solver/kernel's "Parallel steps"); run.WithWorkers applies.
//
// What they buy depends on what a step's time is. When the oracle is
// nearly all of a step (LP-hard BCFW, whose oracle solves an LP), the read
// parts run in parallel and a mini-batch or the asynchronous execution
// pays; the deterministic order of the mini-batch waits for a slow read
// part, the asynchronous execution writes the others first, and a larger
// lookahead waits less but its staler answers cost passes. When the cache
// answers most steps, a step's time is the scoring of the cached corners
// and the update, which both stream the corner sets from memory: two cores
// contend for it, and a mini-batch adds passes from its staleness, while
// the gap passes, oracle calls at one w, still parallelize. WithLateLosses
// (lateloss.go) takes the test losses of a trace point off the path of
// sequential steps: its predictions run on a goroutine of their own, at a
// copy of w, while the steps that follow go on, and the point is appended
// when they are done, the same bit for bit. The gap passes feed the
// algorithm (the sampler's gaps, the cache's global gap), so they run
// between the steps. Without an execution the workers parallelize the gap
// passes and evaluations and leave the steps sequential; an execution is
// the explicit choice. Measure before choosing: the run with two workers
// and a mini-batch (and a lookahead) against one worker, and the
// simulator at K workers for the passes K workers would need. The
// measured speedups are in docs/performance.md ("Every core").
//
// # The reference code of Osokin et al. (gapBCFW)
//
// The MATLAB code of Osokin et al. (2016), github.com/aosokin/gapBCFW,
// runs by default (solver_BCFW_hybrid.m) pairwise steps with gap sampling
// and the cache: F 0.25, nu 0.01, 100 corners a block, an exact gap pass
// (gap_check) every 10 passes of n block visits. The same run here is
//
//	BCFW{Sampling: run.GapSamplingInOrder, Step: Pairwise,
//		Cache: &Cache{F: 0.25, Nu: 0.01, MaxSize: 100, InitialGap: 1},
//		GapEvery: 10}
//
// with run.Stop{Gap: eps, EarlyCheck: 0.8} for its gap_threshold eps
// (ExampleBCFW_gapBCFW). Both count the same things: effective passes
// are oracle calls / n, a gap pass counting n; GapEvery counts block
// visits, cache hits included, as gap_check does; the gap pass refreshes
// the block gaps of the sampler and the cache's global gap, and the run
// stops after the first one whose gap is at most eps. Three things it does
// are not in the paper's pseudo-code; they are options here, off by
// default:
//
//   - its first pass visits the blocks in index order (its weighted draw
//     over the infinite initial gaps picks the first infinite one), where
//     Alg. 2 draws proportionally to g_i = +Inf: run.GapSamplingInOrder;
//   - the cache's global gap before the first gap pass is 1
//     (init_gap_value_for_cache; the gap at w = 0 for losses at most 1),
//     where Alg. 5 starts from g(0) = +Inf: Cache.InitialGap;
//   - an exact gap pass as soon as the sum of the stale block gaps falls
//     below 0.8 times the target (quit_passes_heuristic_gap):
//     Stop.EarlyCheck.
//
// Left as they are: a full cache of theirs evicts, when a new corner comes
// in, the corner without dual mass that scores lowest at the current w,
// ours (after the step) the one unused for longest (the paper does not
// say); a max-oracle answer whose H_i is negative beyond 1e-12 (an
// oracle that missed the ground truth) is replaced by the ground truth
// with a warning there, used as returned here (a step towards it has a
// negative numerator and makes no move; a negative certified gap is the
// run's error); negative block gaps of rounding size are set to 0 there and
// weigh 0 in the draws here; and the random numbers differ, so that runs
// compare as medians over seeds.
//
// TestGapBCFWScheduleOCR checks that this configuration's median effective
// passes on OCR-small at lambda 0.0373 (their demo_ocr.m) to gap 0.09 stay
// within 0.5 of gapBCFW's; the measured passes of both are in
// docs/methods.md ("Against the reference code of Osokin et al.").
package solver
