package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
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

const pathUsage = `Usage: fwstruct path [--method NAME] [flags]

Computes an epsilon-approximate regularization path (Osokin et al. 2016, Alg. 6-7):
breakpoints lambda_j with weights epsilon-approximate on each segment, each
solved by the method, whose dual variables and gap estimates the path rescales.`

// pathMethods are the methods the path can run.
var pathMethods = func() []methodEntry {
	var out []methodEntry
	for _, e := range methods {
		switch e.name {
		case "recommended", "bcfw", "mp-bcfw", "exact":
			out = append(out, e)
		}
	}
	return out
}()

// pathLine is the command line of fwstruct path.
type pathLine struct {
	f                   *flagSet
	method              func() run.Method
	data                dataFlags
	workers             int
	eps, kappa, lmin    float64
	maxPasses           float64
	maxBreakpoints      int
	heuristic, trueGaps bool
	grid, weights       bool
	out                 string
	quiet               bool
}

// declarePath declares the flags of path with method e.
func declarePath(f *flagSet, e methodEntry) *pathLine {
	p := &pathLine{f: f, eps: 0.1, kappa: 0.9, lmin: math.Ldexp(1, -15), maxPasses: 10000, maxBreakpoints: 10000}
	name := e.name
	f.section("Method", "")
	f.String(&name, "method", "the method solving every breakpoint, by `NAME`: recommended, bcfw, mp-bcfw or exact")
	p.data.declare(f, freshData("auto"), "")
	f.section("Path", "")
	f.Float(&p.eps, "epsilon", "accuracy epsilon of the path (> 0; the number of breakpoints grows as 1/epsilon)")
	f.Float(&p.kappa, "kappa", "kappa in (0, 1): each breakpoint is solved to kappa*epsilon")
	f.Float(&p.lmin, "lambda-min", "stop once the next breakpoint falls below this lambda (> 0)")
	f.Bool(&p.heuristic, "heuristic", "stop each breakpoint on the stale gap estimate (faster, uncertified)")
	f.Bool(&p.trueGaps, "true-gaps", "heuristic path: also compute the exact gap at every breakpoint")
	f.Float(&p.maxPasses, "max-passes", "passes allowed per breakpoint (> 0)")
	f.Int(&p.maxBreakpoints, "max-breakpoints", "stop the path after this many breakpoints (>= 1)")
	f.Bool(&p.grid, "grid", "also run cold and warm-started grid search over the paper's grid within the path's range")
	f.section("Output", "")
	f.String(&p.out, "out", "write the path (JSON) to `FILE`")
	f.Bool(&p.weights, "weights", "include the weights of every breakpoint in the JSON")
	f.Bool(&p.quiet, "quiet", "print only the summary")
	p.method = workersAndMethod(f, e, &p.workers)
	f.check(func() error {
		if err := checkFlags(
			positive("epsilon", p.eps), flagCheck{"kappa", "in (0, 1)", p.kappa, p.kappa > 0 && p.kappa < 1},
			positive("lambda-min", p.lmin), positive("max-passes", p.maxPasses),
			flagCheck{"max-breakpoints", ">= 1", float64(p.maxBreakpoints), p.maxBreakpoints >= 1},
		); err != nil {
			return err
		}
		switch {
		case p.trueGaps && !p.heuristic:
			return errors.New("--true-gaps needs --heuristic (the gaps of the certified path are exact already)")
		case p.weights && p.out == "":
			return errors.New("--weights needs --out FILE (the weights go into its JSON)")
		}
		return nil
	})
	return p
}

// pathHints say why flags of train are not path's.
var pathHints = withExecutionHints(map[string]string{
	"lambda":          "applies to train only (the path sweeps lambda from lambda_inf down to --lambda-min)",
	"oracle-accuracy": "applies to train only (the path runs the exact oracle)",
})

