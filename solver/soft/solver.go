package soft

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/soft/internal/nodes"
)

// Solver is the state of one soft-constraint training run (Meshi et al.
// 2015, Alg. 1): the marginals mu of every block, w = Psi mu and
// delta = A mu, the sampler and the trace. It can run a few passes, stop, be
// inspected, be saved, and go on.
type Solver struct {
	m      *factorgraph.Model
	k      *nodes.Model // m block by block: Alg. 1's node kernels
	cfg    config
	nEx, d int
	blocks int

	invLambda, invRho float64 // 1/lambda, 1/rho: the step sizes multiply

	blockOff []int32 // per example: its first block (len nEx+1)
	blockEx  []int32 // per block: its example
	perEx    int     // blocks of every example when they all have as many (else 0)
	muOff    []int   // per example: the start of its tables in mu (len nEx+1)
	deltaOff []int   // per example: the start of its delta (len nEx+1)

	mu    []float64 // the marginals of every block, flat per example (Graph.TableOffset)
	delta []float64 // the agreement variables delta = A mu, per example (nodes.Layout)
	w     []float64 // w = Psi mu

	gapEst  []float64        // stale block gaps; +Inf before the first visit
	est     core.EstimateSum // running sum of gapEst
	lastGap float64          // the gap of the last recorded evaluation
	gapAt   int64            // steps at that evaluation (-1: none)

	samp *core.Sampler
	pcg  *rand.PCG
	rng  *rand.Rand

	steps, calls int64
	loop         core.Loop
	trace        []run.Point

	wiring
	work  scratch
	ahead lookahead
}

// newSolver returns a soft solver running plan cfg on the model m at the
// starting point of Alg. 1 (line 1): every block's marginals on the true
// state, w = 0, delta = 0. It validates the plan (lambda and rho positive
// and finite). An execution in opts is refused: the steps are sequential.
func newSolver(m *factorgraph.Model, cfg config, opts ...run.Option) (*Solver, error) {
	if m == nil {
		return nil, errors.New("soft: nil model")
	}
	if m.Len() < 1 {
		return nil, errors.New("soft: the model has no example")
	}
	o, err := run.Wiring(opts)
	if err != nil {
		return nil, fmt.Errorf("soft: %w", err)
	}
	if x := o.Execution; x != nil && x.Name() != "sequential" {
		return nil, fmt.Errorf("soft cannot be run by the %s execution: its block steps are sequential (the workers compute its gap passes and evaluations)", x.Name())
	}
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	s := &Solver{m: m, k: nodes.New(m), cfg: cfg, nEx: m.Len(), d: m.Dim(), lastGap: math.NaN(), gapAt: -1,
		invLambda: 1 / cfg.Lambda, invRho: 1 / cfg.Rho}
	s.wiring = wiring{workers: runtime.GOMAXPROCS(0)}
	s.layout()
	s.mu = make([]float64, s.muOff[s.nEx])
	for i := 0; i < s.nEx; i++ {
		g := m.Graph(i)
		for a := 0; a < g.NumNodes(); a++ {
			s.mu[s.muOff[i]+g.TableOffset(a)+m.TrueState(i, a)] = 1
		}
	}
	s.delta = make([]float64, s.deltaOff[s.nEx])
	s.w = make([]float64, s.d)
	s.gapEst = make([]float64, s.blocks)
	for b := range s.gapEst {
		s.gapEst[b] = math.Inf(1)
	}
	s.est.Reset(s.gapEst)
	s.samp = core.NewSampler(cfg.Sampling, s.blocks)
	if cfg.Sampling == run.ExamplePermutation {
		if err := s.samp.SetGroups(s.blockOff); err != nil {
			return nil, fmt.Errorf("soft: %w", err)
		}
	}
	s.pcg = rand.NewPCG(cfg.Seed, 0x50f7_c0a5_7a17)
	s.rng = rand.New(s.pcg)
	s.loop = core.NewLoop(int64(s.blocks), cfg.GapEvery, cfg.TraceEvery, core.GapPasses)
	s.work.init(s)
	s.initLookahead()
	if err := s.SetWorkers(o.Workers); err != nil {
		return nil, err
	}
	if err := s.SetTest(o.Test); err != nil {
		return nil, err
	}
	s.progress = o.Progress
	if o.TrainLoss {
		return nil, errors.New("soft: the training loss is not recorded by the soft solver (its trace has the soft and hard objectives)")
	}
	return s, nil
}

// layout numbers the blocks and places every example's tables.
func (s *Solver) layout() {
	s.blockOff = make([]int32, s.nEx+1)
	s.muOff = make([]int, s.nEx+1)
	s.deltaOff = make([]int, s.nEx+1)
	for i := 0; i < s.nEx; i++ {
		g := s.m.Graph(i)
		s.blockOff[i+1] = s.blockOff[i] + int32(g.NumNodes())
		s.muOff[i+1] = s.muOff[i] + g.TableLen()
		s.deltaOff[i+1] = s.deltaOff[i] + s.k.Layout(i).DeltaLen()
	}
	s.blocks = int(s.blockOff[s.nEx])
	s.blockEx = make([]int32, s.blocks)
	s.perEx = int(s.blockOff[1])
	for i := 0; i < s.nEx; i++ {
		for b := s.blockOff[i]; b < s.blockOff[i+1]; b++ {
			s.blockEx[b] = int32(i)
		}
		if int(s.blockOff[i+1]-s.blockOff[i]) != s.perEx {
			s.perEx = 0
		}
	}
}

