package tune

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/run"
)

// Config configures Run. The zero value cross-validates on 5 folds a
// lambda grid of 10^k / n (k = 3, 2, 1, 0, -1) on the task's own metric,
// 30 passes per value, warm-starting BCFW along the grid.
type Config struct {
	// Lambdas is the grid of lambda; nil means DefaultLambdas of the
	// training set's size.
	Lambdas []float64
	// Rhos is the grid of the soft solver's rho (a method with WithRho,
	// soft.BCFW); nil means the base method's rho alone, not searched.
	// Other methods refuse it.
	Rhos []float64
	// Gammas is the grid of the kernel's gamma (a kernel method, with
	// WithGamma, of an rbf or poly kernel); nil means the base method's
	// gamma alone, not searched. Other methods, and the linear kernel,
	// refuse it.
	Gammas []float64
	// Folds is k of k-fold cross-validation (2 <= k <= n); zero means 5,
	// unless HoldOut is set.
	Folds int
	// HoldOut, in (0, 1), validates on one random held-out fraction of the
	// training set instead of k folds (Folds must then be zero).
	HoldOut float64
	// Seed seeds the assignment of the examples to folds (the methods keep
	// their own Seed).
	Seed uint64
	// Metric names the validation metric (MetricLoss, MetricErrorRate or
	// one of the data's task metrics, e.g. "example_f1"; see
	// DefaultMetric); empty means the task's own.
	Metric string
	// Stop ends training at every value of the grid, on every fold, and
	// of the final model; Stop.Passes counts the passes made at that
	// value (a warm-started value continues from the previous one). The
	// zero value means Stop{Passes: 30}.
	Stop run.Stop
	// Cold starts every value of the grid from scratch. By default the
	// methods of BCFW's block steps in package solver (bcfw, mp-bcfw,
	// exact, lp-hard) walk the lambda grid from the largest value down,
	// warm-started (run.Solver.SetLambda keeps w and rescales the dual
	// variables, Osokin et al. 2016, Prop. 1); the other methods always
	// start cold.
	Cold bool
	// Workers is the number of goroutines of the solvers' parallel parts
	// (run.WithWorkers; 0: one per CPU).
	Workers int
	// Progress, when set, is called after every fit: every value of the
	// grid on every fold, then the final model.
	Progress func(Progress)
}

// DefaultLambdas returns the lambda grid of Config's zero value for n
// training examples: 10^k / n for k = 3, 2, 1, 0, -1, that is C = 1/(lambda
// n) from 0.001 to 10.
func DefaultLambdas(n int) []float64 {
	var out []float64
	for k := 3; k >= -1; k-- {
		out = append(out, math.Pow(10, float64(k))/float64(n))
	}
	return out
}

// Progress reports a finished fit.
type Progress struct {
	// Done of Total fits are finished (grid values times folds, plus the
	// final model).
	Done, Total int
	// Fold is the fold of the fit, -1 for the final model.
	Fold int
	// Lambda and Aux (rho or gamma, 0 when none is searched) are the
	// values fitted.
	Lambda, Aux float64
	// Value is the metric on the held-out fold (on the test set for the
	// final model; NaN without one).
	Value float64
	// Passes is the number of passes made at this value, Gap the duality
	// gap where the solver stopped (NaN when it has none, e.g. SSG).
	Passes, Gap float64
	// Elapsed is the wall-clock time since Run started.
	Elapsed time.Duration
}

// Point is one value of the grid and its validation.
type Point struct {
	// Lambda and Aux (rho or gamma; 0 when none is searched) are the
	// hyperparameters.
	Lambda, Aux float64
	// Mean is the metric averaged over the folds, StdErr its standard
	// error across them, sd/sqrt(k) (NaN with one fold).
	Mean, StdErr float64
	// Folds holds the metric on each fold's held-out examples; Gaps and
	// Primals the duality gap and primal objective the fold's solver
	// reached (NaN when it has none), Passes its passes at this value.
	Folds, Gaps, Primals, Passes []float64
}

// Result is the outcome of Run: the validation curve, the chosen values
// and the model trained with them on the whole training set.
type Result struct {
	// Metric is the validation metric and Lower whether it is minimized.
	Metric string
	Lower  bool
	// Aux names the second hyperparameter searched ("rho", "gamma"), ""
	// for none (Config.Rhos and Gammas nil).
	Aux string
	// Folds is the number of folds (1 for a held-out fraction) and HoldOut
	// that fraction (0 for k folds).
	Folds   int
	HoldOut float64
	// Warm reports whether the lambda grid was walked warm-started.
	Warm bool
	// Curve holds every value computed, for each Aux value (in the order
	// given) the lambdas in decreasing order.
	Curve []Point
	// Best indexes the chosen value of Curve: the best Mean (the first
	// one, i.e. the largest lambda, on ties).
	Best int
	// Method is the final model's method (the base method at the chosen
	// values), and Final its solver, trained on the whole training set
	// with Stop.
	Method run.Method
	Final  run.Solver
	// Test is the metric of the final model on the test set (NaN without
	// one).
	Test float64
	// Elapsed is the wall-clock time of Run.
	Elapsed time.Duration
}

