package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/fwstruct/fwstruct/solver/kernel"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/tune"
	"github.com/fwstruct/fwstruct/viz"
)

const tuneUsage = `Usage: fwstruct tune [--method NAME] [flags]

Chooses lambda (and rho for --method soft, gamma for a kernel method with --kernel
rbf|poly) by k-fold or held-out validation on the training set, on the task's own
metric (Hamming loss for multi-label data, chunk F1 for chunking, pixel accuracy for
segmentation, error rate for multiclass data, the task loss for OCR); BCFW walks the
lambda grid warm-started. Then trains the final model on the whole training set,
prints the validation table and writes the model, the curve and its figure.
--passes, --gap-tol and --early-check end the training at every value of the grid.`

// tuneLine is the command line of fwstruct tune.
type tuneLine struct {
	f       *flagSet
	method  func() run.Method
	data    dataFlags
	stop    stopFlags
	workers int

	lambdas, rhos, gammas string
	folds                 int
	holdOut               float64
	foldSeed              uint64
	metric                string
	cold                  bool
	model, curve, figure  string
	quiet                 bool
}

// declareTune declares the flags of tune with method e.
func declareTune(f *flagSet, e methodEntry) *tuneLine {
	t := &tuneLine{f: f, folds: 5, foldSeed: 1}
	name := e.name
	f.section("Method", "")
	f.String(&name, "method", "the method, by `NAME` (fwstruct tune --help lists them; fwstruct tune --method NAME --help its flags)")
	t.data.declare(f, freshData("auto"), "")
	t.stop.declare(f, run.Stop{Passes: 50}, false)
	f.section("Validation", "--rhos (--method soft) and --gammas (the kernel methods, --kernel rbf or poly) are the grids of rho and gamma.")
	f.String(&t.lambdas, "lambdas", "the lambda grid, comma-separated (default: 10^k/n for k = 3, 2, 1, 0, -1)")
	proto := e.declare(newFlagSet(""), nil)()
	if _, ok := proto.(interface{ WithRho(float64) run.Method }); ok {
		f.String(&t.rhos, "rhos", "the rho grid, comma-separated (default: --rho alone)")
	}
	if _, ok := proto.(interface{ WithGamma(float64) run.Method }); ok {
		f.String(&t.gammas, "gammas", "with --kernel rbf or poly: the gamma grid, comma-separated (default: --gamma alone)")
	}
	f.Int(&t.folds, "folds", "k of k-fold cross-validation (>= 2)")
	f.Float(&t.holdOut, "hold-out", "validate on this held-out fraction of the training set, in (0, 1), instead of --folds")
	f.Uint64(&t.foldSeed, "fold-seed", "seed of the assignment of the examples to folds")
	f.String(&t.metric, "metric", "validation metric (default: the task's own; e.g. example_f1 on multi-label data)")
	f.Bool(&t.cold, "cold", "start every value of the grid from scratch (default: BCFW warm-started along the lambda grid)")
	f.section("Output", "")
	f.String(&t.model, "model", "write the final model (JSON, as train --model) to `FILE`")
	f.String(&t.curve, "curve", "write the validation curve (JSON) to `FILE`")
	f.String(&t.figure, "figure", "draw the validation curve to `FILE` (.png, .svg, .pdf or .html)")
	f.Bool(&t.quiet, "quiet", "print only the table and the summary")
	t.method = workersAndMethod(f, e, &t.workers)
	f.check(func() error {
		switch {
		case f.given("folds") && f.given("hold-out"):
			return errors.New("give --folds or --hold-out, not both")
		case t.folds < 2:
			return fmt.Errorf("--folds must be >= 2, got %d", t.folds)
		case f.given("hold-out") && !(t.holdOut > 0 && t.holdOut < 1):
			return fmt.Errorf("--hold-out must be in (0, 1), got %v", t.holdOut)
		}
		return nil
	})
	return t
}

// tuneHints say why flags of train are not tune's.
var tuneHints = withExecutionHints(map[string]string{
	"lambda":          "applies to train only (tune chooses lambda: give the grid with --lambdas)",
	"time":            "applies to train only (bound each value of tune's grid with --passes or --gap-tol)",
	"oracle-accuracy": "applies to train only (tune runs the exact oracle)",
})

// parseTune parses the command line of tune. The first value of --gammas
// is the default of --gamma (a kernel's gamma must be set).
func parseTune(args []string, stderr io.Writer) (*tuneLine, error) {
	e, err := chosenMethod(args, methods, nil)
	if err != nil {
		return nil, err
	}
	f := newFlagSet("tune")
	t := declareTune(f, e)
	if g, err := parseGrid("gammas", flagValue(args, "gammas")); err == nil {
		if fl := f.fs.Lookup("gamma"); fl != nil {
			fl.DefValue = strconv.FormatFloat(g[0], 'g', -1, 64)
			if err := fl.Value.Set(fl.DefValue); err != nil {
				return nil, err
			}
		}
	}
	f.elsewhere = methodElsewhere(e, methods, func(g *flagSet, o methodEntry) { declareTune(g, o) }, tuneHints)
	f.help = methodHelp(stderr, tuneUsage, f, e, methods, args)
	if err := f.parse(args); err != nil {
		return nil, err
	}
	return t, nil
}

