// Package kernel is the kernelized block-coordinate Frank-Wolfe solver of
// Lacoste-Julien et al. (2013), App. B.5 (Alg. B.1), and its batch variant
// (Alg. 2 kernelized), a sibling of package solver.
//
// It keeps the dual variables explicitly, alpha_i on the simplex of the
// classes of example i, and never w: w = A alpha lives in the feature space
// of a joint kernel and is used only through kernel expansions. For the
// Crammer-Singer multiclass SVM (oracles.Multiclass) with the joint kernel
// k((x, y), (x', y')) = k(x, x') [y = y'],
//
//	<w, phi(x, c)> = 1/(lambda n) sum_j beta_j(c) k(x_j, x),
//	beta_j(c) = [c = y_j] - alpha_j(c),
//
// a sum over the support vectors (the examples whose alpha_j is not on
// their ground truth), which gives the max oracle, the predictions and
// every dot product of the line search (Alg. 4) reconstructed implicitly:
//
//	g_i   = lambda <w_i - w_s, w> - ell_i + ell_s = (H_i(y*) - sum_c alpha_i(c) H_i(c))/n,
//	|w_i - w_s|^2 = k(x_i, x_i) |alpha_i - e_{y*}|^2 / (lambda n)^2.
//
// The duality gap stays a certificate: the primal lambda/2 |w|^2 + 1/n
// sum_i max_y H_i(y; w) is computed through the expansion (|w|^2 =
// 1/(lambda n) sum_j sum_c beta_j(c) <w, phi(x_j, c)>) by an exact oracle
// pass. With the linear kernel the solver follows the iterates of
// solver.Solver on the same problem and seed, up to rounding.
//
// Kernel rows can be cached within a memory budget (CacheBytes); the runs are
// driven by the evaluation schedule of solver/internal/core (core.Loop), and
// the solver implements run.Solver.
//
// # Kernel blocks
//
// Every kernel value is computed within a kernel block: the values of a
// tile of support vectors against many queries, so that each support
// vector's input is read from memory once for all of them (one value at a
// time, each streams a whole input from memory, and memory bounds the
// speed). A gap pass, the test error and batch FW's line search sweep all
// their queries in chunks; a step computes its row with those of the next
// blocks the sampling will draw. The values are bit for bit those of one
// dot product at a time, so blocks change no result.
//
// # Parallel steps
//
// A BCFW step (Alg. B.1, exact steps too) splits into what only reads the
// inputs, the kernel values of block i against the support vectors, and
// what reads and writes the iterate: the scores at the current alpha, the
// oracle, the update of alpha_i. With run.WithWorkers(W) the workers compute
// the kernel block of a step's row and of the next blocks' rows (its tiles
// spread over them), and the solver's goroutine applies the steps one by
// one in the order of the draws, each summing its scores at the current
// alpha from its row, the values of support vectors that joined since
// computed then. Every step is the sequential step, so the run is the
// sequential run bit for bit whatever W, for every sampling: uniform and
// permutation sampling and shrinking's sweeps are guessed ahead from a
// copy of the state (a wrong guess costs time, never a result); gap
// sampling draws each block from the gaps the previous step left, so it
// guesses nothing and its one row is split over the workers. Unlike the
// mini-batches of package solver (tau distinct blocks against one w, a run
// that depends on tau), nothing here changes the trajectory: a kernel
// step's oracle is a kernel sum whose terms parallelize by themselves.
// Every gap is computed at the one iterate the solver holds, so
// certificates stay exact.
package kernel

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// Solver is the state of one kernelized run.
type Solver struct {
	p      *oracles.Multiclass
	cfg    config
	n, k   int // examples, classes
	lambda float64
	in     *inputs
	diag   []float64 // k(x_i, x_i)

	alpha []float64 // n*k, alpha_i(c) at alpha[i*k+c]
	sv    supportSet
	ell   float64       // b^T alpha, maintained by the steps, re-anchored at gap passes
	avg   *core.Average // weighted average of alpha (nil when off)

	gapEst    []float64 // stale block gaps, +Inf before the first visit
	est       core.EstimateSum
	exactGaps []float64 // block gaps of the last exact pass
	exactAt   int64
	exactGap  float64

	samp *core.Sampler
	pcg  *rand.PCG
	rng  *rand.Rand

	steps, calls int64
	loop         core.Loop
	trace        []run.Point
	pending      *pass // batch FW: the oracle pass at the current iterate
	cache        *rowCache
	ahead        ahead          // kernel rows of the next steps' blocks
	blocks       []blockScratch // the workers' scratch of kernel blocks

	wiring
	scores    []float64 // k scores of the current block
	z, sorted []float64 // scratch of the exact step

	active    core.ActiveSet // the blocks of shrinking (Exact.Shrinking)
	globalGap float64        // the gap of the last gap pass (+Inf before)
}

