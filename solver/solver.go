package solver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/execution"
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// Solver is the state of one optimization run.
type Solver struct {
	p      oracles.Problem
	cfg    config
	n, d   int
	lambda float64
	box    *Box                 // cfg.Box intersected with the problem's own bounds; nil when none
	train  *oracles.Fingerprint // of p, computed by the first Save or by Load

	x     *iterate      // v = A alpha, w = [v], the averages
	ell   float64       // ell = b^T alpha
	ellI  []float64     // ell_i (BCFW only)
	store blockStore    // per-block dual state (BCFW only)
	avg   *core.Average // weighted average of the iterates (multi-plane: of the exact steps; nil when off)
	// avgApprox is the weighted average of the iterates after the
	// approximate steps of multi-plane BCFW (nil unless it makes them).
	avgApprox *core.Average

	gapEst    []float64        // stale block gaps; +Inf before the first visit
	est       core.EstimateSum // running sum of gapEst
	globalGap float64          // g(k_0), the gap of the last refreshing pass
	exactGaps []float64        // block gaps of the last exact pass (nil before)
	exactAt   int64            // steps at the last exact pass

	sets  []cornerSet // corner sets (cache, working sets and/or explicit duals), nil when unused
	reuse planeReuse  // how steps reuse the planes of the sets
	cp    *cpState    // the planes of CuttingPlane, nil for the other algorithms
	// cpCache is the scratch of the cutting plane's constraint cache (its
	// labelings live in sets).
	cpCache cpCacheScratch
	samp    *core.Sampler
	pcg     *rand.PCG
	rng     *rand.Rand

	steps, calls        int64
	hits, misses, drops int64
	skipped             int64     // blocks shrinking took out of the active set
	shrink              shrinking // the active set of Exact.Shrinking
	rSq                 []float64 // largest observed |psi_i(y)|^2 per block

	alg      algorithm     // the optimizer of cfg.Algorithm
	loop     core.Loop     // the schedule of evaluations and the solver time
	stop     run.Stop      // the criteria of the Run call under way
	evalAt   int64         // steps at the last trace point (-1: none)
	pathInit time.Duration // time of the path initialization (RegPath)
	trace    []run.Point
	events   []string

	// oracle is the max oracle of the steps; exact that of the gap passes
	// (nil when an approximate problem has no exact oracle).
	oracle, exact oracleFunc
	approx        bool                   // the step oracle is approximate (oracles.Approximate)
	relative      oracles.RelativeOracle // the step oracle relative to the dual state, nil when not (relative.go)
	// sched makes the block steps of BCFW as cfg.Execution schedules them
	// (over blockSteps, steps.go); delays[d] counts the steps it applied
	// d steps after the iterate their read part saw (Delays).
	sched  execution.Scheduler[ahead, savedAhead]
	delays []int64

	wiring
	work   solverScratch
	losses lossPass   // the task losses of a trace point (lateloss.go)
	late   lateLosses // the trace point whose losses are under way (WithLateLosses)
}

type oracleFunc = func(i int, w []float64, dst []int32) ([]int32, float64, error)

