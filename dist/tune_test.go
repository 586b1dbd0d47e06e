package dist

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/tune"
)

// TestTunePrismEqualsLocal runs tuning grids as pipelines on prism and
// compares them with tune.Run on the same data: the same curve (the metric,
// gap, primal objective and passes of every value on every fold, bit for
// bit), the same chosen value and the same final model.
func TestTunePrismEqualsLocal(t *testing.T) {
	ctx := context.Background()
	spec := synthetic(5)
	d, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		base run.Method
		cfg  tune.Config
	}{
		{"bcfw-warm", solver.BCFW{Sampling: run.GapSampling, Seed: 3}, tune.Config{Lambdas: []float64{0.1, 0.01, 0.001}, Folds: 3, Seed: 2, Stop: run.Stop{Passes: 4}}},
		{"bcfw-cold", solver.BCFW{Seed: 1}, tune.Config{Lambdas: []float64{1, 0.01}, Folds: 2, Cold: true, Stop: run.Stop{Passes: 3}}},
		{"ssg-hold-out", solver.SSG{Seed: 4}, tune.Config{Lambdas: []float64{0.1, 0.01}, HoldOut: 0.3, Stop: run.Stop{Passes: 3}}},
		{"auto", nil, tune.Config{Lambdas: []float64{0.1, 0.01}, Folds: 2, Stop: run.Stop{Passes: 3}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			local, err := tune.Run(ctx, d, c.base, c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := tune.NewPlan(d, c.base, c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Tune(ctx, Beam{}, spec, plan)
			if err != nil {
				t.Fatal(err)
			}
			bits := math.Float64bits
			if len(got.Curve) != len(local.Curve) || got.Best != local.Best || !run.Same(got.Method, local.Method) ||
				bits(got.Test) != bits(local.Test) || got.Warm != local.Warm || got.Folds != local.Folds {
				t.Fatalf("prism: %d values, best %d, %v, test %v; local: %d, %d, %v, %v",
					len(got.Curve), got.Best, got.Method, got.Test, len(local.Curve), local.Best, local.Method, local.Test)
			}
			for k, p := range got.Curve {
				q := local.Curve[k]
				for _, v := range [][2][]float64{{p.Folds, q.Folds}, {p.Gaps, q.Gaps}, {p.Primals, q.Primals}, {p.Passes, q.Passes},
					{{p.Lambda, p.Aux, p.Mean, p.StdErr}, {q.Lambda, q.Aux, q.Mean, q.StdErr}}} {
					for f := range v[1] {
						if len(v[0]) != len(v[1]) || bits(v[0][f]) != bits(v[1][f]) {
							t.Fatalf("value %d: prism %+v, local %+v", k, p, q)
						}
					}
				}
			}
			last, err := local.Final.Current()
			if err != nil {
				t.Fatal(err)
			}
			if ff := got.FinalFit; bits(ff.Gap) != bits(last.Gap) || bits(ff.Primal) != bits(last.Primal) || ff.Passes != local.Final.Passes() {
				t.Errorf("final model: prism %+v, local %+v after %v passes", ff, last, local.Final.Passes())
			}
			pc, pr := got.Table()
			lc, lr := local.Table()
			if strings.Join(pc, "|") != strings.Join(lc, "|") || len(pr) != len(lr) {
				t.Fatalf("tables: %v %v, %v %v", pc, pr, lc, lr)
			}
			for i := range pr {
				if strings.Join(pr[i], "|") != strings.Join(lr[i], "|") {
					t.Errorf("table row %d: %v, local %v", i, pr[i], lr[i])
				}
			}
		})
	}
}

// TestTuneUnitsOnce: a tune unit's fits counted twice, or missing, is an
// error of the run (the exactly-once check of every run, then tune's own).
func TestTuneUnitsOnce(t *testing.T) {
	ctx := context.Background()
	spec := synthetic(5)
	d, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	plan, err := tune.NewPlan(d, solver.BCFW{Seed: 1}, tune.Config{Lambdas: []float64{0.1}, Folds: 2, Stop: run.Stop{Passes: 1}})
	if err != nil {
		t.Fatal(err)
	}
	units := plan.Units()
	var work []Unit
	for _, u := range append(units, units[0]) {
		w, err := newTuneUnit(plan, spec, u)
		if err != nil {
			t.Fatal(err)
		}
		work = append(work, w)
	}
	if _, err := runTune(ctx, Local{}, work); err == nil || !strings.Contains(err.Error(), "two units have the key") {
		t.Errorf("a unit twice: %v", err)
	}
	fits, err := runTune(ctx, Local{}, work[:len(units)])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plan.Result(append(fits, fits[0])); err == nil || !strings.Contains(err.Error(), "two fits on fold 1") {
		t.Errorf("a fit twice: %v", err)
	}
	if _, err := plan.Result(fits[1:]); err == nil || !strings.Contains(err.Error(), "no fit on fold 1") {
		t.Errorf("a fit missing: %v", err)
	}
}
