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
//	go run ./tools/softfigs [-lambda 0.01] [-out out/soft] [-exp fig1,rho,fig2]
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
	"github.com/fwstruct/fwstruct/internal/atomicfile"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/soft"
	"github.com/fwstruct/fwstruct/ssvmnb"
	"github.com/fwstruct/fwstruct/ssvmnb/papers"
	"github.com/fwstruct/fwstruct/viz"
)

func main() {
	var o options
	flag.Float64Var(&o.lambda, "lambda", 0.01, "regularization parameter lambda")
	flag.StringVar(&o.out, "out", "out/soft", "folder of the figures and traces")
	exp := flag.String("exp", "cv,ref,fig1,rho,fig2", "experiments to run: cv, ref, fig1, rho, fig2 (comma-separated)")
	flag.Float64Var(&o.softPasses, "soft-passes", 100, "passes of the soft runs (fig1, fig2)")
	flag.Float64Var(&o.hardPasses, "hard-passes", 60, "passes of the LP-hard and exact BCFW runs (fig2)")
	flag.Float64Var(&o.trace, "trace-every", 1, "passes between trace points")
	flag.StringVar(&o.sampling, "sampling", "uniform", "sampling of soft BCFW: uniform (Meshi Alg. 1), perm or gap")
	flag.Float64Var(&o.refPasses, "ref-passes", 200, "pass budget of the reference run (ref)")
	flag.Parse()
	o.exps = strings.Split(*exp, ",")
	if o.has("cv") {
		root, err := datasets.Locate(datasets.Yeast, "")
		if err != nil {
			fail(err)
		}
		paths, err := datasets.Yeast.Paths(root)
		if err != nil {
			fail(err)
		}
		files, err := datasets.FindMULAN(paths[0])
		if err != nil {
			fail(err)
		}
		data, _, err := datasets.ReadMULAN(files)
		if err != nil {
			fail(err)
		}
		if err := crossValidate(context.Background(), data, []float64{1e-3, 3e-3, 1e-2, 3e-2, 0.1}, 5, 60, os.Stdout); err != nil {
			fail(err)
		}
	}
	tr, te, err := datasets.Load("yeast", datasets.Options{})
	if err != nil {
		fail(err)
	}
	if err := experiments(context.Background(), tr.(*factorgraph.Exact).Model(), te.(*factorgraph.Exact).Model(), o, os.Stdout); err != nil {
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
	refPasses              float64
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

// experiments runs the experiments on the training and test models and writes
// the figures and traces into o.out and the tables to w.
func experiments(ctx context.Context, train, test *factorgraph.Model, o options, w io.Writer) error {
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	samp, err := run.ParseSampling(o.sampling)
	if err != nil {
		return err
	}
	if o.rhos == nil {
		o.rhos = []float64{0.01, 0.1, 1, 10}
	}
	if o.sweep == nil {
		o.sweep = []float64{0.01, 0.03, 0.1, 0.3, 1, 3, 10, 100, 1000}
	}
	if o.budgets == nil {
		o.budgets = []float64{5, 20, 50, 100}
	}
	base := soft.BCFW{Lambda: o.lambda, Sampling: samp, GapEvery: 10, TraceEvery: o.trace, Seed: 1}
	fmt.Fprintf(w, "Yeast: %d training and %d test examples, d = %d, lambda = %g, soft sampling %v\n", train.Len(), test.Len(), train.Dim(), o.lambda, samp)
	rounded, err := factorgraph.NewRounded(test)
	if err != nil {
		return err
	}
	rel, err := factorgraph.NewRelaxed(train, 2)
	if err != nil {
		return err
	}
	// The data of the soft runs, as ssvmnb.Load gives it: exact views of the
	// models, whose test set the soft trainer predicts by LP + rounding;
	// without a test set for the runs that do not measure it.
	exactTrain, err := factorgraph.NewExact(train, 0)
	if err != nil {
		return err
	}
	exactTest, err := factorgraph.NewExact(test, 0)
	if err != nil {
		return err
	}
	withTest, trainOnly := ssvmnb.NewData("yeast", exactTrain, exactTest), ssvmnb.NewData("yeast", exactTrain, nil)
	if o.has("ref") {
		// g* itself, bracketed by LP-hard BCFW in its fastest variant
		// (pairwise steps, gap sampling; Osokin et al. 2016).
		s, err := solver.BCFW{Lambda: o.lambda, Step: solver.Pairwise, Sampling: run.GapSampling, GapEvery: 5, Seed: 1}.New(rel)
		if err != nil {
			return err
		}
		res, err := s.Run(ctx, run.Stop{Passes: o.refPasses, Gap: 1e-4})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "reference: LP-hard BCFW (pairwise, gap sampling), %.0f passes: g* in [%.6f, %.6f]\n", res.Last.Pass, res.Last.Dual, res.Last.Primal)
	}

	// Every run advances one pass at a time, in turn (round robin), so that
	// on a shared machine they all see the same load and their solver
	// times compare; splitting a run this way does not change it.
	var racers []*racer
	if o.has("fig2") {
		exact, err := factorgraph.NewExact(train, 0)
		if err != nil {
			return err
		}
		hardBCFW := solver.BCFW{Lambda: o.lambda, GapEvery: 10, TraceEvery: o.trace, Seed: 1}
		for _, h := range []struct {
			name string
			p    oracles.Problem
		}{{"LP-hard BCFW", rel}, {"exact BCFW", exact}} {
			r, err := papers.NewHardRun(h.name, h.p, rel, rounded, hardBCFW)
			if err != nil {
				return err
			}
			racers = append(racers, &racer{budget: o.hardPasses, hard: true,
				advance: func(passes float64) error {
					_, err := r.RunUntil(ctx, run.Stop{Passes: passes})
					return err
				},
				run: r.VizRun, weights: r.Solver().Weights})
		}
	}
	if o.has("fig1") || o.has("fig2") {
		type variant struct {
			name string
			cfg  soft.BCFW
			fig1 bool // drawn in Fig. 1
		}
		var variants []variant
		for _, rho := range o.rhos {
			cfg := base
			cfg.Rho = rho
			variants = append(variants, variant{fmt.Sprintf("soft rho=%g", rho), cfg, true})
		}
		if o.has("fig2") && samp != run.GapSampling {
			// Gap sampling (Osokin et al. 2016) converges faster in the tail.
			cfg := base
			cfg.Rho, cfg.Sampling = 1, run.GapSampling
			variants = append(variants, variant{"soft rho=1 gap", cfg, false})
		}
		if o.has("fig2") && samp != run.ExamplePermutation {
			// Each example's blocks one after another: cheaper passes
			// (its state stays in the cache), and fewer of them.
			for _, rho := range []float64{1, 10} {
				cfg := base
				cfg.Rho, cfg.Sampling = rho, run.ExamplePermutation
				variants = append(variants, variant{fmt.Sprintf("soft rho=%g example-perm", rho), cfg, false})
			}
		}
		for _, v := range variants {
			rho := v.cfg.Rho
			data := trainOnly
			if o.has("fig2") && (rho == 1 || rho == 10) {
				data = withTest // Fig. 2 shows the test accuracy of these
			}
			t, err := ssvmnb.New(v.name, data, v.cfg)
			if err != nil {
				return err
			}
			t.Live = false
			rc := &racer{budget: o.softPasses, fig1: v.fig1, run: t.VizRun, weights: t.Weights}
			rc.advance = func(passes float64) error {
				if _, err := t.RunUntil(ctx, run.Stop{Passes: passes}); err != nil {
					return err
				}
				pt := t.Current()
				if data == trainOnly {
					return nil
				}
				// Also the LP-relaxed primal of the soft weights, min over
				// delta of g(w, delta), the measure of the hard runs.
				lp, err := soft.RelaxedPrimal(rel, o.lambda, t.Weights(), 2)
				pt.HardPrimal = lp
				rc.lp = append(rc.lp, pt)
				return err
			}
			racers = append(racers, rc)
		}
	}
	if err := race(racers); err != nil {
		return err
	}
	var hard, softRuns, fig1Runs, lpRuns []viz.Run
	ref := math.Inf(1)
	for _, r := range racers {
		run := r.run()
		fmt.Fprintf(w, "%s: %s\n", run.Name, summary(run, r.weights(), test, rounded))
		if err := writeTrace(filepath.Join(o.out, slug(run.Name)+".json"), run.Trace); err != nil {
			return err
		}
		if r.hard {
			hard = append(hard, run)
			last := run.Trace[len(run.Trace)-1]
			fmt.Fprintf(w, "  its own objective %.6f, certified gap %s\n", last.Primal, ssvmnb.Cell(last.Gap))
		} else {
			softRuns = append(softRuns, run)
		}
		if r.fig1 {
			fig1Runs = append(fig1Runs, run)
		}
		if r.lp != nil {
			lpRuns = append(lpRuns, viz.Run{Name: run.Name + " (LP primal of w)", Trace: r.lp})
		}
		ref = math.Min(ref, best(run))
	}
	if o.has("fig1") {
		f := papers.SoftObjectives(ref, fig1Runs...)
		f.YRange = [2]float64{0.9 * ref, 1.4 * ref} // near the optimum, as Meshi's Fig. 1
		if err := save(o.out, "fig1-left", f); err != nil {
			return err
		}
	}
	if o.has("rho") {
		res, err := papers.SweepRho(ctx, trainOnly, papers.RhoSweep{Rhos: o.sweep, Budgets: o.budgets, Base: soft.BCFW{Lambda: o.lambda, Sampling: samp, GapEvery: 10, Seed: 1}})
		if err != nil {
			return err
		}
		fmt.Fprintln(w, res.Table().String())
		f := res.Figure(ref)
		f.YRange = [2]float64{0.98 * ref, 1.3 * ref}
		if err := save(o.out, "fig1-right", f); err != nil {
			return err
		}
	}
	if o.has("fig2") {
		var runs []viz.Run
		for _, r := range softRuns {
			if rho := r.Trace[0].Rho; rho == 1 || rho == 10 {
				runs = append(runs, r)
			}
		}
		runs = append(runs, hard...)
		f := papers.HardObjectives(viz.Seconds, ref, runs...)
		f.YRange = [2]float64{0.98 * ref, 1.2 * ref}
		f.HLines = append(f.HLines, viz.HLine{Y: 1.01 * ref, Label: "best + 1%"})
		if err := save(o.out, "fig2-objective", f); err != nil {
			return err
		}
		if err := save(o.out, "fig2-accuracy", papers.Accuracies(viz.Seconds, runs...)); err != nil {
			return err
		}
		fmt.Fprintf(w, "best hard objective g = %.6f; first trace point within 1%% (g <= %.6f), and how many times sooner than LP-hard BCFW:\n", ref, 1.01*ref)
		lpHard := math.NaN()
		for _, r := range hard {
			if r.Name == "LP-hard BCFW" {
				lpHard = papers.Reaches(r, viz.Seconds, 1.01*ref)
			}
		}
		for _, r := range append(runs, lpRuns...) {
			last := r.Trace[len(r.Trace)-1]
			at := papers.Reaches(r, viz.Seconds, 1.01*ref)
			fmt.Fprintf(w, "  %-26s %8s s %8s passes (%.4f s a pass)  %s x\n", r.Name, ssvmnb.Cell(at),
				ssvmnb.Cell(papers.Reaches(r, viz.Passes, 1.01*ref)), last.Seconds/last.Pass, ssvmnb.Cell(lpHard/at))
		}
	}
	return nil
}

// crossValidate chooses lambda as Meshi et al. do: the k-fold
// cross-validated test Hamming loss (LP + rounding) of soft BCFW (rho = 1,
// gap sampling, the given passes) on the training set, for every lambda.
func crossValidate(ctx context.Context, data *datasets.MultiLabelData, lambdas []float64, k int, passes float64, w io.Writer) error {
	n := len(data.X)
	fmt.Fprintf(w, "%d-fold cross-validation on the %d training examples (soft BCFW, rho = 1, %g passes):\n", k, n, passes)
	for _, lambda := range lambdas {
		var ham, f1 float64
		for f := 0; f < k; f++ {
			lo, hi := f*n/k, (f+1)*n/k
			fit := &datasets.MultiLabelData{Features: data.Features, Labels: data.Labels,
				X: append(append([]oracles.SparseVec(nil), data.X[:lo]...), data.X[hi:]...),
				Y: append(append([][]int32(nil), data.Y[:lo]...), data.Y[hi:]...)}
			val := &datasets.MultiLabelData{Features: data.Features, Labels: data.Labels, X: data.X[lo:hi], Y: data.Y[lo:hi]}
			fm, vm, err := datasets.MultiLabelModels(fit, val, true)
			if err != nil {
				return err
			}
			vr, err := factorgraph.NewRounded(vm)
			if err != nil {
				return err
			}
			fx, err := factorgraph.NewExact(fm, 0)
			if err != nil {
				return err
			}
			s, err := soft.BCFW{Lambda: lambda, Rho: 1, Sampling: run.GapSampling, GapEvery: 10, Seed: 1}.New(fx)
			if err != nil {
				return err
			}
			if _, err := s.Run(ctx, run.Stop{Passes: passes}); err != nil {
				return err
			}
			loss, ms := soft.Metrics(vr, s.Weights(), 2)
			ham += loss / float64(k)
			for _, m := range ms {
				if m.Name == factorgraph.MetricF1 {
					f1 += m.Value / float64(k)
				}
			}
		}
		fmt.Fprintf(w, "  lambda %-6g Hamming loss %.4f, example F1 %.4f\n", lambda, ham, f1)
	}
	return nil
}

// racer is a run that race advances one pass at a time.
type racer struct {
	budget  float64
	hard    bool
	fig1    bool                       // a soft run of Fig. 1
	lp      []run.Point                // soft runs with a test set: the LP-relaxed primal of w at every pass
	advance func(passes float64) error // run until this many passes in total
	run     func() viz.Run
	weights func() []float64
}

// race advances every run to its budget, one pass per run and round.
func race(rs []*racer) error {
	top := 0.0
	for _, r := range rs {
		top = math.Max(top, r.budget)
	}
	for k := 1.0; k <= math.Ceil(top); k++ {
		for _, r := range rs {
			if k-1 < r.budget {
				if err := r.advance(math.Min(k, r.budget)); err != nil {
					return err
				}
			}
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
func writeTrace(path string, tr []run.Point) error {
	b, err := json.MarshalIndent(tr, "", " ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, 0o644, func(w io.Writer) error { _, err := w.Write(append(b, '\n')); return err })
}

// slug turns a run name into a file name.
func slug(name string) string {
	return strings.NewReplacer(" ", "-", "=", "", ".", "_").Replace(strings.ToLower(name))
}
