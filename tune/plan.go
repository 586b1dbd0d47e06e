package tune

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/run"
)

// Plan is the work of Run's validation laid out as units that can run apart
// from each other: the base method (auto resolved), the grids, the folds, the
// metric and the stop. NewPlan makes it from the data, Units lists its units,
// Fit trains and scores one unit, Result turns the units' fits into Run's
// curve and choice, and FinalUnit is the unit of the final model. Run runs
// the units in a loop; the module github.com/fwstruct/fwstruct/dist runs them
// on the workers of an Apache Beam runner, with the same results bit for bit
// for the same plan. A Plan marshals to JSON (its method as run.Encode writes
// it), so that a worker gets the plan its submitter made.
type Plan struct {
	// Method is the base method, auto resolved once for the whole grid.
	Method run.Method
	// Aux names the second hyperparameter searched ("rho", "gamma"), ""
	// for none; Auxes are its values (one 0 for none).
	Aux   string
	Auxes []float64
	// Lambdas is the lambda grid, in decreasing order, without repeats.
	Lambdas []float64
	// N is the number of training examples, dealt into Folds folds (1 for
	// a held-out fraction HoldOut) with Seed, as Folds deals them.
	N       int
	Folds   int
	HoldOut float64
	Seed    uint64
	// Metric is the validation metric and Lower whether it is minimized.
	Metric string
	Lower  bool
	// Warm reports whether a fold walks the lambda grid warm-started (then
	// one unit fits every lambda of a fold and Aux value in turn).
	Warm bool
	// Stop ends every fit (its Passes counted from the value's start), and
	// Workers is the solvers' run.WithWorkers.
	Stop    run.Stop
	Workers int
}

// Unit is one unit of a plan's work: on fold Fold (FinalFold for the final
// model: the whole training set, scored on the test set), at the second
// hyperparameter's value Aux, the lambdas fitted in order, each from the
// previous one's solver when the plan is warm (a new solver for the
// first).
type Unit struct {
	Fold    int       `json:"fold"`
	Aux     float64   `json:"aux"`
	Lambdas []float64 `json:"lambdas"`
}

// FinalFold is the Fold of the final model's unit.
const FinalFold = -1

// Fit is the outcome of one fit of a unit, at one value of the grid.
type Fit struct {
	// Fold, Lambda and Aux are the fit's fold and values.
	Fold        int
	Lambda, Aux float64
	// Value is the metric on the fold's held-out examples (the test set
	// for the final model; NaN without one).
	Value float64
	// Gap and Primal are the duality gap and primal objective of the
	// solver where it stopped (NaN when it has none), Passes the passes it
	// made at this value.
	Gap, Primal, Passes float64
}

// NewPlan makes the plan of Run's validation of base on the training set of
// d with cfg (cfg.Progress is not part of it), checking what Run checks
// before it trains.
func NewPlan(d *datasets.Data, base run.Method, cfg Config) (*Plan, error) {
	if d == nil || d.Train == nil {
		return nil, errors.New("tune: no training examples")
	}
	base, err := resolveAuto(d.Train, base, cfg)
	if err != nil {
		return nil, err
	}
	g, err := newGrid(base, cfg)
	if err != nil {
		return nil, err
	}
	if d.Train.Len() == 0 {
		return nil, errors.New("tune: no training examples")
	}
	n := d.Train.Len()
	lambdas := slices.Clone(cfg.Lambdas)
	if lambdas == nil {
		lambdas = DefaultLambdas(n)
	}
	if len(lambdas) == 0 {
		return nil, errors.New("tune: an empty lambda grid")
	}
	for _, l := range lambdas {
		if !(l > 0) || math.IsInf(l, 1) {
			return nil, fmt.Errorf("tune: lambda %v, want positive and finite values", l)
		}
	}
	slices.SortFunc(lambdas, func(a, b float64) int { return compareDesc(a, b) })
	lambdas = slices.Compact(lambdas)
	folds, err := Folds(n, cfg)
	if err != nil {
		return nil, err
	}
	metric := cfg.Metric
	if metric == "" {
		metric = DefaultMetric(d.Train)
	}
	stop := cfg.Stop
	if stop == (run.Stop{}) {
		stop = run.Stop{Passes: 30}
	}
	return &Plan{Method: g.base, Aux: g.aux, Auxes: slices.Clone(g.auxes), Lambdas: lambdas, N: n, Folds: len(folds),
		HoldOut: cfg.HoldOut, Seed: cfg.Seed, Metric: metric, Lower: lowerIsBetter(metric), Warm: !cfg.Cold && g.warm(),
		Stop: stop, Workers: cfg.Workers}, nil
}

// Units returns the units of the validation, fold by fold, and within a
// fold by Aux value then lambda: one unit a fold and Aux value when the plan
// is warm, one a fold, Aux value and lambda otherwise. Run fits them in this
// order.
func (p *Plan) Units() []Unit {
	var units []Unit
	for f := range p.Folds {
		for _, a := range p.Auxes {
			if p.Warm {
				units = append(units, Unit{Fold: f, Aux: a, Lambdas: slices.Clone(p.Lambdas)})
				continue
			}
			for _, l := range p.Lambdas {
				units = append(units, Unit{Fold: f, Aux: a, Lambdas: []float64{l}})
			}
		}
	}
	return units
}

