package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/kernel"
	"github.com/fwstruct/fwstruct/solver/soft"
	"github.com/fwstruct/fwstruct/tune"
)

func runTune(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tune", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: fwstruct tune [flags]\n\nChooses lambda (and rho for --solver soft, gamma for --kernel rbf|poly) by k-fold or held-out\n"+
			"validation on the training set, on the task's own metric (Hamming loss for multi-label data,\n"+
			"chunk F1 for chunking, pixel accuracy for segmentation, error rate for multiclass data, the task\n"+
			"loss for OCR); BCFW walks the lambda grid warm-started. Then trains the final model on the whole\n"+
			"training set, prints the validation table and writes the model, the curve and its figure.\n"+
			"The data, solver and kernel flags are train's; --lambda, --time, --oracle-accuracy and lp-hard do not apply;\n"+
			"--passes, --gap-tol and --early-check end the training at every value of the grid.\n\nFlags:")
		fs.PrintDefaults()
	}
	var data dataFlags
	data.register(fs, "auto")
	var sf solverFlags
	sf.register(fs)
	var sp stopFlags
	sp.register(fs)
	var kf kernelFlags
	kf.register(fs)
	lambdas := fs.String("lambdas", "", "the lambda grid, comma-separated (default: 10^k/n for k = 3, 2, 1, 0, -1)")
	rhos := fs.String("rhos", "", "--solver soft: the rho grid, comma-separated (default: --rho alone)")
	gammas := fs.String("gammas", "", "--kernel rbf|poly: the gamma grid, comma-separated (default: --gamma alone)")
	folds := fs.Int("folds", 5, "k of k-fold cross-validation (>= 2)")
	holdOut := fs.Float64("hold-out", 0, "validate on this held-out fraction of the training set, in (0, 1), instead of --folds")
	foldSeed := fs.Uint64("fold-seed", 1, "seed of the assignment of the examples to folds")
	metric := fs.String("metric", "", "validation metric (default: the task's own; e.g. example_f1 on multi-label data)")
	cold := fs.Bool("cold", false, "start every value of the grid from scratch (default: BCFW warm-started along the lambda grid)")
	modelPath := fs.String("model", "", "write the final model (JSON, as train --model) to `FILE`")
	curvePath := fs.String("curve", "", "write the validation curve (JSON) to `FILE`")
	figurePath := fs.String("figure", "", "draw the validation curve to `FILE` (.png, .svg, .pdf or .html)")
	quiet := fs.Bool("quiet", false, "print only the table and the summary")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkRun("tune", givenFlags(fs), &data, &sf, kf.kind, func(u *runUse) { u.gapTol = sp.gapTol > 0 }); err != nil {
		return err
	}
	if sf.algorithm == "lp-hard" {
		return errors.New("--solver lp-hard: tune runs bcfw, fw, ssg, cp (on the exact model of factor-graph data) or soft")
	}
	if flagSet(fs, "folds") && flagSet(fs, "hold-out") {
		return errors.New("give --folds or --hold-out, not both")
	}
	tc := tune.Config{Seed: *foldSeed, Metric: *metric, Cold: *cold, Workers: sf.workers, HoldOut: *holdOut}
	if *holdOut == 0 {
		tc.Folds = *folds
	}
	var err error
	if tc.Lambdas, err = parseGrid("lambdas", *lambdas); err != nil {
		return err
	}
	if tc.Rhos, err = parseGrid("rhos", *rhos); err != nil {
		return err
	}
	if tc.Gammas, err = parseGrid("gammas", *gammas); err != nil {
		return err
	}
	if tc.Stop, err = sp.stop(); err != nil {
		return err
	}
	if err := checkOutputs(output{"model", *modelPath}, output{"curve", *curvePath}, output{"figure", *figurePath}); err != nil {
		return err
	}
	loaded, name, err := data.load()
	if err != nil {
		return err
	}
	if tc.Gammas != nil && !flagSet(fs, "gamma") {
		kf.gamma = tc.Gammas[0] // the grid's values replace it
	}
	var base any
	switch {
	case kf.enabled():
		cfg, err := kf.config(&sf)
		if err != nil {
			return err
		}
		base = cfg
	case sf.algorithm == "soft":
		cfg, err := sf.softConfig()
		if err != nil {
			return err
		}
		base = cfg
	default:
		cfg, err := sf.config(loaded.Train.Dim())
		if err != nil {
			return err
		}
		base = cfg
	}
	grid := tc.Lambdas
	if grid == nil {
		grid = tune.DefaultLambdas(loaded.Train.Len())
	}
	largest := grid[0]
	for _, l := range grid {
		largest = math.Max(largest, l)
	}
	conditioned := !kf.enabled() || kf.kind == "linear"
	if conditioned {
		warnConditioning(stderr, "tune", loaded, largest)
	}
	fmt.Fprintf(stdout, "data %s: %d training and %d test examples, d = %d\n", describeData(name, data.split), loaded.Train.Len(), loaded.Test.Len(), loaded.Train.Dim())
	metricShown := tc.Metric
	if metricShown == "" {
		metricShown = tune.DefaultMetric(loaded.Train)
	}
	if !*quiet {
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
	res, err := tune.Run(ctx, loaded, base, tc)
	if err != nil {
		if ctx.Err() != nil {
			return errors.New("interrupted (nothing written)")
		}
		return err
	}
	cols, rows := res.Table()
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(cols, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	c := res.Chosen()
	chosen := fmt.Sprintf("lambda = %g", c.Lambda)
	if res.Aux != "" {
		chosen += fmt.Sprintf(", %s = %g", res.Aux, c.Aux)
	}
	if edge := res.Edge(); edge != "" {
		chosen += fmt.Sprintf(" (the %s lambda of the grid: a better one may lie beyond, extend --lambdas)", edge)
	}
	fmt.Fprintf(stdout, "chosen %s: %s %s (standard error %s over %d folds); final model: %.1f passes, test %s %s, %.1f s in all\n",
		chosen, res.Metric, fmtFloat(c.Mean), fmtFloat(c.StdErr), res.Folds, res.Final.Passes(), res.Metric, fmtFloat(res.Test), res.Elapsed.Seconds())
	if conditioned {
		warnConditioning(stderr, "tune", loaded, c.Lambda)
	}
	var errs []error
	if *modelPath != "" {
		if err := writeTunedModel(*modelPath, fs, &data, name, loaded, res); err != nil {
			errs = append(errs, fmt.Errorf("write model: %w", err))
		}
	}
	if *curvePath != "" {
		if err := writeJSON(*curvePath, res); err != nil {
			errs = append(errs, fmt.Errorf("write curve: %w", err))
		}
	}
	if *figurePath != "" {
		if err := res.Figure().Save(*figurePath, 800, 500); err != nil {
			errs = append(errs, fmt.Errorf("write figure: %w", err))
		}
	}
	return errors.Join(errs...)
}

// parseGrid parses a comma-separated grid of positive values ("" is nil).
func parseGrid(flagName, s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v > 0) || math.IsInf(v, 1) {
			return nil, fmt.Errorf("--%s: %s is not a positive number (want comma-separated values, e.g. 1,0.1,0.01)", flagName, quote(strings.TrimSpace(f)))
		}
		out = append(out, v)
	}
	return out, nil
}

