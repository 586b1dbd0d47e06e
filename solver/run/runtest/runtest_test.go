package runtest_test

import (
	"bytes"
	"context"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/run/runtest"
)

func chain() *oracles.Chain {
	return oraclestest.Chain(oraclestest.ChainConfig{N: 10, MaxLen: 4, Labels: 3, Features: 4, Density: 0.7, Seed: 3})
}

// family returns the conformance family of BCFW with gap sampling on a
// small chain, each solver wrapped by wrap (nil: none).
func family(wrap func(*solver.Solver) run.Solver) runtest.Family {
	return familyOf(solver.BCFW{Lambda: 0.05, Sampling: run.GapSampling, Average: run.WeightedAverage, GapEvery: 1, Seed: 2}, wrap)
}

// familyOf returns the conformance family of method m on a small chain.
func familyOf(m run.Method, wrap func(*solver.Solver) run.Solver) runtest.Family {
	p := chain()
	if wrap == nil {
		wrap = func(s *solver.Solver) run.Solver { return s }
	}
	return runtest.Family{
		New: func() (run.Solver, error) {
			s, err := m.New(p)
			if err != nil {
				return nil, err
			}
			return wrap(s.(*solver.Solver)), nil
		},
		Load: func(r io.Reader) (run.Solver, error) {
			s, err := solver.Load(r, p)
			if err != nil {
				return nil, err
			}
			return wrap(s), nil
		},
		Iterate: func(s run.Solver) []float64 { return unwrap(s).Weights() },
	}
}

func unwrap(s run.Solver) *solver.Solver {
	switch s := s.(type) {
	case *broken:
		return s.Solver
	case *aliased:
		return s.Solver
	}
	return s.(*solver.Solver)
}

// TestConformanceOfARealSolver: BCFW passes the suite.
func TestConformanceOfARealSolver(t *testing.T) {
	runtest.Conformance(t, family(nil))
}

// TestConformanceOfSuffixAndUniformAverages: BCFW-tavg, SSG-tavg, SSG-avg
// and online EG (with a suffix average) pass the suite (the averages
// restart at powers of 2 or span the run, and a checkpoint must carry them
// and online EG's Gibbs dual variables bit for bit).
func TestConformanceOfSuffixAndUniformAverages(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    run.Method
	}{
		{"bcfw-tavg", solver.BCFW{Lambda: 0.05, Average: run.SuffixAverage, GapEvery: 1, Seed: 2}},
		{"ssg-tavg", solver.SSG{Lambda: 0.05, Average: run.SuffixAverage, GapEvery: 1, Seed: 2}},
		{"ssg-avg", solver.SSG{Lambda: 0.05, Average: run.UniformAverage, GapEvery: 1, Seed: 2}},
		{"online-eg-tavg", solver.OnlineEG{Lambda: 0.05, Average: run.SuffixAverage, GapEvery: 1, Seed: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := familyOf(tc.m, nil)
			f.NoGap = tc.m.Name() == "ssg"
			runtest.Conformance(t, f)
		})
	}
}

// broken is a solver that breaks one rule of the contract.
type broken struct {
	*solver.Solver
	flaw string
	runs int
}

func (b *broken) Run(ctx context.Context, stop run.Stop) (run.Result, error) {
	b.runs++
	switch b.flaw {
	case "split":
		if b.runs > 1 { // every later call restarts the gap schedule
			if err := b.Solver.SetLambda(b.Solver.Lambda() * (1 - 1e-12)); err != nil {
				return run.Result{}, err
			}
		}
	case "stop":
		if stop.Passes < 0 || math.IsNaN(stop.Passes) {
			stop.Passes = 0
		}
		if stop == (run.Stop{}) {
			stop.Passes = b.Solver.Passes() + 1
		}
	case "cancel":
		ctx = context.Background()
	case "budget":
		if stop.Passes > 0 {
			stop.Passes += 0.75
		}
	}
	return b.Solver.Run(ctx, stop)
}

func (b *broken) Evaluate() (run.Point, error) {
	if b.flaw == "evaluate" {
		return b.Solver.Current() // records the point
	}
	return b.Solver.Evaluate()
}

func (b *broken) Current() (run.Point, error) {
	if b.flaw == "current" { // evaluates without recording
		return b.Solver.Evaluate()
	}
	return b.Solver.Current()
}

func (b *broken) Trace() []run.Point {
	tr := b.Solver.Trace()
	if b.flaw == "certificate" {
		for k := range tr {
			tr[k].Gap *= 0.9
		}
	}
	return tr
}

func (b *broken) Save(w io.Writer) error {
	if b.flaw == "save" { // saves the starting state
		f, err := b.Solver.Method().New(b.Solver.Problem())
		if err != nil {
			return err
		}
		return f.Save(w)
	}
	if b.flaw == "reseed" { // saves another random state
		var buf bytes.Buffer
		if err := b.Solver.Save(&buf); err != nil {
			return err
		}
		f, err := solver.Load(&buf, b.Solver.Problem())
		if err != nil {
			return err
		}
		m := f.Method().(solver.BCFW)
		m.Seed++
		g, err := f.Fork(m)
		if err != nil {
			return err
		}
		return g.Save(w)
	}
	return b.Solver.Save(w)
}

// TestCatchesBrokenSolvers: each broken solver fails the suite on the rule
// it breaks.
func TestCatchesBrokenSolvers(t *testing.T) {
	for _, tc := range []struct{ flaw, check string }{
		{"split", "SplitRunIsWholeRun"},
		{"save", "SaveLoadContinues"},
		{"reseed", "SaveLoadContinues"},
		{"stop", "StopValidation"},
		{"evaluate", "CurrentAndEvaluate"},
		{"current", "CurrentAndEvaluate"},
		{"certificate", "Certificates"},
		{"cancel", "Cancellation"},
		{"budget", "BudgetAndResult"},
	} {
		t.Run(tc.flaw, func(t *testing.T) {
			f := family(func(s *solver.Solver) run.Solver { return &broken{Solver: s, flaw: tc.flaw} })
			err := runtest.Check(f)
			if err == nil {
				t.Fatalf("a solver with the %s flaw passed", tc.flaw)
			}
			if !strings.HasPrefix(err.Error(), tc.check+":") {
				t.Fatalf("the %s flaw was caught by another check than %s: %v", tc.flaw, tc.check, err)
			}
			t.Log(err)
		})
	}
}

// TestCatchesTraceAliasing: a Trace that hands out the solver's own slice
// is caught.
func TestCatchesTraceAliasing(t *testing.T) {
	f := family(func(s *solver.Solver) run.Solver { return &aliased{Solver: s} })
	if err := runtest.Check(f); err == nil || !strings.Contains(err.Error(), "copy") {
		t.Fatalf("err %v", err)
	}
}

// aliased keeps its own trace and returns it without copying.
type aliased struct {
	*solver.Solver
	trace []run.Point
}

func (a *aliased) Trace() []run.Point {
	tr := a.Solver.Trace()
	if len(a.trace) != len(tr) {
		a.trace = tr
	}
	return a.trace
}