// FinalUnit returns the unit of the final model at the chosen values of r.
func (p *Plan) FinalUnit(r *Result) Unit {
	c := r.Chosen()
	return Unit{Fold: FinalFold, Aux: c.Aux, Lambdas: []float64{c.Lambda}}
}

// grid returns the plan's grid.
func (p *Plan) grid() *grid { return &grid{base: p.Method, aux: p.Aux, auxes: p.Auxes} }

// folds returns the plan's folds.
func (p *Plan) folds() ([]Fold, error) {
	cfg := Config{Folds: p.Folds, HoldOut: p.HoldOut, Seed: p.Seed}
	if p.HoldOut != 0 {
		cfg.Folds = 0
	}
	return Folds(p.N, cfg)
}

// Fit trains and scores unit u on the data d, whose training set must be
// the plan's (its size is checked): the unit's lambdas in turn, one Fit
// each.
func (p *Plan) Fit(ctx context.Context, d *datasets.Data, u Unit) ([]Fit, error) {
	if d == nil || d.Train == nil || d.Train.Len() != p.N {
		return nil, fmt.Errorf("tune: the plan is for %d training examples, not those of this data", p.N)
	}
	train, held := d.Train, d.Test
	if u.Fold != FinalFold {
		folds, err := p.folds()
		if err != nil {
			return nil, err
		}
		if u.Fold < 0 || u.Fold >= len(folds) {
			return nil, fmt.Errorf("tune: fold %d of a plan of %d folds", u.Fold, len(folds))
		}
		if train, held, err = d.Split(folds[u.Fold].Fit, folds[u.Fold].Held); err != nil {
			return nil, fmt.Errorf("tune: fold %d: %w", u.Fold+1, err)
		}
	}
	_, fits, err := p.fit(ctx, train, held, u, nil)
	return fits, err
}

// fit fits unit u on train, scored on held (for the final model, the test
// set, which may be nil or empty), calling each after every fit, and
// returns the last solver and the fits.
func (p *Plan) fit(ctx context.Context, train, held oracles.Problem, u Unit, each func(Fit)) (run.Solver, []Fit, error) {
	g := p.grid()
	if err := p.checkUnit(u); err != nil {
		return nil, nil, err
	}
	var s run.Solver
	var fits []Fit
	for _, l := range u.Lambdas {
		if !p.Warm {
			s = nil
		}
		var passes float64
		var err error
		if u.Fold == FinalFold {
			if s, passes, err = fitAt(ctx, g, nil, train, l, u.Aux, p.Stop, p.Workers); err != nil {
				return nil, nil, fmt.Errorf("tune: the final model (%s): %w", g.describe(l, u.Aux), err)
			}
			value := math.NaN()
			if held != nil && held.Len() > 0 {
				if value, err = score(s, held, p.Metric); err != nil {
					return nil, nil, err
				}
			}
			cur, err := s.Current()
			if err != nil {
				return nil, nil, fmt.Errorf("tune: the final model: %w", err)
			}
			fits = append(fits, Fit{Fold: u.Fold, Lambda: l, Aux: u.Aux, Value: value, Gap: cur.Gap, Primal: cur.Primal, Passes: passes})
		} else {
			if s, passes, err = fitAt(ctx, g, s, train, l, u.Aux, p.Stop, p.Workers); err != nil {
				return nil, nil, fmt.Errorf("tune: fold %d, %s: %w", u.Fold+1, g.describe(l, u.Aux), err)
			}
			cur, err := s.Current()
			if err != nil {
				return nil, nil, fmt.Errorf("tune: fold %d, %s: %w", u.Fold+1, g.describe(l, u.Aux), err)
			}
			value, err := score(s, held, p.Metric)
			if err != nil {
				return nil, nil, err
			}
			fits = append(fits, Fit{Fold: u.Fold, Lambda: l, Aux: u.Aux, Value: value, Gap: cur.Gap, Primal: cur.Primal, Passes: passes})
		}
		if each != nil {
			each(fits[len(fits)-1])
		}
	}
	return s, fits, nil
}

// checkUnit checks that u is a unit of the plan's grid.
func (p *Plan) checkUnit(u Unit) error {
	switch {
	case len(u.Lambdas) == 0:
		return errors.New("tune: a unit without lambdas")
	case !slices.Contains(p.Auxes, u.Aux):
		return fmt.Errorf("tune: a unit at %s %g, not a value of the plan's grid", p.Aux, u.Aux)
	case (u.Fold == FinalFold || !p.Warm) && len(u.Lambdas) > 1:
		return fmt.Errorf("tune: a unit of %d lambdas, without warm starts", len(u.Lambdas))
	}
	for _, l := range u.Lambdas {
		if !slices.Contains(p.Lambdas, l) {
			return fmt.Errorf("tune: a unit at lambda %g, not a value of the plan's grid", l)
		}
	}
	return nil
}