// writeTunedModel writes the final model of a tuning run in the format of
// train --model (a kernel model for the kernelized solver), recording the
// data options and the scaling as train does.
func writeTunedModel(path string, fs *flag.FlagSet, data *dataFlags, name string, loaded *datasets.Data, res *tune.Result) error {
	dataOpts, err := data.resolved(fs, name)
	if err != nil {
		return err
	}
	last, err := res.Final.Current()
	if err != nil {
		return err
	}
	switch s := res.Final.(type) {
	case *kernel.Solver:
		cfg := s.Config()
		return writeKernelModel(path, &kernelModelFile{Data: name, DataOptions: dataOpts, TrainFingerprint: fingerprint(loaded.Train, 0),
			Lambda: cfg.Lambda, Solver: cfg.Algorithm.String(), Passes: s.Passes(), Gap: finiteOrNil(last.Gap),
			Model: s.Model(), AverageModel: s.AverageModel(), Scaler: loaded.Scaler})
	case *soft.Solver:
		cfg := s.Config()
		return writeModel(path, &modelFile{Data: name, DataOptions: dataOpts, TrainFingerprint: fingerprint(loaded.Train, 0),
			Dim: loaded.Train.Dim(), Lambda: cfg.Lambda, Rho: cfg.Rho, Solver: "soft", Passes: s.Passes(), Gap: finiteOrNil(last.Gap),
			Weights: s.Weights(), Scaler: loaded.Scaler})
	case *solver.Solver:
		cfg := s.Config()
		return writeModel(path, &modelFile{Data: name, DataOptions: dataOpts, TrainFingerprint: fingerprint(loaded.Train, 0),
			Dim: loaded.Train.Dim(), Lambda: cfg.Lambda, Solver: cfg.Algorithm.String(), Passes: s.Passes(), Gap: finiteOrNil(last.Gap),
			Weights: s.Weights(), AverageWeights: s.AverageWeights(), Scaler: loaded.Scaler})
	}
	return fmt.Errorf("no model file for a %T", res.Final)
}