// block returns the example and node of block b: by division when every
// example has as many blocks (no read of blockEx, a cache miss in a pass
// over random blocks), else from blockEx.
func (s *Solver) block(b int) (i, a int) {
	if s.perEx > 0 {
		return b / s.perEx, b % s.perEx
	}
	i = int(s.blockEx[b])
	return i, b - int(s.blockOff[i])
}

// Run optimizes until a criterion of stop is met or ctx is canceled, and
// returns why it stopped with the last trace point; it can be called again
// to continue. The schedule is that of the family (core.Loop): a run never
// exceeds Stop.Passes (a gap pass costs one pass: when one falls due with
// less than a pass of budget left, Run returns StatusPasses there and the
// next call starts with it), and Result.Current says whether the last trace
// point describes the final iterate (Current evaluates it otherwise).
func (s *Solver) Run(ctx context.Context, stop run.Stop) (run.Result, error) {
	if err := s.checkStoppable(ctx, stop); err != nil {
		return run.Result{}, err
	}
	st, err := s.loop.Run(ctx, stop, engine{s})
	last, _ := s.Last()
	return run.Result{Status: st, Last: last, Current: len(s.trace) > 0 && s.loop.LastEval == s.steps}, err
}

// checkStoppable validates stop and refuses a run that could never end.
func (s *Solver) checkStoppable(ctx context.Context, stop run.Stop) error {
	if err := core.CheckStop(ctx, stop, core.Stoppable{GapEvery: s.cfg.GapEvery, TraceEvery: s.cfg.TraceEvery}); err != nil {
		return fmt.Errorf("soft: %w", err)
	}
	return nil
}

// engine adapts the solver to the schedule of core.Loop.
type engine struct{ s *Solver }

func (e engine) Step() error               { e.s.step(); return nil }
func (e engine) Clock() int64              { return e.s.steps }
func (e engine) Passes() float64           { return e.s.Passes() }
func (e engine) Record(refresh bool) error { return e.s.record(refresh) }

// Reached: an exact gap of the current iterate at most Stop.Gap, or the
// sum of the stale block gaps at most Stop.GapEstimate.
func (e engine) Reached(stop run.Stop) (run.Status, bool) {
	s := e.s
	if stop.Gap > 0 && s.gapAt == s.steps && s.lastGap <= stop.Gap {
		return run.StatusConverged, true
	}
	if stop.GapEstimate > 0 && s.est.Sum() <= stop.GapEstimate {
		return run.StatusEstimateConverged, true
	}
	return 0, false
}

// EarlyCheckDue: the stale estimate fell below Stop.EarlyCheck * Stop.Gap.
func (e engine) EarlyCheckDue(stop run.Stop) bool {
	s := e.s
	return stop.EarlyCheck > 0 && stop.Gap > 0 && s.loop.LastEval != s.steps && s.est.Sum() <= stop.EarlyCheck*stop.Gap
}

// Current returns an exact evaluation of the current iterate: the last
// trace point when it describes it, else a new observe-only evaluation
// appended to the trace.
func (s *Solver) Current() (run.Point, error) {
	if len(s.trace) == 0 || s.loop.LastEval != s.steps {
		if err := s.record(false); err != nil {
			return run.Point{}, err
		}
	}
	return s.trace[len(s.trace)-1], nil
}

// Evaluate computes an exact evaluation of the current iterate without
// recording it or changing any state.
func (s *Solver) Evaluate() (run.Point, error) { return s.evaluate(peek) }

// Passes returns the effective passes made so far: oracle calls (block
// maximizations, gap passes included) / Blocks().
func (s *Solver) Passes() float64 { return float64(s.calls) / float64(s.blocks) }

// Steps returns the number of block steps made so far.
func (s *Solver) Steps() int64 { return s.steps }

// OracleCalls returns the number of block maximizations made by the
// algorithm (its gap passes included).
func (s *Solver) OracleCalls() int64 { return s.calls }

// Blocks returns the number of blocks, sum over examples of
// Graph.NumNodes: the block steps of one pass.
func (s *Solver) Blocks() int { return s.blocks }

// Elapsed returns the solver time so far (exact evaluations excluded).
func (s *Solver) Elapsed() time.Duration { return s.loop.Elapsed }

// Model returns the training model.
func (s *Solver) Model() *factorgraph.Model { return s.m }

// Weights returns a copy of w = Psi mu.
func (s *Solver) Weights() []float64 { return append([]float64(nil), s.w...) }

// GapEstimate returns the sum of the stale block gaps the solver holds
// (+Inf while a block has not been visited).
func (s *Solver) GapEstimate() float64 { return s.est.Sum() }

// Trace returns a copy of the trace.
func (s *Solver) Trace() []run.Point { return append([]run.Point(nil), s.trace...) }

// Last returns the last trace point (ok is false before the first).
func (s *Solver) Last() (run.Point, bool) {
	if len(s.trace) == 0 {
		return run.Point{}, false
	}
	return s.trace[len(s.trace)-1], true
}

// wiring is what a run is connected to, as opposed to its hyperparameters:
// none of it changes the trajectory, none of it is saved.
type wiring struct {
	test     oracles.Problem
	progress func(run.Point)
	workers  int
}
