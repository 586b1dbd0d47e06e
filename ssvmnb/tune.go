package ssvmnb

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/tune"
)

// Tune chooses lambda (and rho for soft.BCFW, gamma for a kernel method
// with an rbf or poly kernel) by k-fold or held-out validation on the
// training set of data, on the task's own metric, then trains the final
// model on the whole training set (tune.Run: cfg says the grids, the folds
// and when each fit stops; base is the method whose other settings every
// fit keeps). In a notebook it shows a progress line,
// then the validation table and the figure of the validation curve with
// the chosen value marked, and a note when the features are too large for
// the lambdas (solver.MeasureConditioning). data must come from Load: its
// folds are rebuilt from the files with the preprocessing fitted on each
// fold's training part.
//
// Interrupted by SIGINT (the stop button: see Trainer.RunUntil), it shows
// the values of the fits finished (per lambda, and rho or gamma, the mean
// over the folds finished) and returns an error saying how many finished.
func Tune(ctx context.Context, data *Data, base run.Method, cfg tune.Config) (*tune.Result, error) {
	if data == nil || data.spec == nil {
		return nil, errors.New("ssvmnb: Tune needs data loaded by ssvmnb.Load (it rebuilds the folds from the files)")
	}
	d, err := datasets.LoadData(data.spec.Name, data.spec.Options)
	if err != nil {
		return nil, fmt.Errorf("ssvmnb: tune: %w", err)
	}
	ctx, done := interruptible(ctx)
	defer done()
	var p *Progress
	var fits []tune.Progress // the fits finished, for an interrupted call
	user := cfg.Progress
	cfg.Progress = func(pr tune.Progress) {
		fits = append(fits, pr)
		if p == nil {
			p = NewProgress("tune", pr.Total)
		}
		p.done = pr.Done
		what := fmt.Sprintf("fold %d, lambda %.4g: %s", pr.Fold+1, pr.Lambda, Cell(pr.Value))
		if pr.Fold < 0 {
			what = fmt.Sprintf("final model, lambda %.4g: test %s", pr.Lambda, Cell(pr.Value))
		}
		p.Show(what)
		if user != nil {
			user(pr)
		}
	}
	lambdas := cfg.Lambdas
	if lambdas == nil {
		lambdas = tune.DefaultLambdas(d.Train.Len())
	}
	warnIll(data, slices.Max(lambdas), "even at the largest lambda of the grid")
	res, err := tune.Run(ctx, d, base, cfg)
	if p != nil {
		p.interrupted = interrupted.Load()
		p.End()
	}
	if err != nil && interrupted.Load() {
		return nil, tuneInterrupted(fits)
	}
	if err != nil {
		return nil, fmt.Errorf("ssvmnb: tune: %w", err)
	}
	cols, rows := res.Table()
	c := res.Chosen()
	(&Table{Caption: fmt.Sprintf("validation %s, %d folds: chosen lambda = %.4g; final model: test %s %s", res.Metric, res.Folds, c.Lambda, res.Metric, Cell(res.Test)),
		Columns: cols, Rows: rows}).Show()
	if err := Show(res.Figure()); err != nil {
		return res, err
	}
	warnIll(data, c.Lambda, "at the chosen lambda")
	if edge := res.Edge(); edge != "" {
		note(fmt.Sprintf("the chosen lambda %.4g is the %s of the grid: a better one may lie beyond; extend tune.Config.Lambdas", c.Lambda, edge))
	}
	if edge := auxEdge(res); edge != "" {
		field := map[string]string{"rho": "Rhos", "gamma": "Gammas"}[res.Aux]
		note(fmt.Sprintf("the chosen %s %.4g is the %s of its grid: a better one may lie beyond; extend tune.Config.%s", res.Aux, c.Aux, edge, field))
	}
	return res, nil
}

// auxEdge returns "largest" or "smallest" when the chosen value of the
// second hyperparameter (rho, gamma) is that end of a grid of several
// values, "" otherwise (see tune.Result.Edge for lambda).
func auxEdge(res *tune.Result) string {
	if res.Aux == "" {
		return ""
	}
	var aux []float64
	for _, p := range res.Curve {
		aux = append(aux, p.Aux)
	}
	slices.Sort(aux)
	aux = slices.Compact(aux)
	switch c := res.Chosen(); {
	case len(aux) < 2:
		return ""
	case c.Aux == aux[len(aux)-1]:
		return "largest"
	case c.Aux == aux[0]:
		return "smallest"
	}
	return ""
}

