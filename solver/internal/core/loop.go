package core

import (
	"context"
	"math"
	"time"

	"github.com/fwstruct/fwstruct/solver/run"
)

// Engine is a method that Loop drives: a sequence of steps interleaved
// with exact evaluations on a schedule. Every solver of the family adapts
// itself to it, and the algorithm a Config selects is the Engine its solver
// hands to Loop.
//
// Step is where the executions come in (package solver/execution): the
// BCFW engine's Step is that of the scheduler of its execution, which may
// compute the read parts of the next block steps (the scores, the cache
// rule, the max oracle: pure work) on other goroutines and applies one
// step per call; the schedule and the budget count those steps as they
// would sequential ones.
type Engine interface {
	// Step makes one step.
	Step() error
	// Clock is the step counter the schedule counts in; PerPass of its
	// ticks make one pass over the data.
	Clock() int64
	// Passes returns the effective passes made so far, the quantity
	// Stop.Passes bounds.
	Passes() float64
	// Record makes an exact evaluation of the current iterate and appends
	// it to the trace, setting Loop.LastEval. With refresh it is the
	// algorithm's own gap pass: it feeds the algorithm and costs a pass
	// (Loop.Evaluations is GapPasses).
	Record(refresh bool) error
	// Reached reports a criterion of the engine met at the current point:
	// an exact gap at most Stop.Gap, a stale estimate at most
	// Stop.GapEstimate.
	Reached(stop run.Stop) (run.Status, bool)
	// EarlyCheckDue reports whether the engine wants an exact gap pass now
	// (Stop.EarlyCheck).
	EarlyCheckDue(stop run.Stop) bool
}

// Batch is implemented by engines whose steps visit every block (batch
// Frank-Wolfe and the cutting plane): a step costs a pass or more, and so
// may an evaluation (the oracle pass that gives the gap of the iterate is
// the one the next step needs). Loop starts no step and no evaluation
// whose cost does not fit in Stop.Passes, returning StatusPasses instead,
// so that a run never exceeds its budget, and it checks the stopping
// criteria after every step. Steps of block-coordinate engines cost 1/n
// pass and their evaluations Loop.RefreshCost; they do not implement it.
type Batch interface {
	// StepCost returns the passes the next step will add (0 when it reuses
	// the oracle pass of a counted evaluation at the current point).
	StepCost() float64
	// RecordCost returns the passes Record(refresh) would add now.
	RecordCost(refresh bool) float64
}

// Phased is an optional interface of an Engine whose steps come in phases
// that make no oracle call and do not advance its clock (the approximate
// passes of multi-plane BCFW, which end an outer iteration). Such a phase
// costs no passes, so Loop lets it finish before it stops on Stop.Passes:
// a run ends between phases, where the next step may call the oracle.
type Phased interface {
	// Settled reports whether the engine is between phases.
	Settled() bool
}

// settled reports whether e is between phases (always, unless it is Phased).
func settled(e Engine) bool {
	p, ok := e.(Phased)
	return !ok || p.Settled()
}

// budgetSpent reports whether the pass budget of stop is used up at a point
// where the run may stop.
func budgetSpent(stop run.Stop, e Engine) bool {
	return stop.Passes > 0 && e.Passes() >= stop.Passes-1e-9 && settled(e)
}

// maxChunkSteps bounds the Step calls between two checks of the stopping
// criteria (time, cancellation) when steps do not advance the clock.
const maxChunkSteps = 1024

// Loop is the schedule of a run: exact gap passes every GapEvery passes
// (the algorithm's own, which Record(true) counts), observe-only
// evaluations every TraceEvery passes (never counted), and the stopping
// criteria of run.Stop. It is the one loop every solver of the package
// family runs; its fields are what a checkpoint keeps.
type Loop struct {
	PerPass     int64       // clock ticks per pass
	GapEvery    float64     // passes between scheduled evaluations (+Inf: never)
	TraceEvery  float64     // passes between observe-only evaluations (0: none)
	Evaluations Evaluations // what the scheduled evaluations are

	NextGap   int64 // clock of the next scheduled gap pass
	NextTrace int64 // clock of the next observe-only evaluation
	LastEval  int64 // clock of the last trace point (-1: none)
	Elapsed   time.Duration
	// Evaluating is the wall time of the run's evaluations on its own
	// goroutine (exact gap passes, the objectives, averages and task losses
	// computed in place), never part of Elapsed; test losses computed beside
	// the next steps are in neither.
	Evaluating time.Duration

	chunkStart time.Time // start of the chunk of steps under way (zero between chunks)
	evalStart  time.Time // start of the evaluation under way (zero outside one)
}

