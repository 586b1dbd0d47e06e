// Command softfigs measures the experiments of Meshi, Srebro and Hazan
// (2015) on Yeast and writes their figures: Fig. 1 (left), the soft and
// hard objectives against passes for several penalties rho; Fig. 1
// (right), the objectives at fixed pass budgets against rho; Fig. 2
// (left), the hard objective and the test Hamming accuracy against solver
// time for soft BCFW, LP-hard BCFW and exact BCFW. It prints the tables
// behind them, the time every run takes to come within 1% of the best hard
// objective, and the test metrics (Hamming loss, example-based F1) of the
// final weights with LP-plus-rounding and exact MAP prediction.
//
// Usage (FWSTRUCT_DATA locating yeast/):
//
//	go run ./internal/tools/softfigs [-lambda 0.01] [-out out/soft] [-exp fig1,rho,fig2]
//
// It takes tens of minutes (LP-hard and exact BCFW solve an LP or
// enumerate 2^14 labelings per example and step, and every trace point
// predicts the 917 test examples by LP).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/soft"
	"github.com/fwstruct/fwstruct/ssvmnb"
	"github.com/fwstruct/fwstruct/viz"
)

func main() {
	var o options
	flag.Float64Var(&o.lambda, "lambda", 0.01, "regularization parameter lambda")
	flag.StringVar(&o.out, "out", "out/soft", "folder of the figures and traces")
	exp := flag.String("exp", "fig1,rho,fig2", "experiments to run: fig1, rho, fig2 (comma-separated)")
	flag.Float64Var(&o.softPasses, "soft-passes", 100, "passes of the soft runs (fig1, fig2)")
	flag.Float64Var(&o.hardPasses, "hard-passes", 60, "passes of the LP-hard and exact BCFW runs (fig2)")
	flag.Float64Var(&o.trace, "trace-every", 1, "passes between trace points")
	flag.StringVar(&o.sampling, "sampling", "uniform", "sampling of soft BCFW: uniform (Meshi Alg. 1), perm or gap")
	flag.Parse()
	o.exps = strings.Split(*exp, ",")
	tr, te, err := datasets.Load("yeast", datasets.Options{})
	if err != nil {
		fail(err)
	}
	if err := run(context.Background(), tr.(*factorgraph.Exact).Model(), te.(*factorgraph.Exact).Model(), o, os.Stdout); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "softfigs:", err)
	os.Exit(1)
}

// options are the settings of the experiments.
type options struct {
	lambda                 float64
	out                    string
	exps                   []string
	softPasses, hardPasses float64
	trace                  float64
	sampling               string
	rhos                   []float64 // Fig. 1 (left) and Fig. 2 use rhos[?]; nil: the paper's
	sweep                  []float64 // Fig. 1 (right); nil: a decade in half steps
	budgets                []float64 // Fig. 1 (right); nil: 5, 20, 50
}

func (o *options) has(exp string) bool {
	for _, e := range o.exps {
		if e == exp {
			return true
		}
	}
	return false
}

