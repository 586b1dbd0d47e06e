package tune

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
)

// TestPlanEqualsRun fits the units of a plan one by one, in reverse order,
// through a JSON round trip of the plan (as a worker gets it), and checks
// that Result gives Run's curve and choice, and the final unit Run's final
// model, bit for bit.
func TestPlanEqualsRun(t *testing.T) {
	ctx := context.Background()
	d := blobs(t, 45)
	for _, cold := range []bool{false, true} {
		cfg := Config{Lambdas: []float64{0.01, 1, 0.1}, Folds: 3, Seed: 5, Cold: cold, Stop: run.Stop{Passes: 4}}
		base := solver.BCFW{Sampling: run.GapSampling, Seed: 2}
		want, err := Run(ctx, d, base, cfg)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := NewPlan(d, base, cfg)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(plan)
		if err != nil {
			t.Fatal(err)
		}
		var back Plan
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		units := back.Units()
		if n := len(units); (cold && n != 9) || (!cold && n != 3) {
			t.Errorf("cold %v: %d units", cold, n)
		}
		var fits []Fit
		for _, u := range slices.Backward(units) {
			f, err := back.Fit(ctx, d, u)
			if err != nil {
				t.Fatal(err)
			}
			fits = append(fits, f...)
		}
		got, err := back.Result(fits)
		if err != nil {
			t.Fatal(err)
		}
		bits := math.Float64bits
		for k, p := range got.Curve {
			q := want.Curve[k]
			for f := range q.Folds {
				if bits(p.Folds[f]) != bits(q.Folds[f]) || bits(p.Gaps[f]) != bits(q.Gaps[f]) || bits(p.Primals[f]) != bits(q.Primals[f]) {
					t.Errorf("cold %v, value %d, fold %d: %+v, Run's %+v", cold, k, f, p, q)
				}
			}
		}
		if got.Best != want.Best || !run.Same(got.Method, want.Method) || got.Warm != !cold {
			t.Errorf("cold %v: best %d %v, Run's %d %v", cold, got.Best, got.Method, want.Best, want.Method)
		}
		final, err := back.Fit(ctx, d, back.FinalUnit(got))
		if err != nil {
			t.Fatal(err)
		}
		if cur, _ := want.Final.Current(); len(final) != 1 || bits(final[0].Value) != bits(want.Test) || bits(final[0].Primal) != bits(cur.Primal) {
			t.Errorf("cold %v: final %+v, Run's test %v primal %v", cold, final, want.Test, cur.Primal)
		}
	}
}

// TestPlanChecks: units and fits that are not the plan's are errors.
func TestPlanChecks(t *testing.T) {
	ctx := context.Background()
	d := blobs(t, 30)
	plan, err := NewPlan(d, solver.BCFW{Seed: 1}, Config{Lambdas: []float64{1, 0.1}, Folds: 2, Cold: true, Stop: run.Stop{Passes: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		u    Unit
		want string
	}{
		{Unit{Fold: 2, Lambdas: []float64{1}}, "fold 2 of a plan of 2 folds"},
		{Unit{Fold: 0, Lambdas: []float64{0.5}}, "lambda 0.5, not a value"},
		{Unit{Fold: 0, Lambdas: []float64{1, 0.1}}, "without warm starts"},
		{Unit{Fold: 0, Aux: 3, Lambdas: []float64{1}}, "not a value of the plan's grid"},
		{Unit{Fold: 0}, "without lambdas"},
	} {
		if _, err := plan.Fit(ctx, d, c.u); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.u, err, c.want)
		}
	}
	if _, err := plan.Fit(ctx, blobs(t, 31), plan.Units()[0]); err == nil || !strings.Contains(err.Error(), "30 training examples") {
		t.Errorf("other data: %v", err)
	}
	fits, err := plan.Fit(ctx, d, plan.Units()[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plan.Result(append(fits, Fit{Fold: 5, Lambda: 1})); err == nil || !strings.Contains(err.Error(), "no value of the validation") {
		t.Errorf("a stray fit: %v", err)
	}
	var p Plan
	if err := json.Unmarshal([]byte(`{"method": {"method": "bcfw"}, "knob": 1}`), &p); err == nil {
		t.Error("a plan with an unknown field: no error")
	}
}