// Result returns the validation of the fits of the plan's units (in any
// order): the curve, the chosen value and the method at it, as Run's Result
// holds them before its final model (Final nil, Test NaN, Elapsed zero).
// Every value of the grid must have exactly one fit on every fold: a fit
// missing, given twice or not of the grid is an error.
func (p *Plan) Result(fits []Fit) (*Result, error) {
	res := &Result{Metric: p.Metric, Lower: p.Lower, Aux: p.Aux, Folds: p.Folds, HoldOut: p.HoldOut, Warm: p.Warm,
		Test: math.NaN()}
	type at struct {
		k, fold int
	}
	index := map[[2]float64]int{}
	for _, a := range p.Auxes {
		for _, l := range p.Lambdas {
			index[[2]float64{a, l}] = len(res.Curve)
			res.Curve = append(res.Curve, Point{Lambda: l, Aux: a})
		}
	}
	got := make(map[at]Fit, len(fits))
	dup := func(m map[at]Fit, a at) bool { _, ok := m[a]; return ok }
	var errs []error
	for _, f := range fits {
		k, ok := index[[2]float64{f.Aux, f.Lambda}]
		switch {
		case !ok || f.Fold < 0 || f.Fold >= p.Folds:
			errs = append(errs, fmt.Errorf("a fit on fold %d at %s, which is no value of the validation", f.Fold, p.grid().describe(f.Lambda, f.Aux)))
			continue
		case dup(got, at{k, f.Fold}):
			errs = append(errs, fmt.Errorf("two fits on fold %d at %s", f.Fold+1, p.grid().describe(f.Lambda, f.Aux)))
			continue
		}
		got[at{k, f.Fold}] = f
	}
	for k := range res.Curve {
		pt := &res.Curve[k]
		for fold := range p.Folds {
			f, ok := got[at{k, fold}]
			if !ok {
				errs = append(errs, fmt.Errorf("no fit on fold %d at %s", fold+1, p.grid().describe(pt.Lambda, pt.Aux)))
				continue
			}
			pt.Folds = append(pt.Folds, f.Value)
			pt.Gaps = append(pt.Gaps, f.Gap)
			pt.Primals = append(pt.Primals, f.Primal)
			pt.Passes = append(pt.Passes, f.Passes)
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("tune: %w", errors.Join(errs...))
	}
	for k := range res.Curve {
		res.Curve[k].Mean, res.Curve[k].StdErr = meanStdErr(res.Curve[k].Folds)
	}
	res.Best = best(res.Curve, res.Lower)
	c := res.Curve[res.Best]
	res.Method = p.grid().method(c.Lambda, c.Aux)
	return res, nil
}

// jsonPlan is Plan in JSON.
type jsonPlan struct {
	Method  json.RawMessage `json:"method"`
	Aux     string          `json:"aux,omitempty"`
	Auxes   []float64       `json:"auxes"`
	Lambdas []float64       `json:"lambdas"`
	N       int             `json:"n"`
	Folds   int             `json:"folds"`
	HoldOut float64         `json:"hold_out,omitempty"`
	Seed    uint64          `json:"seed"`
	Metric  string          `json:"metric"`
	Lower   bool            `json:"lower_is_better"`
	Warm    bool            `json:"warm"`
	Stop    run.Stop        `json:"stop"`
	Workers int             `json:"workers,omitempty"`
}

// MarshalJSON writes the plan, its method as run.Encode writes it.
func (p *Plan) MarshalJSON() ([]byte, error) {
	m, err := run.Encode(p.Method)
	if err != nil {
		return nil, fmt.Errorf("tune: the plan's method: %w", err)
	}
	return json.Marshal(jsonPlan{m, p.Aux, p.Auxes, p.Lambdas, p.N, p.Folds, p.HoldOut, p.Seed, p.Metric, p.Lower, p.Warm, p.Stop, p.Workers})
}

// UnmarshalJSON reads a plan MarshalJSON wrote, refusing unknown fields and
// checking its grid.
func (p *Plan) UnmarshalJSON(b []byte) error {
	var j jsonPlan
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return fmt.Errorf("tune: a plan: %w", err)
	}
	m, err := run.Decode(j.Method)
	if err != nil {
		return fmt.Errorf("tune: the plan's method: %w", err)
	}
	if len(j.Auxes) == 0 || len(j.Lambdas) == 0 || j.Folds < 1 || j.N < j.Folds {
		return errors.New("tune: a plan without grid, folds or examples")
	}
	*p = Plan{Method: m, Aux: j.Aux, Auxes: j.Auxes, Lambdas: j.Lambdas, N: j.N, Folds: j.Folds, HoldOut: j.HoldOut,
		Seed: j.Seed, Metric: j.Metric, Lower: j.Lower, Warm: j.Warm, Stop: j.Stop, Workers: j.Workers}
	return nil
}