// run runs the experiments on the training and test models and writes
// the figures and traces into o.out and the tables to w.
func run(ctx context.Context, train, test *factorgraph.Model, o options, w io.Writer) error {
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	samp, err := solver.ParseSampling(o.sampling)
	if err != nil {
		return err
	}
	if o.rhos == nil {
		o.rhos = []float64{0.01, 0.1, 1, 10}
	}
	if o.sweep == nil {
		o.sweep = []float64{0.01, 0.03, 0.1, 0.3, 1, 3, 10}
	}
	if o.budgets == nil {
		o.budgets = []float64{5, 20, 50}
	}
	rounded, err := factorgraph.NewRounded(test)
	if err != nil {
		return err
	}
	rel, err := factorgraph.NewRelaxed(train, 2)
	if err != nil {
		return err
	}
	base := soft.Config{Lambda: o.lambda, Sampling: samp, GapEvery: 10, TraceEvery: o.trace, Seed: 1}
	fmt.Fprintf(w, "Yeast: %d training and %d test examples, d = %d, lambda = %g, soft sampling %v\n", train.Len(), test.Len(), train.Dim(), o.lambda, samp)

	// The hard runs come first: the best hard objective they reach is the
	// reference line g* of every figure.
	var hard []viz.Run
	ref := math.NaN()
	if o.has("fig2") {
		hcfg := solver.Config{Lambda: o.lambda, GapEvery: 10, TraceEvery: o.trace, Seed: 1}
		exact, err := factorgraph.NewExact(train, 0)
		if err != nil {
			return err
		}
		lp, s, err := ssvmnb.TrainHard(ctx, "LP-hard BCFW", rel, rel, rounded, hcfg, solver.Stop{Passes: o.hardPasses})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "LP-hard BCFW: %s\n", summary(lp, s.Weights(), test, rounded))
		ex, es, err := ssvmnb.TrainHard(ctx, "exact BCFW", exact, rel, rounded, hcfg, solver.Stop{Passes: o.hardPasses})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "exact BCFW: %s\n", summary(ex, es.Weights(), test, rounded))
		last := ex.Trace[len(ex.Trace)-1]
		fmt.Fprintf(w, "exact BCFW: exact SSVM objective %.6f, certified gap %.3g (its optimum is a lower bound of g*)\n", last.Primal, last.Gap)
		hard = append(hard, lp, ex)
		for _, r := range hard {
			if err := writeTrace(filepath.Join(o.out, slug(r.Name)+".json"), r.Trace); err != nil {
				return err
			}
		}
		ref = best(hard...)
	}

	var softRuns []viz.Run
	if o.has("fig1") || o.has("fig2") {
		for _, rho := range o.rhos {
			cfg := base
			cfg.Rho = rho
			t, err := ssvmnb.NewSoft(fmt.Sprintf("soft rho=%g", rho), train, rounded, cfg)
			if err != nil {
				return err
			}
			t.Live = false
			if _, err := t.RunUntil(ctx, soft.Stop{Passes: o.softPasses}); err != nil {
				return err
			}
			t.Current()
			r := t.VizRun()
			fmt.Fprintf(w, "%s: %s\n", r.Name, summary(r, t.Weights(), test, rounded))
			if err := writeTrace(filepath.Join(o.out, slug(r.Name)+".json"), r.Trace); err != nil {
				return err
			}
			softRuns = append(softRuns, r)
		}
		if math.IsNaN(ref) {
			ref = best(softRuns...)
		} else {
			ref = math.Min(ref, best(softRuns...))
		}
	}
	if o.has("fig1") {
		if err := save(o.out, "fig1-left", ssvmnb.SoftObjectives(ref, softRuns...)); err != nil {
			return err
		}
	}
	if o.has("rho") {
		res, err := ssvmnb.SweepRho(ctx, train, nil, ssvmnb.RhoSweep{Rhos: o.sweep, Budgets: o.budgets, Base: soft.Config{Lambda: o.lambda, Sampling: samp, GapEvery: 10, Seed: 1}})
		if err != nil {
			return err
		}
		fmt.Fprintln(w, res.Table().String())
		if err := save(o.out, "fig1-right", res.Figure(ref)); err != nil {
			return err
		}
	}
	if o.has("fig2") {
		var runs []viz.Run
		for k, r := range softRuns {
			if o.rhos[k] == 1 || o.rhos[k] == 10 {
				runs = append(runs, r)
			}
		}
		runs = append(runs, hard...)
		if err := save(o.out, "fig2-objective", ssvmnb.HardObjectives(viz.Seconds, ref, runs...)); err != nil {
			return err
		}
		if err := save(o.out, "fig2-accuracy", ssvmnb.Accuracies(viz.Seconds, runs...)); err != nil {
			return err
		}
		fmt.Fprintf(w, "best hard objective g = %.6f; solver seconds to come within 1%% (%.6f):\n", ref, 1.01*ref)
		for _, r := range runs {
			fmt.Fprintf(w, "  %-16s %s s\n", r.Name, ssvmnb.Cell(ssvmnb.SecondsTo(r, 1.01*ref)))
		}
	}
	return nil
}

// summary describes the end of a run: passes, solver time, hard objective
// and the test metrics of LP-plus-rounding and exact MAP prediction.
func summary(r viz.Run, w []float64, test *factorgraph.Model, rounded *factorgraph.Rounded) string {
	last := r.Trace[len(r.Trace)-1]
	var b strings.Builder
	fmt.Fprintf(&b, "%.1f passes, %.2f s, hard objective %.6f", last.Pass, last.Seconds, soft.HardObjective(last))
	if last.Rho > 0 {
		fmt.Fprintf(&b, " (g_rho %.6f, f_rho %.6f, soft gap %.3g)", last.Primal, last.Dual, last.Gap)
	}
	_, lp := soft.Metrics(rounded, w, 2)
	fmt.Fprintf(&b, "; test, LP + rounding: %s", metrics(lp))
	if exact, err := factorgraph.NewExact(test, 0); err == nil {
		_, ex := soft.Metrics(exact, w, 2)
		fmt.Fprintf(&b, "; exact MAP: %s", metrics(ex))
	}
	return b.String()
}

func metrics(ms []oracles.Metric) string {
	var parts []string
	for _, m := range ms {
		parts = append(parts, fmt.Sprintf("%s %.4f", m.Name, m.Value))
	}
	return strings.Join(parts, ", ")
}

// best returns the smallest hard objective over the runs.
func best(runs ...viz.Run) float64 {
	b := math.Inf(1)
	for _, r := range runs {
		for _, p := range r.Trace {
			b = math.Min(b, soft.HardObjective(p))
		}
	}
	return b
}

// save writes a figure as PNG into dir.
func save(dir, name string, f *viz.Figure) error {
	return f.Save(filepath.Join(dir, name+".png"), 900, 560)
}

// writeTrace writes a trace as JSON (the format of fwstruct train --trace).
func writeTrace(path string, tr []soft.TracePoint) error {
	b, err := json.MarshalIndent(tr, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// slug turns a run name into a file name.
func slug(name string) string {
	return strings.NewReplacer(" ", "-", "=", "", ".", "_").Replace(strings.ToLower(name))
}
