package solver

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// Fork returns a new solver that warm-starts from the current state of s
// under method m, one of this package's method types of the same
// algorithm (BCFW, MultiPlane and LPHard share BCFW's; Exact, FW, SSG,
// CuttingPlane and OnlineEG are each their own): the iterate, the dual
// variables, the stale block gaps, the cache, the counters and the trace
// carry over, and s is left unchanged. A zero Lambda in m means the
// current lambda.
//
// What may change, and how the state is carried over:
//
//   - Sampling: the new sampler starts from the stale block gaps (gap
//     sampling draws the blocks never visited first, Osokin et al. 2016,
//     Alg. 2) or a fresh permutation.
//   - Cache (on, off, F, nu, MaxSize): the corners a block holds are kept
//     when the new configuration keeps corner sets; a cache turned on starts
//     from the ground truth, as a new run does (Alg. 5).
//   - GapEvery and TraceEvery: the schedule restarts from the fork.
//   - Lambda, as SetLambda: a decrease by Proposition 1 of Osokin et al.
//     (2016), an increase keeping the dual variables (and making an exact
//     gap pass); both reset the weighted average.
//   - Averaging and AverageKind: an average turned on, or of another kind,
//     starts at the fork.
//   - Step: pairwise <-> away, and pairwise or away -> Frank-Wolfe (the block
//     vectors v_i = A alpha_[i] are computed from the explicit duals).
//     Frank-Wolfe -> pairwise or away is an error: FW steps keep v_i only,
//     not the convex combination of corners those steps move mass between.
//   - StepSize and Seed (the random state is reseeded when Seed changes).
//   - CPCache (the cutting plane's constraint cache): the labelings cached
//     are kept (evicted down to the new size as labelings arrive); a cache
//     turned on starts empty.
//   - MultiPlane (on, off, N, T, M, Rule, CostRatio): see multiPlane.fork;
//     multi-plane BCFW needs permutation sampling, so a fork that switches it
//     on from another sampling must set Sampling to Permutation as well.
//
// The algorithm and the box cannot change. opts wire the fork; by default
// it has the test problem, workers, training-loss setting and execution of
// s (execution.Sequential{} makes its steps sequential), and no progress
// callback; a block storage of m other than s's converts the block
// vectors.
//
// A fork with the method of s (s.Method()) continues exactly as s would. When the configuration changes, the fork's trace gets an
// observe-only evaluation at the fork (never counted as oracle calls) whose
// Event says what changed, e.g. "fork: sampling uniform -> gap".
func (s *Solver) Fork(m run.Method, opts ...run.Option) (run.Solver, error) {
	pm, ok := m.(planner)
	_, lpHard := m.(LPHard)
	if !ok || lpHard != s.cfg.LPHard {
		return nil, fmt.Errorf("solver: fork: a %s run cannot continue as %s: start a new run", s.Method().Name(), methodName(m))
	}
	cfg, err := pm.plan()
	if err != nil {
		return nil, fmt.Errorf("solver: fork: %s: %w", m.Name(), err)
	}
	o, err := run.Wiring(opts)
	if err != nil {
		return nil, fmt.Errorf("solver: fork: %w", err)
	}
	cfg.Execution = s.Execution()
	if o.Execution != nil {
		cfg.Execution = o.Execution
	}
	f, err := s.fork(cfg, opts...)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// fork is Fork to the plan cfg (its execution included).
func (s *Solver) fork(cfg config, opts ...run.Option) (*Solver, error) {
	if cfg.Lambda == 0 {
		cfg.Lambda = s.lambda
	}
	cfg = cfg.withDefaults()
	if err := cfg.validate(s.d); err != nil {
		return nil, fmt.Errorf("fork: %w", err)
	}
	changes, err := forkChanges(s.cfg, cfg)
	if err != nil {
		return nil, err
	}
	c, err := s.checkpointCopy()
	if err != nil {
		return nil, err
	}
	target := cfg
	target.Lambda = s.lambda // changed below, as SetLambda does
	wiring := []run.Option{run.WithTest(s.test), run.WithWorkers(s.workers), run.WithTrainLoss(s.trainLoss)}
	f, err := newSolver(s.p, target, append(wiring, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("solver: fork: %w", err)
	}
	fresh, err := f.checkpointCopy()
	if err != nil {
		return nil, err
	}
	if c.Method, c.Execution, err = f.encodeMethod(); err != nil {
		return nil, fmt.Errorf("solver: fork: %w", err)
	}
	if !sameExecution(target.Execution, s.cfg.Execution) {
		c.Queue = nil // a fork with another execution draws its own blocks
	}
	if err := s.adaptCheckpoint(c, fresh, f); err != nil {
		return nil, err
	}
	if err := f.restore(c); err != nil {
		return nil, fmt.Errorf("solver: fork: %w", err)
	}
	f.train = s.train // the same problem
	if cfg.GapEvery != s.cfg.GapEvery {
		f.loop.Reschedule(f.steps)
	}
	if cfg.TraceEvery != s.cfg.TraceEvery {
		f.loop.NextTrace = f.loop.Advance(f.steps, f.steps, cfg.TraceEvery)
	}
	pending := len(f.events) // changes of s not recorded yet stay as they are
	if cfg.Lambda != s.lambda {
		if err := f.SetLambda(cfg.Lambda); err != nil {
			return nil, fmt.Errorf("solver: fork: %w", err)
		}
	}
	changes = append(append([]string(nil), f.events[pending:]...), changes...)
	f.events = f.events[:pending]
	if len(changes) > 0 {
		f.noteEvent("fork: " + strings.Join(changes, ", "))
		if err := f.record(false); err != nil {
			return nil, fmt.Errorf("solver: fork: evaluating the fork: %w", err)
		}
	}
	return f, nil
}

// forkChanges checks that the move from old to cfg (both with defaults) is
// one Fork can make and describes it, one entry per changed setting
// (lambda aside: SetLambda records its own event).
func forkChanges(old, cfg config) ([]string, error) {
	switch {
	case cfg.Algorithm != old.Algorithm:
		return nil, fmt.Errorf("solver: fork: cannot switch the algorithm from %v to %v: their states differ (start a new run)", old.Algorithm, cfg.Algorithm)
	case !reflect.DeepEqual(cfg.Box, old.Box):
		return nil, errors.New("solver: fork: cannot change the box constraints of a run (start a new run)")
	case (old.Step == stepExact) != (cfg.Step == stepExact) && old.Algorithm == run.BCFW:
		return nil, fmt.Errorf("solver: fork: cannot switch from %v to %v steps: exact steps keep the class duals of a multiclass problem, the other steps block vectors or duals over corners (start a new run)", old.Step, cfg.Step)
	case old.Step == FWStep && cfg.Step != FWStep && old.Algorithm == run.BCFW:
		return nil, fmt.Errorf("solver: fork: cannot switch from Frank-Wolfe to %v steps: FW steps keep the block vectors v_i only, not the dual variables over corners that %v steps move mass between (fork the other way, or start a new run)", cfg.Step, cfg.Step)
	}
	var ch []string
	add := func(name string, a, b any) {
		if a != b {
			ch = append(ch, fmt.Sprintf("%s %v -> %v", name, a, b))
		}
	}
	add("sampling", old.Sampling, cfg.Sampling)
	add("unvisited in order", old.UnvisitedInOrder, cfg.UnvisitedInOrder)
	add("step", old.Step, cfg.Step)
	add("step size", stepSizeName(old.StepSize), stepSizeName(cfg.StepSize))
	add("cache", cacheName(old.Cache), cacheName(cfg.Cache))
	add("multi-plane", multiPlaneName(old.MultiPlane), multiPlaneName(cfg.MultiPlane))
	if !sameExecution(old.Execution, cfg.Execution) {
		ch = append(ch, fmt.Sprintf("execution %s -> %s", executionName(old.Execution), executionName(cfg.Execution)))
	}
	add("averaging", old.Averaging, cfg.Averaging)
	if old.Averaging && cfg.Averaging {
		add("average", old.AverageKind, cfg.AverageKind)
	}
	add("shrinking", old.Shrinking, cfg.Shrinking)
	add("gap every", old.GapEvery, cfg.GapEvery)
	add("trace every", old.TraceEvery, cfg.TraceEvery)
	add("seed", old.Seed, cfg.Seed)
	add("constraint cache", cpCacheName(old.CPCache), cpCacheName(cfg.CPCache))
	return ch, nil
}

func stepSizeName(s run.StepSize) string {
	if s == run.Predefined {
		return "predefined"
	}
	return "line search"
}

// cpCacheName describes the constraint cache of the cutting plane (empty
// for the other algorithms, which have none).
func cpCacheName(size int) string {
	switch {
	case size == 0:
		return ""
	case size < 0:
		return "off"
	}
	return fmt.Sprintf("size %d", size)
}

func cacheName(c cacheRule) string {
	if !c.Enabled {
		return "off"
	}
	if c.InitialGap > 0 {
		return fmt.Sprintf("F=%g nu=%g size %d initial gap %g", c.F, c.Nu, c.MaxSize, c.InitialGap)
	}
	return fmt.Sprintf("F=%g nu=%g size %d", c.F, c.Nu, c.MaxSize)
}

// checkpointCopy returns the state of s as a checkpoint sharing nothing
// with s (through its gob encoding, as Save writes it).
func (s *Solver) checkpointCopy() (*checkpoint, error) {
	var buf bytes.Buffer
	if err := s.save(&buf, false); err != nil {
		return nil, fmt.Errorf("solver: fork: %w", err)
	}
	var c checkpoint
	if _, err := core.ReadCheckpoint(&buf, "solver: fork", &c, func() int { return c.Version }, checkpointVersion, checkpointVersion); err != nil {
		return nil, fmt.Errorf("solver: fork: %w", err)
	}
	return &c, nil
}

// adaptCheckpoint turns the checkpoint c of s into the state of the fork f
// (built with the new configuration); fresh is f's own starting state,
// which supplies what starts anew at the fork.
func (s *Solver) adaptCheckpoint(c, fresh *checkpoint, f *Solver) error {
	old, cfg := s.cfg, f.cfg
	if f.store != nil && s.store.kind() != f.store.kind() {
		c.BlockU, c.BlockScale, c.BlockNorm, c.SparseIdx, c.SparseVal = nil, nil, nil, nil, nil
		if err := f.store.fill(c, s.n, s.store.dense); err != nil {
			return err
		}
	}
	switch {
	case f.sets == nil:
		c.Sets = nil
	case s.sets == nil:
		c.Sets = fresh.Sets // a cache turned on starts from the ground truth
	case old.explicitDuals() && !cfg.explicitDuals():
		// Pairwise or away -> FW with a cache: the corners stay as cached
		// ones; FW steps track no mass and keep no Gram matrix.
		for i := range c.Sets {
			clear(c.Sets[i].Alpha)
		}
	}
	if old.Sampling != cfg.Sampling {
		c.Perm, c.PermPos = fresh.Perm, fresh.PermPos
		c.Unvisited = nil
		if cfg.Sampling == run.GapSampling {
			for i, g := range c.GapEst {
				if math.IsInf(g, 1) {
					c.Unvisited = append(c.Unvisited, int32(i))
				}
			}
		}
	}
	if old.Seed != cfg.Seed {
		c.RNG = fresh.RNG
	}
	if cfg.Averaging && (!old.Averaging || old.AverageKind != cfg.AverageKind) {
		c.AvgS, c.AvgSync, c.AvgFull, c.AvgPartial, c.AvgEll, c.AvgK = fresh.AvgS, fresh.AvgSync, fresh.AvgFull, fresh.AvgPartial, fresh.AvgEll, fresh.AvgK
	}
	if old.MultiPlane != cfg.MultiPlane || (c.MultiPlane != nil && old.Averaging != cfg.Averaging) {
		f.reuse.fork(c, fresh, s)
	}
	return nil
}

// methodName names a method for messages (nil: none).
func methodName(m run.Method) string {
	if m == nil {
		return "no method"
	}
	return m.Name()
}
