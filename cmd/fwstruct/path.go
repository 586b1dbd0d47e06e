package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/fwstruct/fwstruct/solver"
)

// pathOutput is the JSON written by fwstruct path.
type pathOutput struct {
	Data        string              `json:"data"`
	Epsilon     float64             `json:"epsilon"`
	Kappa       float64             `json:"kappa"`
	Heuristic   bool                `json:"heuristic"`
	Complete    bool                `json:"complete"`
	Stopped     string              `json:"stopped,omitempty"`
	LowerEnd    float64             `json:"lower_end"`
	Breakpoints []breakpointOutput  `json:"breakpoints"`
	Grid        map[string][]gridPt `json:"grid,omitempty"`
}

type breakpointOutput struct {
	Lambda      float64   `json:"lambda"`
	Gap         float64   `json:"gap"`
	TrueGap     *float64  `json:"true_gap"`
	Delta       *float64  `json:"delta"`
	Passes      float64   `json:"passes"`
	OracleCalls int64     `json:"oracle_calls"`
	Seconds     float64   `json:"seconds"`
	WallSeconds float64   `json:"wall_seconds"`
	Weights     []float64 `json:"weights,omitempty"`
}

type gridPt struct {
	Lambda      float64 `json:"lambda"`
	Gap         float64 `json:"gap"`
	Passes      float64 `json:"passes"`
	Seconds     float64 `json:"seconds"`
	WallSeconds float64 `json:"wall_seconds"`
}

