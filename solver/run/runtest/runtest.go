// Package runtest checks that a solver keeps the contract of run.Solver
// that every family shares, in the spirit of testing/fstest for file
// systems (and of oracles/oraclestest for problems): every solver family
// runs Conformance in its tests, for each of its variants, on a small
// problem.
//
// The contract:
//
//   - a run split into several Run calls is the whole run, bit for bit
//     (trace and final iterate; solver time aside);
//   - Save and the family's Load continue a run bit for bit;
//   - Run refuses an invalid Stop (negative, NaN or infinite criteria,
//     EarlyCheck without Gap, no criterion without a cancellable context)
//     with an error, changing nothing;
//   - Evaluate changes nothing and agrees with Current; Current appends an
//     observe-only point exactly when the trace does not end at the
//     current iterate (Result.Current says which), and never counts passes;
//   - a run never exceeds Stop.Passes, and Result.Last is the last point;
//   - every trace point with an exact gap is a certificate: primal - dual =
//     gap, gap >= 0, up to rounding (for the averaged iterate too);
//   - a canceled context stops Run with StatusCanceled and no error, and a
//     run canceled at a trace point and continued is the whole run.
//
// The checks compare the runs of several fresh solvers of the same
// configuration, so Family.New must build the same run every time (a
// fixed seed).
package runtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"testing"

	"github.com/fwstruct/fwstruct/solver/run"
)

// Family is a solver family's configuration under test.
type Family struct {
	// New returns a fresh solver of the configuration under test; every
	// call the same run.
	New func() (run.Solver, error)
	// Load reads what Save wrote (the family's Load on the same problem,
	// with the same wiring as New).
	Load func(r io.Reader) (run.Solver, error)
	// Iterate, when set, returns the solver's current iterate (weights or
	// dual variables), compared bit for bit between runs that must agree.
	Iterate func(s run.Solver) []float64
	// Passes is the budget of the whole run (default 8); the split runs
	// stop at a fraction of it. A few gap passes should fall within it.
	Passes float64
	// Tolerance bounds |primal - dual - gap| and -gap, relative to
	// 1 + |primal| (default 1e-9).
	Tolerance float64
	// NoGap says that the solver computes no duality gap (the stochastic
	// subgradient method): Certificates then checks that no point claims
	// one.
	NoGap bool
}