// newSolver returns the engine running plan cfg on problem p at the
// starting point w = 0, where the dual mass of every block sits on its
// ground-truth labeling. It validates the plan and what is cheap to check
// of the problem (see ValidateProblem), and applies the problem's own
// weight bounds (an oracles.Bounded model) as a box, intersected with
// cfg.Box. The options' execution is not read: it is part of the plan
// (cfg.Execution), which withExecution checks and schedules.
func newSolver(p oracles.Problem, cfg config, opts ...run.Option) (*Solver, error) {
	if p == nil {
		return nil, errors.New("solver: nil problem")
	}
	o, err := run.Wiring(opts)
	if err != nil {
		return nil, fmt.Errorf("solver: %w", err)
	}
	n, d, err := problemSize(p)
	if err != nil {
		return nil, err
	}
	if n < 1 || d < 1 {
		return nil, fmt.Errorf("solver: problem has %d examples of dimension %d; need at least one of each", n, d)
	}
	cfg = cfg.withDefaults()
	if err := cfg.validate(d); err != nil {
		return nil, err
	}
	s := &Solver{p: p, cfg: cfg, n: n, d: d, lambda: cfg.Lambda}
	if err := s.wire(o); err != nil {
		return nil, err
	}
	if err := ValidateProblem(p); err != nil {
		return nil, err
	}
	box, err := effectiveBox(cfg.Box, p)
	if err != nil {
		return nil, err
	}
	s.box = box
	s.oracle = oracles.OracleFunc(p)
	_, s.approx = p.(oracles.Approximate)
	s.relative, _ = p.(oracles.RelativeOracle)
	if err := s.withExecution(); err != nil {
		return nil, err
	}
	if e := oracles.ExactProblem(p); e != nil {
		s.exact = oracles.OracleFunc(e)
	}
	s.alg = s.newAlgorithm()
	xbox := s.box
	if s.alg.projects() {
		xbox = nil
	}
	s.x = newIterate(d, xbox)
	s.resetAverages()
	s.gapEst = make([]float64, n)
	for i := range s.gapEst {
		s.gapEst[i] = math.Inf(1)
	}
	s.est.Reset(s.gapEst)
	s.globalGap = math.Inf(1)
	if cfg.Cache.Enabled && cfg.Cache.InitialGap > 0 {
		s.globalGap = cfg.Cache.InitialGap
	}
	s.rSq = make([]float64, n)
	s.work.init(s)
	if err := s.alg.setup(); err != nil {
		return nil, err
	}
	s.reuse = s.newReuse()
	s.evalAt = -1
	s.samp = core.NewSampler(cfg.Sampling, n)
	if cfg.UnvisitedInOrder {
		s.samp.DrawUnvisitedInOrder()
	}
	s.pcg = rand.NewPCG(cfg.Seed, 0x5eed_f00d_bcf0)
	s.rng = rand.New(s.pcg)
	s.loop = s.alg.schedule()
	return s, nil
}

// problemSize returns the size of a user's problem, its panic an error.
func problemSize(p oracles.Problem) (n, d int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("solver: the problem's Len or Dim panicked: %v", r)
		}
	}()
	return p.Len(), p.Dim(), nil
}

// Run optimizes until a criterion of stop is met or ctx is canceled, and
// returns why it stopped with the last trace point. It can be called again
// to continue; the state carries over. An error of the max oracle (see
// oracles.FallibleOracle) stops the run with that error, leaving the state
// as it was before the failed step.
//
// A run never exceeds the budget of Stop.Passes: an exact gap pass of BCFW
// costs a pass of oracle calls, and when one falls due with less than a
// pass of budget left, Run returns StatusPasses there (up to one pass
// early) and the next Run call starts with it, so that splitting a run does
// not change its trajectory. The trace may end before the final iterate:
// Result.Current says so, and Current evaluates the final iterate.
func (s *Solver) Run(ctx context.Context, stop run.Stop) (run.Result, error) {
	if err := s.checkStoppable(stop, ctx); err != nil {
		return run.Result{}, err
	}
	s.stop = stop
	s.late.enabled = s.lateLossesApply()
	st, err := s.loop.Run(ctx, stop, s.alg)
	s.late.enabled = false
	if lerr := s.settleLosses(); err == nil {
		err = lerr
	}
	s.sched.Stop()
	return s.result(st), err
}

func (s *Solver) result(st run.Status) run.Result {
	last, _ := s.Last()
	return run.Result{Status: st, Last: last, Current: len(s.trace) > 0 && s.evalAt == s.steps}
}

// Current returns an exact evaluation of the current iterate: the last
// trace point when it describes it, else a new observe-only evaluation,
// appended to the trace (never counted as oracle calls, as TraceEvery's),
// so that the trace ends at the current iterate.
func (s *Solver) Current() (run.Point, error) {
	if last, ok := s.Last(); ok && s.evalAt == s.steps {
		return last, nil
	}
	if err := s.record(false); err != nil {
		return run.Point{}, err
	}
	last, _ := s.Last()
	return last, nil
}

// currentExactGap returns the sum of the exact block gaps when the last
// exact pass describes the current iterate (SetLambda keeps them exact).
func (s *Solver) currentExactGap() (float64, bool) {
	if s.exactGaps == nil || s.exactAt != s.steps {
		return 0, false
	}
	var g float64
	for _, v := range s.exactGaps {
		g += v
	}
	return g, true
}

// Passes returns the effective passes made so far (oracle calls / n).
func (s *Solver) Passes() float64 { return float64(s.calls) / float64(s.n) }

// OracleCalls returns the number of max-oracle calls made by the algorithm.
func (s *Solver) OracleCalls() int64 { return s.calls }

// Steps returns the number of block steps (FW: iterations) made so far.
func (s *Solver) Steps() int64 { return s.steps }