func runPath(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("path", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: fwstruct path [flags]\n\nComputes an epsilon-approximate regularization path (Osokin et al. 2016, Alg. 6-7):\nbreakpoints lambda_j with weights epsilon-approximate on each segment.\n\nFlags:")
		fs.PrintDefaults()
	}
	var data dataFlags
	data.register(fs, "auto")
	var sf solverFlags
	sf.register(fs)
	eps := fs.Float64("epsilon", 0.1, "accuracy epsilon of the path (> 0; the number of breakpoints grows as 1/epsilon)")
	kappa := fs.Float64("kappa", 0.9, "kappa in (0, 1): each breakpoint is solved to kappa*epsilon")
	lmin := fs.Float64("lambda-min", math.Ldexp(1, -15), "stop once the next breakpoint falls below this lambda (> 0)")
	heuristic := fs.Bool("heuristic", false, "stop each breakpoint on the stale gap estimate (faster, uncertified)")
	trueGaps := fs.Bool("true-gaps", false, "heuristic path: also compute the exact gap at every breakpoint")
	maxPasses := fs.Float64("max-passes", 10000, "passes allowed per breakpoint (> 0)")
	maxBreakpoints := fs.Int("max-breakpoints", 10000, "stop the path after this many breakpoints (>= 1)")
	grid := fs.Bool("grid", false, "also run cold and warm-started grid search over the paper's grid within the path's range")
	out := fs.String("out", "", "write the path (JSON) to `FILE`")
	withWeights := fs.Bool("weights", false, "include the weights of every breakpoint in the JSON")
	quiet := fs.Bool("quiet", false, "print only the summary")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkRun("path", givenFlags(fs), &data, &sf, "", func(u *runUse) { u.heuristic, u.out = *heuristic, *out != "" }); err != nil {
		return err
	}
	if err := checkFlags(
		positive("epsilon", *eps), flagCheck{"kappa", "in (0, 1)", *kappa, *kappa > 0 && *kappa < 1},
		positive("lambda-min", *lmin), positive("max-passes", *maxPasses),
		flagCheck{"max-breakpoints", ">= 1", float64(*maxBreakpoints), *maxBreakpoints >= 1},
	); err != nil {
		return err
	}
	if err := checkOutputs(output{"out", *out}); err != nil {
		return err
	}
	loaded, name, err := data.load()
	if err != nil {
		return err
	}
	train := loaded.Train
	cfg, err := sf.config(train.Dim())
	if err != nil {
		return err
	}
	pcfg := solver.PathConfig{
		Epsilon: *eps, Kappa: *kappa, LambdaMin: *lmin, Heuristic: *heuristic, TrueGaps: *trueGaps,
		Solver: cfg, MaxPasses: *maxPasses, MaxBreakpoints: *maxBreakpoints,
	}
	if !*quiet {
		pcfg.Progress = func(b solver.Breakpoint) {
			fmt.Fprintf(stdout, "lambda %-12.5g gap %-10s true %-10s passes %8.1f  %.2fs\n", b.Lambda, fmtFloat(b.Gap), fmtFloat(b.TrueGap), b.Passes, b.Seconds)
		}
	}
	path, err := solver.RegPath(ctx, train, pcfg, solver.WithWorkers(sf.workers))
	switch {
	case err != nil && ctx.Err() != nil:
		err = errors.New("interrupted")
	case err != nil:
		err = errors.New(pathFlagNames.Replace(err.Error()))
	}
	if path == nil {
		return err
	}
	last := path.Breakpoints[len(path.Breakpoints)-1]
	// LowerEnd is always computed (solver.Path): how far the path goes.
	approx := "epsilon-approximate"
	if path.Heuristic {
		approx = "estimated epsilon-approximate (heuristic path)"
	}
	end := fmt.Sprintf("%s down to lambda %.5g", approx, path.LowerEnd)
	switch {
	case path.Complete:
		end = fmt.Sprintf("complete (the last weights are %s for every smaller lambda)", approx)
	case err != nil:
		end = fmt.Sprintf("stopped early, %s down to lambda %.5g only", approx, path.LowerEnd)
	case path.LowerEnd < *lmin:
		end += fmt.Sprintf(" (below --lambda-min %.5g)", *lmin)
	}
	fmt.Fprintf(stdout, "path on %s: %d breakpoints from lambda_inf = %.5g, %s; %.1f passes, %.2f s solver time, %.2f s wall\n",
		describeData(name, data.split), len(path.Breakpoints), path.Breakpoints[0].Lambda, end, last.Passes, last.Seconds, last.WallSeconds)
	res := pathOutput{Data: name, Epsilon: path.Epsilon, Kappa: path.Kappa, Heuristic: path.Heuristic, Complete: path.Complete, LowerEnd: path.LowerEnd}
	if err != nil {
		res.Stopped = errorLine(err)
	}
	for _, b := range path.Breakpoints {
		bo := breakpointOutput{Lambda: b.Lambda, Gap: b.Gap, TrueGap: finiteOrNil(b.TrueGap), Delta: finiteOrNil(b.Delta), Passes: b.Passes,
			OracleCalls: b.OracleCalls, Seconds: b.Seconds, WallSeconds: b.WallSeconds}
		if *withWeights {
			bo.Weights = b.W
		}
		res.Breakpoints = append(res.Breakpoints, bo)
	}
	if *grid && err == nil {
		var lambdas []float64
		lo := math.Max(path.LowerEnd, *lmin)
		for _, l := range solver.PaperGrid() {
			if l >= lo {
				lambdas = append(lambdas, l)
			}
		}
		res.Grid = map[string][]gridPt{}
		for _, warm := range []bool{false, true} {
			pts, gerr := solver.GridSearch(ctx, train, solver.GridConfig{Lambdas: lambdas, Tolerance: *eps, Warm: warm, Solver: cfg, MaxPasses: *maxPasses}, solver.WithWorkers(sf.workers))
			if gerr != nil {
				return gerr
			}
			key := map[bool]string{false: "cold", true: "warm"}[warm]
			for _, p := range pts {
				res.Grid[key] = append(res.Grid[key], gridPt{Lambda: p.Lambda, Gap: p.Gap, Passes: p.Passes, Seconds: p.Seconds, WallSeconds: p.WallSeconds})
			}
			l := pts[len(pts)-1]
			fmt.Fprintf(stdout, "grid search (%s): %d lambdas, %.1f passes, %.2f s solver time\n", key, len(pts), l.Passes, l.Seconds)
		}
	}
	if *out != "" {
		if werr := writeJSON(*out, res); werr != nil {
			return errors.Join(err, fmt.Errorf("write path: %w", werr))
		}
	}
	if err != nil && *out != "" {
		return fmt.Errorf("%w (the partial path is in %s)", err, *out)
	}
	return err
}

// pathFlagNames maps the names the solver's path errors use to the flags.
var pathFlagNames = strings.NewReplacer("MaxBreakpoints", "--max-breakpoints", "solver: ", "")
