package solver

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/execution"
	"github.com/fwstruct/fwstruct/solver/run"
)

// The method types of this package (BCFW, MultiPlane, FW, SSG,
// CuttingPlane, OnlineEG, Exact, LPHard) each hold the knobs of one
// algorithm; New compiles one to the engine's plan (config) and builds
// the engine, which is the *Solver every method returns.

func init() {
	for _, m := range []run.Method{BCFW{}, MultiPlane{}, FW{}, SSG{}, CuttingPlane{}, OnlineEG{}, Exact{}, LPHard{}} {
		run.Register(m, loadRun)
	}
}

// loadRun is the run.Loader of this package's methods.
func loadRun(r io.Reader, p oracles.Problem, opts ...run.Option) (run.Solver, error) {
	s, err := Load(r, p, opts...)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// planner is what a method type of this package compiles to: the engine's
// plan (config) before defaults, and the run.Method it is.
type planner interface {
	run.Method
	plan() (config, error)
}

// build makes the solver of method m on p: the plan of m, the execution of
// the options, the engine.
func build(m planner, p oracles.Problem, opts []run.Option) (*Solver, error) {
	o, err := run.Wiring(opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Name(), err)
	}
	cfg, err := m.plan()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Name(), err)
	}
	cfg.Execution = o.Execution
	return newSolver(p, cfg, opts...)
}

// never turns a schedule of "never" (negative or +Inf) into the engine's
// +Inf; zero (the default) and positive values stay.
func never(every float64) float64 {
	if every < 0 {
		return math.Inf(1)
	}
	return every
}

// everyOf is the inverse of never: the engine's +Inf becomes -1, the
// method types' "never", which JSON can write.
func everyOf(every float64) float64 {
	if math.IsInf(every, 1) {
		return -1
	}
	return every
}

// checkSchedule checks the schedule knobs every method has, before
// defaults: GapEvery and TraceEvery not NaN.
func checkSchedule(gapEvery, traceEvery float64) error {
	switch {
	case math.IsNaN(gapEvery):
		return errors.New("GapEvery is NaN (zero: every 10 passes, negative: never)")
	case math.IsNaN(traceEvery) || math.IsInf(traceEvery, 0) || traceEvery < 0:
		return fmt.Errorf("TraceEvery must be finite and >= 0 (0: none), got %v", traceEvery)
	}
	return nil
}

// withExecution is where a method and an execution are combined: it
// checks the plan's execution (nil: sequential) against the method and
// the problem, saying why the method cannot be run by it, and builds the
// scheduler of the solver's block steps (blockSteps). Every method takes
// the sequential execution; only BCFW's block steps (BCFW, LP-hard,
// multi-plane BCFW) can be scheduled otherwise, and of them multi-plane
// BCFW by a mini-batch only. A step oracle relative to the dual state
// refuses every execution that reads ahead.
func (s *Solver) withExecution() error {
	cfg := &s.cfg
	if _, seq := cfg.Execution.(execution.Sequential); seq {
		cfg.Execution = nil
	}
	x, name := cfg.Execution, methodOf(*cfg).Name()
	if err := execution.Validate(x); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	cannot := func(why string) error {
		return fmt.Errorf("%s cannot be run by the %s execution: %s", name, x.Name(), why)
	}
	_, batch := x.(execution.MiniBatch)
	switch {
	case x == nil:
	case cfg.Algorithm != run.BCFW:
		return cannot("its iterations call every block's oracle against one w already, which the workers parallelize (give workers, not an execution)")
	case cfg.Step == stepExact:
		return cannot("exact steps are sequential: each block's solve reads the w the previous one left")
	case cfg.MultiPlane.Enabled && !batch:
		return cannot("the slope rule decides the kind of each pass (exact or approximate) when the last one ends, which answers in flight would cross; use a mini-batch, whose batches end with the passes")
	}
	sched, err := execution.Schedule[ahead, savedAhead](x, blockSteps{s}, cfg.Seed)
	if err != nil {
		return fmt.Errorf("solver: %w", err)
	}
	if s.relative != nil && sched.Ahead() {
		return errors.New("solver: a mini-batch, the delay simulator and the asynchronous execution do not combine with a relative approximate oracle: its accuracy condition is relative to the dual state at the current w, which calls in advance do not see")
	}
	s.sched = sched
	return nil
}

// methodOf is the method type a plan (after defaults) was compiled from,
// at the plan's lambda: the inverse of plan, so that a run reports and
// saves the method it runs.
func methodOf(cfg config) run.Method {
	ge, te := everyOf(cfg.GapEvery), cfg.TraceEvery
	average := run.NoAverage
	if cfg.Averaging {
		average = cfg.AverageKind
	}
	sampling := cfg.Sampling
	if cfg.UnvisitedInOrder {
		sampling = run.GapSamplingInOrder
	}
	switch cfg.Algorithm {
	case run.FW:
		return FW{Lambda: cfg.Lambda, StepSize: cfg.StepSize, Average: average, Box: cfg.Box, GapEvery: ge, TraceEvery: te}
	case run.SSG:
		return SSG{Lambda: cfg.Lambda, Average: average, Box: cfg.Box, GapEvery: ge, TraceEvery: te, Seed: cfg.Seed}
	case run.CuttingPlane:
		return CuttingPlane{Lambda: cfg.Lambda, Tol: cfg.CPTol, Cache: cfg.CPCache, GapEvery: ge, TraceEvery: te}
	case run.OnlineEG:
		return OnlineEG{Lambda: cfg.Lambda, Average: average, GapEvery: ge, TraceEvery: te, Seed: cfg.Seed}
	}
	switch {
	case cfg.Step == stepExact:
		return Exact{Lambda: cfg.Lambda, Sampling: sampling, Shrinking: cfg.Shrinking, Average: average, GapEvery: ge, TraceEvery: te, Seed: cfg.Seed}
	case cfg.MultiPlane.Enabled:
		mp := cfg.MultiPlane
		m := MultiPlane{Lambda: cfg.Lambda, N: mp.N, T: mp.T, M: mp.M, Step: cfg.Step,
			Averaging: cfg.Averaging, Box: cfg.Box, GapEvery: ge, TraceEvery: te, Seed: cfg.Seed}
		if mp.Rule == ruleCost {
			m.Cost = &CostRule{Ratio: mp.CostRatio, Update: mp.UpdateCost}
		}
		return m
	}
	b := BCFW{Lambda: cfg.Lambda, Sampling: sampling, Step: cfg.Step, Average: average, Box: cfg.Box,
		GapEvery: ge, TraceEvery: te, Seed: cfg.Seed, Storage: cfg.Storage}
	if cfg.Step == FWStep && cfg.StepSize == run.Predefined {
		b.Step = FWPredefined
	}
	if cfg.Cache.Enabled {
		c := cfg.Cache.Cache
		b.Cache = &c
	}
	if cfg.LPHard {
		return LPHard{BCFW: b}
	}
	return b
}

var _ run.Solver = (*Solver)(nil)