func defaultWorkers() int { return runtime.GOMAXPROCS(0) }

// newSolver returns a kernelized solver running plan cfg on the multiclass
// problem p at the starting point alpha_i = e_{y_i} (w = 0).
func newSolver(p *oracles.Multiclass, cfg config, opts ...run.Option) (*Solver, error) {
	if p == nil || p.Len() < 1 {
		return nil, errors.New("kernel: need a multiclass problem with at least one example")
	}
	o, err := run.Wiring(opts)
	if err != nil {
		return nil, fmt.Errorf("kernel: %w", err)
	}
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	n, k := p.Len(), p.NumClasses()
	for i := 0; i < n; i++ {
		if p.Truth(i)[0] == oracles.NoClass {
			return nil, fmt.Errorf("kernel: training example %d has no class (oracles.NoClass: a label only test data may have)", i)
		}
	}
	s := &Solver{p: p, cfg: cfg, n: n, k: k, lambda: cfg.Lambda, in: newInputs(p)}
	if err := s.wire(o); err != nil {
		return nil, err
	}
	s.diag = make([]float64, n)
	for i := range s.diag {
		s.diag[i] = cfg.Kernel.between(s.in, i, s.in, i)
		if math.IsNaN(s.diag[i]) || math.IsInf(s.diag[i], 0) {
			return nil, fmt.Errorf("kernel: k(x_%d, x_%d) = %v", i, i, s.diag[i])
		}
	}
	s.alpha = make([]float64, n*k)
	for i := 0; i < n; i++ {
		s.alpha[i*k+int(s.in.y[i])] = 1
	}
	s.sv = newSupportSet(n)
	if cfg.Averaging {
		s.avg = core.NewAverage(n*k, run.WeightedAverage)
	}
	s.gapEst = make([]float64, n)
	for i := range s.gapEst {
		s.gapEst[i] = math.Inf(1)
	}
	s.est.Reset(s.gapEst)
	s.samp = core.NewSampler(cfg.Sampling, n)
	s.pcg = rand.NewPCG(cfg.Seed, 0x5eed_f00d_bcf0) // solver.Solver's stream
	s.rng = rand.New(s.pcg)
	s.scores = make([]float64, k)
	s.z, s.sorted = make([]float64, k), make([]float64, k)
	s.globalGap = math.Inf(1)
	if cfg.Shrinking {
		s.active.Reset(s.gapEst)
	}
	if cfg.Algorithm == run.FW {
		s.loop = core.NewLoop(1, cfg.GapEvery, cfg.TraceEvery, core.GapPasses)
	} else {
		s.loop = core.NewLoop(int64(n), cfg.GapEvery, cfg.TraceEvery, core.GapPasses)
	}
	return s, nil
}

// Run optimizes until a criterion of stop is met or ctx is canceled (see
// solver.Solver.Run: the same schedule, budget and statuses).
func (s *Solver) Run(ctx context.Context, stop run.Stop) (run.Result, error) {
	if err := s.checkStoppable(ctx, stop); err != nil {
		return run.Result{}, err
	}
	var e core.Engine = engine{s}
	if s.cfg.Algorithm == run.FW {
		e = batchEngine{engine{s}}
	}
	st, err := s.loop.Run(ctx, stop, e)
	last, _ := s.Last()
	return run.Result{Status: st, Last: last, Current: len(s.trace) > 0 && s.loop.LastEval == s.steps}, err
}

// checkStoppable validates stop and refuses a run that could never end.
func (s *Solver) checkStoppable(ctx context.Context, stop run.Stop) error {
	st := core.Stoppable{GapEvery: s.cfg.GapEvery, TraceEvery: s.cfg.TraceEvery}
	if s.cfg.Algorithm != run.BCFW {
		st.NoEstimate = fmt.Sprintf("%v keeps no gap estimates; Stop.GapEstimate needs bcfw", s.cfg.Algorithm)
	}
	if err := core.CheckStop(ctx, stop, st); err != nil {
		return fmt.Errorf("kernel: %w", err)
	}
	return nil
}

// engine adapts the solver to core.Loop: kernelized BCFW (Alg. B.1).
type engine struct{ s *Solver }

func (e engine) Step() error               { e.s.bcfwStep(); return nil }
func (e engine) Clock() int64              { return e.s.steps }
func (e engine) Passes() float64           { return e.s.Passes() }
func (e engine) Record(refresh bool) error { return e.s.record(refresh) }

// batchEngine is kernelized batch FW (the kernelized Alg. 2), a
// core.Batch engine.
type batchEngine struct{ engine }