// Chosen returns the chosen point of the curve.
func (r *Result) Chosen() Point { return r.Curve[r.Best] }

// Edge returns "largest" or "smallest" when the chosen lambda is that end
// of a grid of several lambdas (a better value may lie beyond: extend the
// grid), "" otherwise.
func (r *Result) Edge() string {
	c := r.Chosen()
	var lo, hi float64
	count := 0
	for _, p := range r.Curve {
		if p.Aux != c.Aux {
			continue
		}
		if count == 0 || p.Lambda < lo {
			lo = p.Lambda
		}
		if count == 0 || p.Lambda > hi {
			hi = p.Lambda
		}
		count++
	}
	switch {
	case count < 2:
		return ""
	case c.Lambda == hi:
		return "largest"
	case c.Lambda == lo:
		return "smallest"
	}
	return ""
}

// Run chooses lambda (and rho for the soft solver, gamma for a kernel) by
// validation on the training set of d, then trains the final model on the
// whole training set. base is the method whose other settings every fit
// keeps (its Lambda is the grid's): any method of the solver packages that
// can train on d (soft.BCFW and solver.LPHard on factor-graph data, the
// kernel methods on multiclass data); the held-out examples are predicted
// as the method predicts (run.Solver.Predict). The folds come from
// d.Split, which fits the preprocessing of each fold on its training part.
// A canceled context returns ctx.Err().
func Run(ctx context.Context, d *datasets.Data, base run.Method, cfg Config) (*Result, error) {
	start := time.Now()
	p, err := NewPlan(d, base, cfg)
	if err != nil {
		return nil, err
	}
	total, done := len(p.Auxes)*len(p.Lambdas)*p.Folds+1, 0
	report := func(f Fit) {
		done++
		if cfg.Progress != nil {
			cfg.Progress(Progress{Done: done, Total: total, Fold: f.Fold, Lambda: f.Lambda, Aux: f.Aux, Value: f.Value,
				Passes: f.Passes, Gap: f.Gap, Elapsed: time.Since(start)})
		}
	}
	folds, err := p.folds()
	if err != nil {
		return nil, err
	}
	var fits []Fit
	var fit, held oracles.Problem
	split := -1 // the fold of fit and held
	for _, u := range p.Units() {
		if u.Fold != split {
			if fit, held, err = d.Split(folds[u.Fold].Fit, folds[u.Fold].Held); err != nil {
				return nil, fmt.Errorf("tune: fold %d: %w", u.Fold+1, err)
			}
			split = u.Fold
		}
		_, fs, err := p.fit(ctx, fit, held, u, report)
		if err != nil {
			return nil, err
		}
		fits = append(fits, fs...)
	}
	res, err := p.Result(fits)
	if err != nil {
		return nil, err
	}
	final, fs, err := p.fit(ctx, d.Train, d.Test, p.FinalUnit(res), report)
	if err != nil {
		return nil, err
	}
	res.Final, res.Test = final, fs[0].Value
	res.Elapsed = time.Since(start)
	return res, nil
}

// fitAt trains at lambda and aux until stop (its Passes counted from
// here): a new solver on train when s is nil, else s moved to lambda (a
// warm start). It returns the solver and the passes it made.
func fitAt(ctx context.Context, g *grid, s run.Solver, train oracles.Problem, lambda, aux float64, stop run.Stop, workers int) (run.Solver, float64, error) {
	var before float64
	var err error
	if s == nil {
		s, err = g.method(lambda, aux).New(train, run.WithWorkers(workers))
	} else {
		before = s.Passes()
		err = s.SetLambda(lambda)
	}
	if err != nil {
		return nil, 0, err
	}
	if stop.Passes > 0 {
		stop.Passes += s.Passes()
	}
	res, err := s.Run(ctx, stop)
	if err != nil {
		return nil, 0, err
	}
	if res.Status == run.StatusCanceled {
		return nil, 0, ctx.Err()
	}
	return s, s.Passes() - before, nil
}

// meanStdErr returns the mean of x and its standard error, the sample
// standard deviation over sqrt(len(x)) (NaN for one value).
func meanStdErr(x []float64) (mean, stdErr float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	if len(x) < 2 {
		return mean, math.NaN()
	}
	var ss float64
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss/float64(len(x)-1)) / math.Sqrt(float64(len(x)))
}

// best returns the index of the best mean of the curve (the first on ties;
// NaN means never best).
func best(curve []Point, lower bool) int {
	k := -1
	for i, p := range curve {
		if math.IsNaN(p.Mean) {
			continue
		}
		if k < 0 || (lower && p.Mean < curve[k].Mean) || (!lower && p.Mean > curve[k].Mean) {
			k = i
		}
	}
	return max(k, 0)
}

// compareDesc orders floats in decreasing order.
func compareDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}