// Delays returns how stale the read parts of the steps of a mini-batch,
// the asynchronous execution or the delay simulator were: Weights[d] is
// the number of steps applied d steps after the iterate their oracle call
// and scores saw (nil for the other executions, whose steps read the
// current iterate). A real asynchronous run's distribution, given to
// execution.Simulated.Delays, makes the simulator replay its staleness.
func (s *Solver) Delays() *execution.Delays {
	if s.delays == nil {
		return nil
	}
	dd := &execution.Delays{Weights: make([]float64, len(s.delays))}
	for d, c := range s.delays {
		dd.Weights[d] = float64(c)
	}
	return dd
}

// Elapsed returns the solver time so far (exact-gap evaluations excluded).
func (s *Solver) Elapsed() time.Duration { return s.loop.Elapsed }

// Lambda returns the current regularization parameter.
func (s *Solver) Lambda() float64 { return s.lambda }

// Method returns the method of the run with its settings (the defaults
// filled in, Lambda the current one): a BCFW, MultiPlane, FW, SSG,
// CuttingPlane, OnlineEG, Exact or LPHard.
func (s *Solver) Method() run.Method {
	cfg := s.cfg
	cfg.Lambda = s.lambda
	return methodOf(cfg)
}

// Execution returns the execution of the steps (nil: sequential).
func (s *Solver) Execution() run.Execution { return s.cfg.Execution }

// Predict returns the labelings the current weights predict for every
// example of p and the problem that scores them: p, or for LPHard the LP
// + rounding view of p's factor-graph model (factorgraph.Rounded).
func (s *Solver) Predict(p oracles.Problem) ([][]int32, oracles.Problem, error) {
	if p == nil {
		return nil, nil, errors.New("solver: predict: no problem")
	}
	if p.Dim() != s.d {
		return nil, nil, fmt.Errorf("solver: predict: the problem has dimension %d, the model %d", p.Dim(), s.d)
	}
	if s.cfg.LPHard {
		var err error
		if p, err = roundedView(p); err != nil {
			return nil, nil, fmt.Errorf("solver: predict: %w", err)
		}
	}
	w := s.x.w
	pred := make([][]int32, p.Len())
	err := core.Parallel(p.Len(), s.workers, func(_, i int) error {
		pred[i] = p.Predict(i, w, nil)
		return nil
	})
	return pred, p, err
}

// Box returns the box the solver applies: BCFW.Box (or the method's) intersected with the
// problem's own bounds (nil when there is none). Do not modify it.
func (s *Solver) Box() *Box { return s.box }

// Problem returns the training problem.
func (s *Solver) Problem() oracles.Problem { return s.p }

// Weights returns a copy of the current weights w.
func (s *Solver) Weights() []float64 { return append([]float64(nil), s.x.w...) }

// AverageWeights returns a copy of the weighted-average weights, or nil when
// averaging is off. For multi-plane BCFW they are those of the interpolation
// of the averages of the exact and approximate steps with the best dual
// (Shah et al. 2015, Sec. 3.5), the averaged point the trace reports.
func (s *Solver) AverageWeights() []float64 {
	if s.avg == nil {
		return nil
	}
	out := make([]float64, s.d)
	s.averagedPoint(out)
	if s.box != nil {
		s.box.clipAll(out, out)
	}
	return out
}

// Trace returns a copy of the trace.
func (s *Solver) Trace() []run.Point { return append([]run.Point(nil), s.trace...) }

// Last returns the last trace point (ok is false before the first).
func (s *Solver) Last() (run.Point, bool) {
	if len(s.trace) == 0 {
		return run.Point{}, false
	}
	return s.trace[len(s.trace)-1], true
}

// GapEstimate returns the sum of the stale block gaps held by the solver
// (+Inf while a block has not been visited; NaN for FW and SSG).
func (s *Solver) GapEstimate() float64 {
	if !s.alg.blocks() {
		return math.NaN()
	}
	return s.est.Sum()
}

// BlockGaps returns a copy of the exact block gaps of the last exact pass
// and whether that pass was made at the current iterate (no step since).
func (s *Solver) BlockGaps() (gaps []float64, current bool) {
	if s.exactGaps == nil {
		return nil, false
	}
	return append([]float64(nil), s.exactGaps...), s.exactAt == s.steps
}

// CacheStats returns the cumulative cache hits and misses and drop steps.
func (s *Solver) CacheStats() (hits, misses, drops int64) { return s.hits, s.misses, s.drops }

// Evaluate computes the exact primal, dual and gap at the current iterate
// without recording it and without changing any state or counter.
func (s *Solver) Evaluate() (run.Point, error) {
	return s.evaluate(peek)
}