func runPath(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	e, err := chosenMethod(args, pathMethods, nil)
	if err != nil {
		return offeredOnly("path", args, pathMethods, err)
	}
	f := newFlagSet("path")
	p := declarePath(f, e)
	f.elsewhere = methodElsewhere(e, pathMethods, func(g *flagSet, o methodEntry) { declarePath(g, o) }, pathHints)
	f.help = methodHelp(stderr, pathUsage, f, e, pathMethods, args)
	if err := f.parse(args); err != nil {
		return err
	}
	if err := checkOutputs(output{"out", p.out}); err != nil {
		return err
	}
	spec, err := p.data.spec(f.givenNames())
	if err != nil {
		return err
	}
	loaded, err := spec.Load()
	if err != nil {
		return err
	}
	if err := checkNotInputs(dataInputs(loaded), output{"out", p.out}); err != nil {
		return err
	}
	train := loaded.Train
	if err := f.finish(train.Dim()); err != nil {
		return err
	}
	m := p.method()
	pcfg := solver.PathConfig{
		Epsilon: p.eps, Kappa: p.kappa, LambdaMin: p.lmin, Heuristic: p.heuristic, TrueGaps: p.trueGaps,
		Method: m, MaxPasses: p.maxPasses, MaxBreakpoints: p.maxBreakpoints,
	}
	if !p.quiet {
		pcfg.Progress = func(b solver.Breakpoint) {
			fmt.Fprintf(stdout, "lambda %-12.5g gap %-10s true %-10s passes %8.1f  %.2fs\n", b.Lambda, fmtFloat(b.Gap), fmtFloat(b.TrueGap), b.Passes, b.Seconds)
		}
	}
	path, err := solver.RegPath(ctx, train, pcfg, run.WithWorkers(p.workers))
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
	case path.LowerEnd < p.lmin:
		end += fmt.Sprintf(" (below --lambda-min %.5g)", p.lmin)
	}
	fmt.Fprintf(stdout, "path on %s: %d breakpoints from lambda_inf = %.5g, %s; %.1f passes, %.2f s solver time, %.2f s wall\n",
		describeData(loaded, spec), len(path.Breakpoints), path.Breakpoints[0].Lambda, end, last.Passes, last.Seconds, last.WallSeconds)
	res := pathOutput{Data: loaded.Name, Epsilon: path.Epsilon, Kappa: path.Kappa, Heuristic: path.Heuristic, Complete: path.Complete, LowerEnd: path.LowerEnd}
	if err != nil {
		res.Stopped = errorLine(err)
	}
	for _, b := range path.Breakpoints {
		bo := breakpointOutput{Lambda: b.Lambda, Gap: b.Gap, TrueGap: finiteOrNil(b.TrueGap), Delta: finiteOrNil(b.Delta), Passes: b.Passes,
			OracleCalls: b.OracleCalls, Seconds: b.Seconds, WallSeconds: b.WallSeconds}
		if p.weights {
			bo.Weights = b.W
		}
		res.Breakpoints = append(res.Breakpoints, bo)
	}
	if p.grid && err == nil {
		var lambdas []float64
		lo := math.Max(path.LowerEnd, p.lmin)
		for _, l := range solver.PaperGrid() {
			if l >= lo {
				lambdas = append(lambdas, l)
			}
		}
		res.Grid = map[string][]gridPt{}
		for _, warm := range []bool{false, true} {
			pts, gerr := solver.GridSearch(ctx, train, solver.GridConfig{Lambdas: lambdas, Tolerance: p.eps, Warm: warm, Method: m, MaxPasses: p.maxPasses}, run.WithWorkers(p.workers))
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
	if p.out != "" {
		if werr := writeJSON(p.out, res); werr != nil {
			return errors.Join(err, fmt.Errorf("write path: %w", werr))
		}
	}
	if err != nil && p.out != "" {
		return fmt.Errorf("%w (the partial path is in %s)", err, p.out)
	}
	return err
}

// pathFlagNames maps the names the solver's path errors use to the flags.
var pathFlagNames = strings.NewReplacer("MaxBreakpoints", "--max-breakpoints", "solver: ", "")
