package core

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/solver/run"
)

// ValidateSchedule checks the settings every family shares (after
// defaults): lambda positive and finite, GapEvery positive (+Inf: never),
// TraceEvery finite and >= 0 (0: none). Families prefix the error with
// their name.
func ValidateSchedule(lambda, gapEvery, traceEvery float64) error {
	switch {
	case !(lambda > 0) || math.IsInf(lambda, 1):
		return fmt.Errorf("lambda must be a positive finite number, got %v", lambda)
	case !(gapEvery > 0):
		return fmt.Errorf("GapEvery must be positive (or +Inf for never), got %v", gapEvery)
	case !(traceEvery >= 0) || math.IsInf(traceEvery, 1):
		return fmt.Errorf("TraceEvery must be finite and >= 0 (0: none), got %v", traceEvery)
	}
	return nil
}

// ValidateExampleSampling checks the sampling of a solver whose blocks are
// whole examples: run.Uniform, run.Permutation or run.GapSampling.
func ValidateExampleSampling(s run.Sampling) error {
	switch {
	case s == run.ExamplePermutation:
		return errors.New("example-perm sampling groups the (example, node) blocks of the soft solver; the blocks of this solver are whole examples: use perm")
	case s < run.Uniform || s > run.GapSampling:
		return fmt.Errorf("unknown sampling %d", s)
	}
	return nil
}

// ValidateStepSize checks a step size rule: run.LineSearch or
// run.Predefined.
func ValidateStepSize(s run.StepSize) error {
	if s != run.LineSearch && s != run.Predefined {
		return fmt.Errorf("unknown step size rule %d", s)
	}
	return nil
}

// Stoppable is what a solver tells CheckStop about the criteria it can
// meet.
type Stoppable struct {
	// GapEvery and TraceEvery are the solver's schedule: with GapEvery =
	// +Inf, no TraceEvery and no Stop.EarlyCheck, no exact gap is ever
	// computed, unless GapEveryStep.
	GapEvery, TraceEvery float64
	// GapEveryStep is true for solvers that know the gap of every iterate
	// (batch Frank-Wolfe), whatever their schedule.
	GapEveryStep bool
	// NoGap, when not empty, says why no exact gap is ever certified (Stop.Gap
	// is refused with it).
	NoGap string
	// NoEstimate, when not empty, says why the solver keeps no stale gap
	// estimates (Stop.GapEstimate is refused with it).
	NoEstimate string
}

// CheckStop validates stop (ValidateStop) and refuses a Run that could
// never end on the criteria it sets, given what the solver computes.
// Families prefix the error with their name.
func CheckStop(ctx context.Context, stop run.Stop, st Stoppable) error {
	if err := ValidateStop(ctx, stop); err != nil {
		return err
	}
	if stop.Gap > 0 {
		switch {
		case st.NoGap != "":
			return errors.New(st.NoGap)
		case !st.GapEveryStep && math.IsInf(st.GapEvery, 1) && st.TraceEvery == 0 && stop.EarlyCheck == 0:
			return errors.New("with GapEvery = +Inf and no TraceEvery the gap is never computed, so Stop.Gap can never stop the run; set GapEvery, TraceEvery or EarlyCheck")
		}
	}
	if stop.GapEstimate > 0 && st.NoEstimate != "" {
		return errors.New(st.NoEstimate)
	}
	return nil
}

// ValidateStop checks what every solver of the family requires of a Stop:
// finite non-negative criteria, EarlyCheck only with Gap, and some way to
// end the run (a criterion or a cancellable context). CheckStop adds what
// depends on the solver.
func ValidateStop(ctx context.Context, stop run.Stop) error {
	for _, c := range []struct {
		name string
		v    float64
	}{{"Passes", stop.Passes}, {"Gap", stop.Gap}, {"GapEstimate", stop.GapEstimate}, {"EarlyCheck", stop.EarlyCheck}} {
		if c.v < 0 || math.IsNaN(c.v) || math.IsInf(c.v, 0) {
			return fmt.Errorf("the stopping criterion Stop.%s must be finite and >= 0 (0: off), got %v", c.name, c.v)
		}
	}
	if stop.Duration < 0 {
		return fmt.Errorf("Stop.Duration must be >= 0 (0: off), got %v", stop.Duration)
	}
	if stop.EarlyCheck > 0 && stop.Gap == 0 {
		return errors.New("Stop.EarlyCheck needs Stop.Gap")
	}
	if stop == (run.Stop{}) && ctx.Done() == nil {
		return errors.New("Run needs a stopping criterion (Stop) or a cancellable context")
	}
	return nil
}

// NegativeGap reports whether an exact duality gap is negative beyond
// rounding: below -1e-9 max(1, |primal|). Weak duality makes every exact
// gap nonnegative, so such a gap is an inconsistent oracle, changed data or
// a corrupt state, never a result.
func NegativeGap(gap, primal float64) bool {
	return gap < -1e-9*max(1, math.Abs(primal))
}

// Certify checks the duality gaps the exact evaluation pt certifies, at
// the iterate and at its average: a gap below zero beyond the rounding
// tolerance of NegativeGap (1e-9 relative to the primal) is an error,
// which a run reports as its error, never as convergence; a negative gap
// within it is rounding, and is set to 0 so that no trace, summary, model
// or table reports a negative gap.
func Certify(pt *run.Point) error {
	if pt.ApproximateGap {
		return nil
	}
	for _, c := range []struct {
		what         string
		gap          *float64
		primal, dual float64
	}{{"", &pt.Gap, pt.Primal, pt.Dual}, {"averaged ", &pt.GapAvg, pt.PrimalAvg, pt.DualAvg}} {
		if NegativeGap(*c.gap, c.primal) {
			return fmt.Errorf("negative %sduality gap %.6g (primal %.10g, dual %.10g): an exact gap is never below 0, so the max oracle is inconsistent with Loss and Psi (a wrong H, or an oracle that is wrong when called concurrently), the data changed under the run, or the state is corrupt", c.what, *c.gap, c.primal, c.dual)
		}
		if *c.gap < 0 {
			*c.gap = 0
		}
	}
	return nil
}