// Evaluations says what the scheduled evaluations of a Loop are.
type Evaluations int

const (
	// GapPasses: a scheduled evaluation is the algorithm's own gap pass
	// (Record(true)), which feeds it (stale block gaps, the cache's global
	// gap) and costs a pass of oracle calls: the block-coordinate methods.
	GapPasses Evaluations = iota
	// Observations: the scheduled evaluations only observe (Record(false))
	// and cost no passes: the batch methods, whose steps compute the gap
	// of every iterate, SSG, which has none, and online EG.
	Observations
)

// refresh reports whether the scheduled evaluations are gap passes.
func (ev Evaluations) refresh() bool { return ev == GapPasses }

// NewLoop returns the schedule of a fresh run of perPass clock ticks a
// pass, scheduled evaluations every gapEvery passes (+Inf: never) of kind
// evals, and observe-only ones every traceEvery passes (0: none).
func NewLoop(perPass int64, gapEvery, traceEvery float64, evals Evaluations) Loop {
	l := Loop{PerPass: perPass, GapEvery: gapEvery, TraceEvery: traceEvery, Evaluations: evals, LastEval: -1}
	l.NextGap = l.ticks(gapEvery)
	l.NextTrace = l.ticks(traceEvery)
	return l
}

// ticks converts passes into clock ticks (math.MaxInt64 for +Inf and 0,
// meaning never).
func (l *Loop) ticks(passes float64) int64 {
	if passes <= 0 || math.IsInf(passes, 1) {
		return math.MaxInt64
	}
	return max(1, int64(math.Round(passes*float64(l.PerPass))))
}

// Advance moves a schedule mark past the clock now by whole periods of
// every passes (math.MaxInt64, never, when that overflows). Marks and
// clocks are non-negative.
func (l *Loop) Advance(mark, now int64, every float64) int64 {
	step := l.ticks(every)
	if step == math.MaxInt64 {
		return math.MaxInt64
	}
	mark = max(mark, 0)
	if mark > now {
		return mark
	}
	k := (now-mark)/step + 1 // the fewest periods that pass now
	if k > (math.MaxInt64-mark)/step {
		return math.MaxInt64
	}
	return mark + k*step
}

// Reschedule restarts the gap schedule from the clock now (after a change
// of the run, e.g. of lambda).
func (l *Loop) Reschedule(now int64) { l.NextGap = l.Advance(now, now, l.GapEvery) }

// Now returns the solver time so far, the chunk of steps under way
// included: what an engine measures its own progress against (the time
// rule of multi-plane BCFW), excluding the evaluations.
func (l *Loop) Now() time.Duration {
	if l.chunkStart.IsZero() {
		return l.Elapsed
	}
	return l.Elapsed + time.Since(l.chunkStart)
}

// EvalNow returns the evaluation time so far, the evaluation under way
// included.
func (l *Loop) EvalNow() time.Duration {
	if l.evalStart.IsZero() {
		return l.Evaluating
	}
	return l.Evaluating + time.Since(l.evalStart)
}

// Exclude moves the time d of an exact evaluation that an engine made
// inside a step (batch Frank-Wolfe records the iterate whose oracle pass
// its iteration uses) from the solver time, which counts the optimizer's
// own work only, to the evaluation time.
func (l *Loop) Exclude(d time.Duration) { l.Elapsed -= d; l.Evaluating += d }

// record runs e.Record(refresh) as an evaluation: its time is evaluation
// time, less what the engine counted as solver time inside it (batch
// Frank-Wolfe's iteration, which a recorded point comes with).
func (l *Loop) record(e Engine, refresh bool) error {
	elapsed, evaluating := l.Elapsed, l.Evaluating
	l.evalStart = time.Now()
	err := e.Record(refresh)
	l.Evaluating = evaluating + max(0, time.Since(l.evalStart)-(l.Elapsed-elapsed))
	l.evalStart = time.Time{}
	return err
}