// warnIll shows a note when the training features of data are too large
// for lambda (solver.MeasureConditioning), naming the remedy: standardized
// features when data has numeric features loaded unscaled (the Load call
// with the options given and the scaling), else a larger lambda. A
// program says it once per data (a smaller lambda is only worse).
func warnIll(data *Data, lambda float64, where string) {
	c, err := solver.MeasureConditioning(data.Train, lambda)
	if err != nil {
		return
	}
	remedy := "use a larger lambda"
	if sp := data.spec; sp != nil && sp.Options.Scaling == datasets.ScaleNone && sp.Options.Scaler == nil {
		name := sp.Name
		if f, err := datasets.Recognize(name); err == nil && (sp.Options.Path != "" || strings.ContainsAny(name, `./\`)) {
			name = f // a path: its format
		}
		if datasets.Scalable(name) {
			opt := sp.Options
			opt.Scaling = datasets.ScaleStandardize
			remedy = fmt.Sprintf("standardize the features: ssvmnb.Load(%q, %s) (or use a larger lambda)", sp.Name, goLiteral(reflect.ValueOf(opt)))
		}
	}
	if w := c.Warning(remedy); w != "" {
		noteOnce(&data.illNoted, where+": "+w)
	}
}

// goLiteral writes v as a Go composite literal of its non-zero fields
// (datasets.Options{Path: "wine.csv", CSV: datasets.CSVOptions{Label: "0"}}),
// so that a suggested call keeps every option the user gave; a scaling
// by the name of its constant (datasets.ScaleStandardize).
func goLiteral(v reflect.Value) string {
	typ := v.Type()
	name := typ.String() // package-qualified: datasets.Options
	if sc, ok := v.Interface().(datasets.Scaling); ok {
		return map[datasets.Scaling]string{datasets.ScaleNone: "datasets.ScaleNone", datasets.ScaleMinMax: "datasets.ScaleMinMax",
			datasets.ScaleStandardize: "datasets.ScaleStandardize"}[sc]
	}
	var lit string
	switch v.Kind() {
	case reflect.Struct:
		var fields []string
		for k := 0; k < v.NumField(); k++ {
			if f := typ.Field(k); f.IsExported() && !v.Field(k).IsZero() {
				fields = append(fields, f.Name+": "+goLiteral(v.Field(k)))
			}
		}
		return name + "{" + strings.Join(fields, ", ") + "}"
	case reflect.Pointer:
		return "&" + goLiteral(v.Elem())
	case reflect.Slice, reflect.Array:
		var elems []string
		for k := 0; k < v.Len(); k++ {
			elems = append(elems, goLiteral(v.Index(k)))
		}
		return name + "{" + strings.Join(elems, ", ") + "}"
	case reflect.String:
		lit = strconv.Quote(v.String())
	case reflect.Bool:
		lit = strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		lit = strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		lit = strconv.FormatUint(v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		lit = strconv.FormatFloat(v.Float(), 'g', -1, 64)
	default:
		lit = fmt.Sprintf("%#v", v.Interface())
	}
	if typ.PkgPath() != "" {
		return name + "(" + lit + ")"
	}
	return lit
}

// tuneInterrupted shows the fits an interrupted Tune finished, per value
// the mean over the folds finished, and returns its error.
func tuneInterrupted(fits []tune.Progress) error {
	type key struct{ lambda, aux float64 }
	var order []key
	vals := map[key][]float64{}
	total := 0
	for _, f := range fits {
		total = f.Total
		if f.Fold < 0 {
			continue
		}
		k := key{f.Lambda, f.Aux}
		if _, ok := vals[k]; !ok {
			order = append(order, k)
		}
		vals[k] = append(vals[k], f.Value)
	}
	if len(order) > 0 {
		t := &Table{Caption: "tune, interrupted: the values of the folds finished", Columns: []string{"lambda", "rho or gamma", "folds finished", "mean"}}
		for _, k := range order {
			var sum float64
			for _, v := range vals[k] {
				sum += v
			}
			t.AddRow(k.lambda, k.aux, len(vals[k]), sum/float64(len(vals[k])))
		}
		t.Show()
	}
	return fmt.Errorf("ssvmnb: tune: %w: %d of %d fits finished", errInterrupted, len(fits), total)
}
