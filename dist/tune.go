package dist

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/tune"
)

// TaskTune is the task of a unit of a tuning grid: one tune.Unit of a
// tune.Plan (one value of the grid on one fold, or one fold's warm-started
// walk down the lambda grid, or the final model), trained and scored by
// tune.Plan.Fit on the worker.
const TaskTune = "tune"

func init() { registerTask(TaskTune, tuneTask) }

// tuneUnit is the input of a tune unit.
type tuneUnit struct {
	Plan *tune.Plan    `json:"plan"`
	Data datasets.Spec `json:"data"`
	Unit tune.Unit     `json:"unit"`
}

// wireFit is a tune.Fit on the wire: the floats as their IEEE 754 bits,
// so that NaN (a metric or a gap not computed) and every value come back
// as they were.
type wireFit struct {
	Fold                                    int
	Lambda, Aux, Value, Gap, Primal, Passes uint64
}

func toWire(f tune.Fit) wireFit {
	b := math.Float64bits
	return wireFit{f.Fold, b(f.Lambda), b(f.Aux), b(f.Value), b(f.Gap), b(f.Primal), b(f.Passes)}
}

func (w wireFit) fit() tune.Fit {
	f := math.Float64frombits
	return tune.Fit{Fold: w.Fold, Lambda: f(w.Lambda), Aux: f(w.Aux), Value: f(w.Value), Gap: f(w.Gap), Primal: f(w.Primal), Passes: f(w.Passes)}
}

// tuneTask fits a tune unit on the worker.
func tuneTask(ctx context.Context, spec []byte) ([]byte, error) {
	var t tuneUnit
	dec := json.NewDecoder(bytes.NewReader(spec))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("the unit: %w", err)
	}
	if t.Plan == nil {
		return nil, errors.New("the unit has no plan")
	}
	d, err := loadData(t.Data)
	if err != nil {
		return nil, err
	}
	fits, err := t.Plan.Fit(ctx, d, t.Unit)
	if err != nil {
		return nil, err
	}
	out := make([]wireFit, len(fits))
	for i, f := range fits {
		out[i] = toWire(f)
	}
	return json.Marshal(out)
}

// TuneResult is the outcome of Tune: tune's Result (its Final nil, Test
// the final model's test metric) and the final model's fit.
type TuneResult struct {
	*tune.Result
	// FinalFit is the final model's fit: its passes, gap and primal
	// objective, and Value its metric on the test set.
	FinalFit tune.Fit
}

// Tune runs the validation of plan on r: every unit of plan.Units is a unit
// of work, fitted by plan.Fit on a worker that loads the data of spec (the
// workers' paths) and checked to come back exactly once; plan.Result turns
// the fits into the curve and the chosen value; then the final model's unit
// (plan.FinalUnit) runs on r as a second run. The curve, the chosen value
// and the final fit are tune.Run's, bit for bit, for a plan tune.NewPlan made
// from the same data, method and configuration (the units do not depend on
// each other, nor on where they run).
func Tune(ctx context.Context, r Runner, spec datasets.Spec, plan *tune.Plan) (*TuneResult, error) {
	start := time.Now()
	units := plan.Units()
	work := make([]Unit, len(units))
	for i, u := range units {
		w, err := newTuneUnit(plan, spec, u)
		if err != nil {
			return nil, err
		}
		work[i] = w
	}
	fits, err := runTune(ctx, r, work)
	if err != nil {
		return nil, err
	}
	res, err := plan.Result(fits)
	if err != nil {
		return nil, err
	}
	final, err := newTuneUnit(plan, spec, plan.FinalUnit(res))
	if err != nil {
		return nil, err
	}
	ff, err := runTune(ctx, r, []Unit{final})
	if err != nil {
		return nil, err
	}
	if len(ff) != 1 {
		return nil, fmt.Errorf("the final model's unit gave %d fits", len(ff))
	}
	res.Test = ff[0].Value
	res.Elapsed = time.Since(start)
	return &TuneResult{Result: res, FinalFit: ff[0]}, nil
}

// newTuneUnit returns the unit of work of u, keyed by its fold and values.
func newTuneUnit(plan *tune.Plan, spec datasets.Spec, u tune.Unit) (Unit, error) {
	key := "final"
	if u.Fold != tune.FinalFold {
		key = "fold=" + strconv.Itoa(u.Fold+1)
	}
	if plan.Aux != "" {
		key += "/" + plan.Aux + "=" + strconv.FormatFloat(u.Aux, 'g', -1, 64)
	}
	if len(u.Lambdas) == 1 {
		key += "/lambda=" + strconv.FormatFloat(u.Lambdas[0], 'g', -1, 64)
	}
	b, err := json.Marshal(tuneUnit{Plan: plan, Data: spec, Unit: u})
	if err != nil {
		return Unit{}, fmt.Errorf("unit %q: %w", key, err)
	}
	return Unit{Task: TaskTune, Key: key, Spec: b}, nil
}

// runTune runs tune units on r and returns their fits, or the units'
// errors.
func runTune(ctx context.Context, r Runner, units []Unit) ([]tune.Fit, error) {
	outs, err := r.Run(ctx, units)
	if err != nil {
		return nil, err
	}
	if err := errUnits(outs); err != nil {
		return nil, err
	}
	var fits []tune.Fit
	for _, o := range outs {
		var w []wireFit
		if err := json.Unmarshal(o.Body, &w); err != nil {
			return nil, fmt.Errorf("unit %q: its result: %w", o.Key, err)
		}
		for _, f := range w {
			fits = append(fits, f.fit())
		}
	}
	return fits, nil
}