func (e batchEngine) Step() error { return e.s.fwStep() }

// StepCost is a pass for a batch FW iteration, unless it reuses the
// counted oracle pass of a gap evaluation at the current iterate.
func (e batchEngine) StepCost() float64 {
	if e.s.pendingCounted() {
		return 0
	}
	return 1
}

// RecordCost: a gap evaluation counts its pass (which the next iteration
// reuses), an observe-only one nothing.
func (e batchEngine) RecordCost(refresh bool) float64 {
	if refresh {
		return 1
	}
	return 0
}

func (e engine) EarlyCheckDue(stop run.Stop) bool {
	s := e.s
	if s.cfg.Shrinking && s.active.Settled && !s.refreshedNow() {
		return true // every block settled: a gap pass unshrinks them
	}
	return stop.EarlyCheck > 0 && stop.Gap > 0 && s.cfg.Algorithm == run.BCFW &&
		s.loop.LastEval != s.steps && s.est.Sum() <= stop.EarlyCheck*stop.Gap
}

// refreshedNow reports whether a gap pass was made at the current step
// (an observe-only evaluation there, Current's, does not count: it must
// not change the run).
func (s *Solver) refreshedNow() bool {
	for k := len(s.trace) - 1; k >= 0 && s.trace[k].Steps == s.steps; k-- {
		if s.trace[k].Refresh {
			return true
		}
	}
	return false
}

func (e engine) Reached(stop run.Stop) (run.Status, bool) {
	s := e.s
	if stop.Gap > 0 && s.exactAt == s.steps && s.exactGaps != nil && s.exactGap <= stop.Gap {
		return run.StatusConverged, true
	}
	if stop.GapEstimate > 0 && s.cfg.Algorithm == run.BCFW && s.est.Sum() <= stop.GapEstimate {
		return run.StatusEstimateConverged, true
	}
	return 0, false
}

// Current returns an exact evaluation of the current iterate, appending an
// observe-only point unless the last one describes it.
func (s *Solver) Current() (run.Point, error) {
	if last, ok := s.Last(); ok && s.loop.LastEval == s.steps {
		return last, nil
	}
	if err := s.record(false); err != nil {
		return run.Point{}, err
	}
	last, _ := s.Last()
	return last, nil
}

// Evaluate computes an exact evaluation of the current iterate without
// recording it or changing any state.
func (s *Solver) Evaluate() (run.Point, error) {
	pt, _ := s.evaluate(false)
	err := core.Certify(&pt)
	return pt, err
}

// Trace returns a copy of the trace.
func (s *Solver) Trace() []run.Point { return append([]run.Point(nil), s.trace...) }

// Last returns the last trace point (ok false before the first).
func (s *Solver) Last() (run.Point, bool) {
	if len(s.trace) == 0 {
		return run.Point{}, false
	}
	return s.trace[len(s.trace)-1], true
}

// Passes returns the effective passes (oracle calls / n).
func (s *Solver) Passes() float64 { return float64(s.calls) / float64(s.n) }

// OracleCalls returns the max-oracle calls made by the algorithm.
func (s *Solver) OracleCalls() int64 { return s.calls }

// Steps returns the block steps (FW: iterations) made so far.
func (s *Solver) Steps() int64 { return s.steps }

// Elapsed returns the solver time (evaluations excluded).
func (s *Solver) Elapsed() time.Duration { return s.loop.Elapsed }

// Problem returns the training problem.
func (s *Solver) Problem() *oracles.Multiclass { return s.p }

// SupportVectors returns the number of support vectors of the current
// iterate: the examples whose dual variables are off their ground truth
// (beta_i != 0), the terms of the kernel expansion of w.
func (s *Solver) SupportVectors() int { return s.sv.len() }

// Alpha returns a copy of the dual variables of example i (alpha_i(c) for
// the k classes).
func (s *Solver) Alpha(i int) []float64 {
	return append([]float64(nil), s.alpha[i*s.k:(i+1)*s.k]...)
}

// CacheStats returns the kernel entries the steps read from the row cache
// and those they computed through it, and the memory it holds; zeros
// without a cache. The hit rate is hits / (hits + misses).
func (s *Solver) CacheStats() (hits, misses, bytes int64) {
	if s.cache == nil {
		return 0, 0, 0
	}
	return s.cache.hits, s.cache.misses, s.cache.bytes()
}

// GapEstimate returns the sum of the stale block gaps (+Inf while a block
// is unvisited; NaN for FW).
func (s *Solver) GapEstimate() float64 {
	if s.cfg.Algorithm != run.BCFW {
		return math.NaN()
	}
	return s.est.Sum()
}

var _ run.Solver = (*Solver)(nil)