// Conformance runs every check of Check as a subtest of t.
func Conformance(t *testing.T, f Family) {
	t.Helper()
	f = f.withDefaults()
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if err := c.fn(f); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Check runs every check and returns the first violation of the contract
// (nil when none).
func Check(f Family) error {
	f = f.withDefaults()
	for _, c := range checks {
		if err := c.fn(f); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	return nil
}

func (f Family) withDefaults() Family {
	if f.Passes == 0 {
		f.Passes = 8
	}
	if f.Tolerance == 0 {
		f.Tolerance = 1e-9
	}
	return f
}

var checks = []struct {
	name string
	fn   func(Family) error
}{
	{"SplitRunIsWholeRun", splitRun},
	{"SaveLoadContinues", saveLoad},
	{"StopValidation", stopValidation},
	{"Certificates", certificates},
	{"BudgetAndResult", budgetAndResult},
	{"CurrentAndEvaluate", currentAndEvaluate},
	{"Cancellation", cancellation},
}

// runTo runs s until stop with a background context.
func runTo(s run.Solver, stop run.Stop) (run.Result, error) {
	return s.Run(context.Background(), stop)
}

// whole returns a solver that made the whole run in one Run call.
func (f Family) whole() (run.Solver, error) {
	s, err := f.New()
	if err != nil {
		return nil, fmt.Errorf("new solver: %w", err)
	}
	if _, err := runTo(s, run.Stop{Passes: f.Passes}); err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	return s, nil
}

// pair returns a solver that made the whole run and a fresh one, whose
// run a check then makes in another way.
func (f Family) pair() (want, fresh run.Solver, err error) {
	if want, err = f.whole(); err != nil {
		return nil, nil, err
	}
	if fresh, err = f.New(); err != nil {
		return nil, nil, fmt.Errorf("new solver: %w", err)
	}
	return want, fresh, nil
}

func splitRun(f Family) error {
	want, s, err := f.pair()
	if err != nil {
		return err
	}
	for _, frac := range []float64{0.3, 0.55, 1} {
		if _, err := runTo(s, run.Stop{Passes: frac * f.Passes}); err != nil {
			return fmt.Errorf("running to %v passes: %w", frac*f.Passes, err)
		}
	}
	return f.sameRun("a run split at 30% and 55% of the budget", s, want)
}

func saveLoad(f Family) error {
	want, s, err := f.pair()
	if err != nil {
		return err
	}
	for _, frac := range []float64{0.4, 0.7} {
		if _, err := runTo(s, run.Stop{Passes: frac * f.Passes}); err != nil {
			return err
		}
		var buf bytes.Buffer
		if err := s.Save(&buf); err != nil {
			return fmt.Errorf("save: %w", err)
		}
		loaded, err := f.Load(&buf)
		if err != nil {
			return fmt.Errorf("load: %w", err)
		}
		if err := f.sameRun("a loaded run", loaded, s); err != nil {
			return err
		}
		s = loaded
	}
	if _, err := runTo(s, run.Stop{Passes: f.Passes}); err != nil {
		return err
	}
	return f.sameRun("a run saved and loaded at 40% and 70% of the budget", s, want)
}

func stopValidation(f Family) error {
	s, err := f.New()
	if err != nil {
		return err
	}
	if _, err := runTo(s, run.Stop{Passes: f.Passes / 4}); err != nil {
		return err
	}
	before, passes := s.Trace(), s.Passes()
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		what string
		stop run.Stop
	}{
		{"negative Passes", run.Stop{Passes: -1}},
		{"NaN Passes", run.Stop{Passes: nan}},
		{"infinite Passes", run.Stop{Passes: inf}},
		{"negative Gap", run.Stop{Passes: f.Passes, Gap: -0.1}},
		{"NaN Gap", run.Stop{Passes: f.Passes, Gap: nan}},
		{"infinite GapEstimate", run.Stop{Passes: f.Passes, GapEstimate: inf}},
		{"negative EarlyCheck", run.Stop{Passes: f.Passes, Gap: 0.1, EarlyCheck: -1}},
		{"EarlyCheck without Gap", run.Stop{Passes: f.Passes, EarlyCheck: 0.8}},
		{"negative Duration", run.Stop{Passes: f.Passes, Duration: -1}},
		{"no criterion and no cancellable context", run.Stop{}},
	} {
		if _, err := runTo(s, c.stop); err == nil {
			return fmt.Errorf("a Stop with %s was accepted", c.what)
		}
		if s.Passes() != passes || !reflect.DeepEqual(pointsKey(s.Trace()), pointsKey(before)) {
			return fmt.Errorf("a refused Stop with %s changed the state (passes %v -> %v, %d -> %d points)",
				c.what, passes, s.Passes(), len(before), len(s.Trace()))
		}
	}
	return nil
}

func currentAndEvaluate(f Family) error {
	want, s, err := f.pair()
	if err != nil {
		return err
	}
	for _, frac := range []float64{0.35, 0.8} {
		res, err := runTo(s, run.Stop{Passes: frac * f.Passes})
		if err != nil {
			return err
		}
		tr, passes := s.Trace(), s.Passes()
		e1, err := s.Evaluate()
		if err != nil {
			return fmt.Errorf("evaluate: %w", err)
		}
		e2, err := s.Evaluate()
		if err != nil {
			return fmt.Errorf("evaluate: %w", err)
		}
		if err := samePoint(e1, e2); err != nil {
			return fmt.Errorf("two Evaluate calls differ: %w", err)
		}
		if s.Passes() != passes || len(s.Trace()) != len(tr) {
			return fmt.Errorf("an Evaluate call changed the state (passes %v -> %v, %d -> %d points)", passes, s.Passes(), len(tr), len(s.Trace()))
		}
		cur, err := s.Current()
		if err != nil {
			return fmt.Errorf("current: %w", err)
		}
		added := len(s.Trace()) - len(tr)
		switch {
		case res.Current && added != 0:
			return fmt.Errorf("the trace ended at the iterate (Result.Current), but Current appended %d points", added)
		case !res.Current && added != 1:
			return fmt.Errorf("the trace did not end at the iterate (Result.Current), but Current appended %d points, want 1", added)
		case s.Passes() != passes:
			return fmt.Errorf("a Current call changed the passes from %v to %v", passes, s.Passes())
		case cur.Pass != passes || cur.Steps != e1.Steps:
			return fmt.Errorf("the point of Current describes pass %v step %d, the solver is at pass %v, Evaluate at step %d", cur.Pass, cur.Steps, passes, e1.Steps)
		}
		if last, _ := lastPoint(s); pointsKey([]run.Point{last})[0] != pointsKey([]run.Point{cur})[0] {
			return errors.New("the point Current returned is not the trace's last")
		}
		if err := f.close("Current and Evaluate", cur, e1); err != nil {
			return err
		}
		again, err := s.Current()
		if err != nil {
			return err
		}
		if len(s.Trace()) != len(tr)+added || samePoint(again, cur) != nil {
			return errors.New("a second Current call appended a point or returned another one")
		}
	}
	// Observe-only evaluations never change the run: the iterate and the
	// counters at the end are those of the whole run.
	if _, err := runTo(s, run.Stop{Passes: f.Passes}); err != nil {
		return err
	}
	if f.Iterate != nil && !sameFloats(f.Iterate(s), f.Iterate(want)) {
		return errors.New("a run with Evaluate and Current calls ended at another iterate than the whole run")
	}
	a, err := s.Evaluate()
	if err != nil {
		return err
	}
	b, err := want.Evaluate()
	if err != nil {
		return err
	}
	if err := samePoint(a, b); err != nil {
		return fmt.Errorf("a run with Evaluate and Current calls ended elsewhere than the whole run: %w", err)
	}
	return nil
}

func budgetAndResult(f Family) error {
	s, err := f.New()
	if err != nil {
		return err
	}
	for _, budget := range []float64{0.5 * f.Passes, 0.5 * f.Passes, f.Passes + 0.5} {
		res, err := runTo(s, run.Stop{Passes: budget})
		if err != nil {
			return err
		}
		if s.Passes() > budget+1e-9 {
			return fmt.Errorf("a run with Stop.Passes %v ended at %v passes", budget, s.Passes())
		}
		if res.Status != run.StatusPasses && res.Status != run.StatusConverged {
			return fmt.Errorf("a run with Stop.Passes %v returned %v", budget, res.Status)
		}
		last, ok := lastPoint(s)
		if !ok || samePoint(last, res.Last) != nil {
			return errors.New("the Last point of the result is not the trace's last")
		}
		if last.Pass > s.Passes()+1e-9 {
			return fmt.Errorf("the last point is at pass %v, after the solver's %v", last.Pass, s.Passes())
		}
		tr := s.Trace()
		tr[len(tr)-1].Primal = 12345
		if l, _ := lastPoint(s); l.Primal == 12345 {
			return errors.New("the slice Trace returns is the solver's own, not a copy")
		}
	}
	return nil
}

func certificates(f Family) error {
	s, err := f.whole()
	if err != nil {
		return err
	}
	if _, err := s.Current(); err != nil {
		return err
	}
	gaps := 0
	for k, p := range s.Trace() {
		if p.ApproximateGap {
			continue
		}
		for _, c := range []struct {
			what              string
			primal, dual, gap float64
		}{{"", p.Primal, p.Dual, p.Gap}, {"averaged ", p.PrimalAvg, p.DualAvg, p.GapAvg}} {
			if math.IsNaN(c.gap) {
				continue
			}
			gaps++
			tol := f.Tolerance * (1 + math.Abs(c.primal))
			if math.Abs(c.primal-c.dual-c.gap) > tol || c.gap < -tol {
				return fmt.Errorf("point %d (pass %v): %sprimal %v - dual %v = %v, gap %v: not a certificate", k, p.Pass, c.what, c.primal, c.dual, c.primal-c.dual, c.gap)
			}
		}
	}
	switch {
	case f.NoGap && gaps > 0:
		return fmt.Errorf("%d trace points have a gap, but the family computes none", gaps)
	case !f.NoGap && gaps == 0:
		return errors.New("no trace point has a gap to check")
	}
	return nil
}

func cancellation(f Family) error {
	s, err := f.New()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, at := range []float64{0, 0.45 * f.Passes} {
		if at > 0 {
			if _, err := runTo(s, run.Stop{Passes: at}); err != nil {
				return err
			}
		}
		before := s.Passes()
		res, err := s.Run(ctx, run.Stop{Passes: f.Passes})
		if err != nil || res.Status != run.StatusCanceled {
			return fmt.Errorf("a run at %v passes with a canceled context: status %v, error %v; want canceled and no error", before, res.Status, err)
		}
		if s.Passes() > before {
			return fmt.Errorf("a run at %v passes with a canceled context made %v passes", before, s.Passes()-before)
		}
	}
	// Canceled at the third trace point, then continued: the whole run.
	want, s, err := f.pair()
	if err != nil {
		return err
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	points := 0
	s.SetProgress(func(run.Point) {
		if points++; points == 3 {
			cancel()
		}
	})
	res, err := s.Run(ctx, run.Stop{Passes: f.Passes})
	if err != nil {
		return err
	}
	if res.Status != run.StatusCanceled && len(want.Trace()) > 3 {
		return fmt.Errorf("a run canceled at its third trace point returned %v after %v passes", res.Status, s.Passes())
	}
	s.SetProgress(nil)
	if _, err := runTo(s, run.Stop{Passes: f.Passes}); err != nil {
		return err
	}
	return f.sameRun("a run canceled at its third trace point and continued", s, want)
}

// sameRun compares the trace, the passes and the iterate of got with
// those of want (the reference run).
func (f Family) sameRun(what string, got, want run.Solver) error {
	a, b := got.Trace(), want.Trace()
	if len(a) != len(b) {
		return fmt.Errorf("%s has %d trace points, the reference run %d", what, len(a), len(b))
	}
	for k := range a {
		if err := samePoint(a[k], b[k]); err != nil {
			return fmt.Errorf("%s: trace point %d: %w", what, k, err)
		}
	}
	if got.Passes() != want.Passes() {
		return fmt.Errorf("%s is at %v passes, the reference run at %v", what, got.Passes(), want.Passes())
	}
	if f.Iterate != nil && !sameFloats(f.Iterate(got), f.Iterate(want)) {
		return fmt.Errorf("%s is at another iterate than the reference run", what)
	}
	return nil
}

// wallClock lists the fields that measure time, never compared.
var wallClock = map[string]bool{"Seconds": true, "EvalSeconds": true, "OracleTimeShare": true}

// samePoint reports the first field in which two points differ, bit for
// bit (NaN equals NaN), time aside.
func samePoint(a, b run.Point) error {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	for j := 0; j < va.NumField(); j++ {
		name := va.Type().Field(j).Name
		if wallClock[name] {
			continue
		}
		x, y := va.Field(j), vb.Field(j)
		if x.Kind() == reflect.Float64 {
			if math.Float64bits(x.Float()) != math.Float64bits(y.Float()) && !(math.IsNaN(x.Float()) && math.IsNaN(y.Float())) {
				return fmt.Errorf("%s %v, want %v", name, x.Float(), y.Float())
			}
		} else if !x.Equal(y) {
			return fmt.Errorf("%s %v, want %v", name, x.Interface(), y.Interface())
		}
	}
	return nil
}

// pointsKey returns comparable descriptions of points (time aside).
func pointsKey(tr []run.Point) []string {
	out := make([]string, len(tr))
	for k, p := range tr {
		p.Seconds, p.EvalSeconds, p.OracleTimeShare = 0, 0, 0
		out[k] = fmt.Sprintf("%#v", p)
	}
	return out
}

// close compares the objectives of two evaluations of the same iterate
// made in different ways, up to the tolerance.
func (f Family) close(what string, a, b run.Point) error {
	for _, c := range []struct {
		name string
		x, y float64
	}{{"primal", a.Primal, b.Primal}, {"dual", a.Dual, b.Dual}, {"gap", a.Gap, b.Gap},
		{"averaged primal", a.PrimalAvg, b.PrimalAvg}, {"train loss", a.TrainLoss, b.TrainLoss}, {"test loss", a.TestLoss, b.TestLoss}} {
		if math.IsNaN(c.x) != math.IsNaN(c.y) || math.Abs(c.x-c.y) > f.Tolerance*(1+math.Abs(c.x)) {
			return fmt.Errorf("%s disagree on the %s of the same iterate: %v vs %v", what, c.name, c.x, c.y)
		}
	}
	return nil
}

func lastPoint(s run.Solver) (run.Point, bool) {
	tr := s.Trace()
	if len(tr) == 0 {
		return run.Point{}, false
	}
	return tr[len(tr)-1], true
}

func sameFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if math.Float64bits(a[k]) != math.Float64bits(b[k]) {
			return false
		}
	}
	return true
}
