// Package solver trains structural SVMs with the block-coordinate
// Frank-Wolfe family: one configurable engine whose dimensions are
// orthogonal, as in Osokin et al. (2016): sampling (uniform, permutation,
// gap) x step (FW, pairwise, away) x cache (off, gap-based F/nu) x weighted
// averaging x box constraints, plus batch Frank-Wolfe and the stochastic
// subgradient baseline.
//
// The objective (Lacoste-Julien et al. 2013, eq. 3) is
//
//	min_w  lambda/2 |w|^2 + 1/n sum_i max_y ( L_i(y) - <w, psi_i(y)> )
//
// and the solvers work on its dual, keeping w = sum_i w_i and
// ell = sum_i ell_i. A Solver is a value that can run a few passes, stop, be
// inspected, be saved, and go on.
//
// The package knows nothing about files, plots or notebooks.
package solver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/fwstruct/fwstruct/oracles"
)

// Solver is the state of one optimization run.
type Solver struct {
	p      oracles.Problem
	cfg    Config
	n, d   int
	lambda float64

	v    []float64 // v = A alpha
	w    []float64 // w = [v], the truncation to the box; aliases v without box
	ell  float64   // ell = b^T alpha
	blk  *blocks   // dense v_i (BCFW with FW steps; nil with explicit duals)
	ellI []float64 // ell_i (BCFW only)
	avg  *average  // weighted average of the iterates (nil when off)

	gapEst    []float64   // stale block gaps; +Inf before the first visit
	est       estimateSum // running sum of gapEst
	globalGap float64     // g(k_0), the gap of the last refreshing pass
	exactGaps []float64   // block gaps of the last exact pass (nil before)
	exactAt   int64       // steps at the last exact pass

	sets []cornerSet // corner sets (cache and/or explicit duals), nil when unused
	samp *sampler
	pcg  *rand.PCG
	rng  *rand.Rand

	steps, calls        int64
	hits, misses, drops int64
	rSq                 []float64 // largest observed |psi_i(y)|^2 per block

	elapsed         time.Duration
	pathInit        time.Duration // time of the path initialization (RegPath)
	trace           []TracePoint
	nextGap         int64 // steps at the next exact gap pass
	nextTrace       int64 // steps at the next observe-only evaluation
	lastEvalAtSteps int64 // steps of the last trace point (-1: none)

	work solverScratch
}

// New returns a solver for problem p at the starting point w = 0, where the
// dual mass of every block sits on its ground-truth labeling.
func New(p oracles.Problem, cfg Config) (*Solver, error) {
	if p == nil {
		return nil, errors.New("solver: nil problem")
	}
	n, d := p.Len(), p.Dim()
	if n < 1 || d < 1 {
		return nil, fmt.Errorf("solver: problem has %d examples of dimension %d; need at least one of each", n, d)
	}
	cfg = cfg.WithDefaults()
	if err := cfg.validate(d); err != nil {
		return nil, err
	}
	if cfg.Test != nil && cfg.Test.Dim() != d {
		return nil, fmt.Errorf("solver: test problem has dimension %d, training problem %d", cfg.Test.Dim(), d)
	}
	if cfg.Workers == 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	s := &Solver{p: p, cfg: cfg, n: n, d: d, lambda: cfg.Lambda, lastEvalAtSteps: -1}
	s.v = make([]float64, d)
	s.w = s.v
	if cfg.Box != nil && cfg.Algorithm != SSG {
		s.w = make([]float64, d)
		cfg.Box.clipAll(s.w, s.v)
	}
	if cfg.Algorithm == BCFW {
		s.ellI = make([]float64, n)
	}
	if cfg.Algorithm == BCFW && !cfg.explicitDuals() {
		blk, err := newBlocks(n, d)
		if err != nil {
			return nil, err
		}
		s.blk = blk
	}
	if cfg.Averaging {
		s.avg = newAverage(d)
	}
	s.gapEst = make([]float64, n)
	for i := range s.gapEst {
		s.gapEst[i] = math.Inf(1)
	}
	s.est.reset(s.gapEst)
	s.globalGap = math.Inf(1)
	s.rSq = make([]float64, n)
	s.work.init(s)
	if cfg.keepsCorners() {
		s.sets = make([]cornerSet, n)
		for i := range s.sets {
			s.sets[i].keepGram = cfg.explicitDuals()
			k := s.sets[i].addTruth(p, i, 0, s.work.dense)
			if cfg.explicitDuals() {
				s.sets[i].entries[k].alpha = 1
			}
		}
	}
	s.samp = newSampler(cfg.Sampling, n)
	s.pcg = rand.NewPCG(cfg.Seed, 0x5eed_f00d_bcf0)
	s.rng = rand.New(s.pcg)
	s.nextGap = s.stepsFor(cfg.GapEvery)
	s.nextTrace = s.stepsFor(cfg.TraceEvery)
	return s, nil
}

// stepsFor converts a number of passes into a number of steps (math.MaxInt64
// for +Inf and for 0, meaning never).
func (s *Solver) stepsFor(passes float64) int64 {
	if passes <= 0 || math.IsInf(passes, 1) {
		return math.MaxInt64
	}
	perPass := float64(s.n)
	if s.cfg.Algorithm == FW {
		perPass = 1
	}
	k := int64(math.Round(passes * perPass))
	if k < 1 {
		k = 1
	}
	return k
}