func runTune(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	t, err := parseTune(args, stderr)
	if err != nil {
		return err
	}
	tc := tune.Config{Seed: t.foldSeed, Metric: t.metric, Cold: t.cold, Workers: t.workers, Stop: t.stop.value()}
	if t.f.given("hold-out") {
		tc.HoldOut = t.holdOut
	} else {
		tc.Folds = t.folds
	}
	for _, g := range []struct {
		name string
		dst  *[]float64
	}{{"lambdas", &tc.Lambdas}, {"rhos", &tc.Rhos}, {"gammas", &tc.Gammas}} {
		if t.f.given(g.name) {
			if *g.dst, err = parseGrid(g.name, t.f.fs.Lookup(g.name).Value.String()); err != nil {
				return err
			}
		}
	}
	if tc.Gammas != nil && !nonlinearKernel(t.method()) {
		return errors.New("--gammas applies to --kernel rbf and poly only")
	}
	outs := []output{{"model", t.model}, {"curve", t.curve}, {"figure", t.figure}}
	if err := checkOutputs(outs...); err != nil {
		return err
	}
	if t.figure != "" {
		if err := viz.CheckFormat(t.figure); err != nil {
			return fmt.Errorf("--figure: %w", err)
		}
	}
	spec, err := t.data.spec(t.f.givenNames())
	if err != nil {
		return err
	}
	loaded, err := spec.Load()
	if err != nil {
		return err
	}
	if err := checkNotInputs(dataInputs(loaded), outs...); err != nil {
		return err
	}
	if err := t.f.finish(loaded.Train.Dim()); err != nil {
		return err
	}
	m := t.method()
	grid := tc.Lambdas
	if grid == nil {
		grid = tune.DefaultLambdas(loaded.Train.Len())
	}
	largest := grid[0]
	for _, l := range grid {
		largest = math.Max(largest, l)
	}
	conditioned := linearFeatures(m)
	if conditioned {
		warnConditioning(stderr, "tune", loaded, largest)
	}
	printData(stdout, loaded, spec, "the final model is not tested")
	fmt.Fprintf(stdout, "method %s\n", describeMethod(m))
	metricShown := tc.Metric
	if metricShown == "" {
		metricShown = tune.DefaultMetric(loaded.Train)
	}
	if !t.quiet {
		tc.Progress = func(p tune.Progress) {
			what := fmt.Sprintf("fold %d", p.Fold+1)
			if p.Fold < 0 {
				what = "final model, test"
			}
			fmt.Fprintf(stdout, "[%d/%d] %-17s lambda %-10.4g", p.Done, p.Total, what, p.Lambda)
			if tc.Rhos != nil || tc.Gammas != nil {
				fmt.Fprintf(stdout, " aux %-8.4g", p.Aux)
			}
			fmt.Fprintf(stdout, " %s %-8s %6.1f passes, gap %-9s %.1fs\n", metricShown, fmtFloat(p.Value), p.Passes, fmtFloat(p.Gap), p.Elapsed.Seconds())
		}
	}
	res, err := tune.Run(ctx, loaded, m, tc)
	if err != nil {
		if ctx.Err() != nil {
			return errors.New("interrupted (nothing written)")
		}
		return err
	}
	if err := res.WriteTable(stdout); err != nil {
		return err
	}
	if err := res.WriteSummary(stdout, res.Final.Passes()); err != nil {
		return err
	}
	c := res.Chosen()
	if conditioned {
		warnConditioning(stderr, "tune", loaded, c.Lambda)
	}
	var errs []error
	if t.model != "" {
		_, err := res.Final.Current()
		if err == nil {
			err = saveModel(t.model, res.Final, loaded, spec, 1, t.workers)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("write model: %w", err))
		}
	}
	if t.curve != "" {
		if err := writeJSON(t.curve, res); err != nil {
			errs = append(errs, fmt.Errorf("write curve: %w", err))
		}
	}
	if t.figure != "" {
		write, err := res.Figure().Encoder(t.figure, 800, 500)
		if err == nil {
			err = writeFile(t.figure, write)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("write figure: %w", err))
		}
	}
	return errors.Join(errs...)
}

// nonlinearKernel reports whether m is a kernel method with an rbf or poly
// kernel, whose gamma tune can search.
func nonlinearKernel(m run.Method) bool {
	switch m := m.(type) {
	case kernel.BCFW, kernel.FW, kernel.Exact:
		return !linearFeatures(m)
	}
	return false
}

// parseGrid parses a comma-separated grid of positive values.
func parseGrid(flagName, s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("--%s: an empty grid (want comma-separated values, e.g. 1,0.1,0.01)", flagName)
	}
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := parseFloat(strings.TrimSpace(f))
		if err != nil || !(v > 0) || math.IsInf(v, 1) {
			return nil, fmt.Errorf("--%s: %s is not a positive number (want comma-separated values, e.g. 1,0.1,0.01)", flagName, quote(strings.TrimSpace(f)))
		}
		out = append(out, v)
	}
	return out, nil
}