// Fits reports whether cost more passes fit in the budget of stop.
func Fits(stop run.Stop, passes, cost float64) bool {
	return stop.Passes == 0 || cost == 0 || passes+cost <= stop.Passes+1e-9
}

// Run drives e until a criterion of stop is met or ctx is canceled. The
// first call records the starting point (observe-only). A run never
// exceeds Stop.Passes: when a gap pass falls due with less than its cost
// left in the budget, Run returns StatusPasses there, and the next call
// starts with it, so that splitting a run does not change its trajectory.
// A canceled context stops it after the step under way (the stop button
// of a notebook must be quick even when steps are slow), and under one it
// starts no evaluation that costs passes.
func (l *Loop) Run(ctx context.Context, stop run.Stop, e Engine) (run.Status, error) {
	start := time.Now()
	batch, isBatch := e.(Batch)
	// recordCost is what Record(refresh) adds to the passes.
	recordCost := func(refresh bool) float64 {
		switch {
		case isBatch:
			return batch.RecordCost(refresh)
		case refresh:
			return 1 // a gap pass: an oracle call per block
		}
		return 0
	}
	// mayRecord is the status that forbids an evaluation of the given cost
	// now (done false when it may start): the budget, and a canceled
	// context for one that costs passes.
	mayRecord := func(cost float64) (run.Status, bool) {
		switch {
		case !Fits(stop, e.Passes(), cost):
			return run.StatusPasses, true
		case cost > 0 && ctx.Err() != nil:
			return run.StatusCanceled, true
		}
		return 0, false
	}
	if l.LastEval < 0 {
		if st, done := mayRecord(recordCost(false)); done {
			return st, nil
		}
		if err := l.record(e, false); err != nil {
			return 0, err
		}
	}
	for {
		now := e.Clock()
		if now >= l.NextGap || e.EarlyCheckDue(stop) {
			if st, done := mayRecord(recordCost(l.Evaluations.refresh())); done {
				return st, nil
			}
			if err := l.record(e, l.Evaluations.refresh()); err != nil {
				return 0, err
			}
			l.NextGap = l.Advance(now, now, l.GapEvery)
		}
		if now >= l.NextTrace {
			if l.LastEval != now {
				if st, done := mayRecord(recordCost(false)); done {
					return st, nil
				}
				if err := l.record(e, false); err != nil {
					return 0, err
				}
			}
			l.NextTrace = l.Advance(l.NextTrace, now, l.TraceEvery)
		}
		if st, done := l.Check(ctx, stop, e, start); done {
			return st, nil
		}
		chunk := int64(256)
		if now < l.NextGap {
			chunk = min(chunk, l.NextGap-now)
		}
		if now < l.NextTrace {
			chunk = min(chunk, l.NextTrace-now)
		}
		l.chunkStart = time.Now()
		var err error
		budget := false
		for calls := 0; e.Clock()-now < chunk && calls < maxChunkSteps; calls++ {
			if isBatch && !Fits(stop, e.Passes(), batch.StepCost()) {
				budget = true
				break
			}
			if err = e.Step(); err != nil || isBatch || budgetSpent(stop, e) || e.EarlyCheckDue(stop) || ctx.Err() != nil {
				break
			}
		}
		l.Elapsed += time.Since(l.chunkStart)
		l.chunkStart = time.Time{}
		if err != nil {
			return 0, err
		}
		if budget {
			return run.StatusPasses, nil
		}
	}
}

// Check evaluates the stopping criteria at the current point; start is
// when the Run call began.
func (l *Loop) Check(ctx context.Context, stop run.Stop, e Engine, start time.Time) (run.Status, bool) {
	if st, ok := e.Reached(stop); ok {
		return st, true
	}
	if budgetSpent(stop, e) {
		return run.StatusPasses, true
	}
	if stop.Duration > 0 && time.Since(start) >= stop.Duration {
		return run.StatusTime, true
	}
	if ctx.Err() != nil {
		return run.StatusCanceled, true
	}
	return 0, false
}