// Run optimizes until a criterion of stop is met or ctx is canceled. It can
// be called again to continue; the state carries over.
func (s *Solver) Run(ctx context.Context, stop Stop) (Status, error) {
	if err := stop.validate(); err != nil {
		return 0, err
	}
	if stop == (Stop{}) && ctx.Done() == nil {
		return 0, errors.New("solver: Run needs a stopping criterion (Stop) or a cancellable context")
	}
	start := time.Now()
	if s.lastEvalAtSteps < 0 && s.cfg.Algorithm != FW {
		s.record(false)
	}
	for {
		if s.cfg.Algorithm == FW {
			if st, done := s.fwIteration(ctx, stop, start); done {
				return st, nil
			}
			continue
		}
		if s.steps >= s.nextGap || s.earlyCheckDue(stop) {
			s.record(s.cfg.Algorithm == BCFW)
			s.nextGap = s.advance(s.steps, s.cfg.GapEvery)
		}
		if s.steps >= s.nextTrace {
			if s.lastEvalAtSteps != s.steps {
				s.record(false)
			}
			s.nextTrace = s.advance(s.nextTrace, s.cfg.TraceEvery)
		}
		if st, done := s.checkStop(ctx, stop, start); done {
			return st, nil
		}
		chunk := min(s.nextGap, s.nextTrace) - s.steps
		if chunk > 256 {
			chunk = 256
		}
		t0 := time.Now()
		for c := int64(0); c < chunk; c++ {
			if s.cfg.Algorithm == SSG {
				s.ssgStep()
			} else {
				s.bcfwStep()
			}
			if stop.Passes > 0 && s.Passes() >= stop.Passes || s.earlyCheckDue(stop) {
				break
			}
		}
		s.elapsed += time.Since(t0)
	}
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

// earlyCheckDue reports whether the stale gap estimate asks for an early
// exact gap pass (Stop.EarlyCheck).
func (s *Solver) earlyCheckDue(stop Stop) bool {
	return stop.EarlyCheck > 0 && stop.Gap > 0 && s.cfg.Algorithm == BCFW &&
		s.lastEvalAtSteps != s.steps && s.est.sum() <= stop.EarlyCheck*stop.Gap
}

// advance moves a schedule mark forward by the given number of passes.
func (s *Solver) advance(mark int64, every float64) int64 {
	step := s.stepsFor(every)
	if step == math.MaxInt64 {
		return math.MaxInt64
	}
	for mark <= s.steps {
		mark += step
	}
	return mark
}

// checkStop evaluates the stopping criteria at the current point.
func (s *Solver) checkStop(ctx context.Context, stop Stop, start time.Time) (Status, bool) {
	if g, ok := s.currentExactGap(); ok && stop.Gap > 0 && g <= stop.Gap {
		return StatusConverged, true
	}
	if stop.GapEstimate > 0 && s.cfg.Algorithm == BCFW && s.est.sum() <= stop.GapEstimate {
		return StatusEstimateConverged, true
	}
	if stop.Passes > 0 && s.Passes() >= stop.Passes {
		return StatusPasses, true
	}
	if stop.Duration > 0 && time.Since(start) >= stop.Duration {
		return StatusTime, true
	}
	if ctx.Err() != nil {
		return StatusCanceled, true
	}
	return 0, false
}

func (st Stop) validate() error {
	for _, v := range []float64{st.Passes, st.Gap, st.GapEstimate, st.EarlyCheck} {
		if v < 0 || math.IsNaN(v) {
			return fmt.Errorf("solver: stopping criteria must be >= 0, got %+v", st)
		}
	}
	if st.Duration < 0 {
		return fmt.Errorf("solver: negative duration %v", st.Duration)
	}
	return nil
}

// Passes returns the effective passes made so far (oracle calls / n).
func (s *Solver) Passes() float64 { return float64(s.calls) / float64(s.n) }

// OracleCalls returns the number of max-oracle calls made by the algorithm.
func (s *Solver) OracleCalls() int64 { return s.calls }

// Steps returns the number of block steps (FW: iterations) made so far.
func (s *Solver) Steps() int64 { return s.steps }

// Elapsed returns the solver time so far (exact-gap evaluations excluded).
func (s *Solver) Elapsed() time.Duration { return s.elapsed }

// Lambda returns the current regularization parameter.
func (s *Solver) Lambda() float64 { return s.lambda }

// Config returns the configuration (with defaults filled in).
func (s *Solver) Config() Config { return s.cfg }

// Problem returns the training problem.
func (s *Solver) Problem() oracles.Problem { return s.p }

// Weights returns a copy of the current weights w.
func (s *Solver) Weights() []float64 { return append([]float64(nil), s.w...) }

// AverageWeights returns a copy of the weighted-average weights, or nil when
// averaging is off.
func (s *Solver) AverageWeights() []float64 {
	if s.avg == nil {
		return nil
	}
	out := make([]float64, s.d)
	s.avg.value(out)
	if s.cfg.Box != nil {
		s.cfg.Box.clipAll(out, out)
	}
	return out
}

// Trace returns a copy of the trace.
func (s *Solver) Trace() []TracePoint { return append([]TracePoint(nil), s.trace...) }

// Last returns the last trace point (ok is false before the first).
func (s *Solver) Last() (TracePoint, bool) {
	if len(s.trace) == 0 {
		return TracePoint{}, false
	}
	return s.trace[len(s.trace)-1], true
}

// GapEstimate returns the sum of the stale block gaps held by the solver
// (+Inf while a block has not been visited; NaN for FW and SSG).
func (s *Solver) GapEstimate() float64 {
	if s.cfg.Algorithm != BCFW {
		return math.NaN()
	}
	return s.est.sum()
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
func (s *Solver) Evaluate() TracePoint {
	return s.evaluate(false, false)
}
