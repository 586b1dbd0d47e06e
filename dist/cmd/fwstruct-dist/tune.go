package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/fwstruct/fwstruct/dist"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/tune"

	// auto, tune's default method, registers itself.
	_ "github.com/fwstruct/fwstruct/solver/auto"
)

const tuneSummary = `Chooses lambda (and rho for --method soft, gamma for a kernel method of an rbf or poly kernel) by k-fold
or held-out validation on the training set, on the task's own metric, as fwstruct tune does: every value of the
grid on every fold is a unit of work on the runner (one fold's walk down the lambda grid when BCFW's methods
warm-start along it), then the final model at the chosen values is one more. Prints fwstruct tune's table and
summary. This program loads the data too (the plan needs its size and metric, and auto its problem); the workers
load it from the same paths.`

type tuneCmd struct {
	method                string
	data                  dataFlags
	lambdas, rhos, gammas string
	folds                 int
	holdOut               float64
	foldSeed              uint64
	metric                string
	cold                  bool
	passes, gap           float64
	workers               int
	curve                 string
	output                string
}

func (c *tuneCmd) summary() string   { return tuneSummary }
func (c *tuneCmd) outputDir() string { return c.output }

// register declares the flags of tune: fwstruct tune's names and defaults,
// the method's own settings given in --method's JSON.
func (c *tuneCmd) register(fs *flag.FlagSet) {
	fs.StringVar(&c.method, "method", "auto", "the method: a registered name (auto, bcfw, mp-bcfw, fw, ssg, soft, kernel, ...) or its JSON as run.Encode writes it (its settings; its lambda is the grid's)")
	c.data.register(fs, "loaded here and on the workers")
	fs.StringVar(&c.lambdas, "lambdas", "", "the lambda grid, comma-separated (default: 10^k/n for k = 3, 2, 1, 0, -1)")
	fs.StringVar(&c.rhos, "rhos", "", "the rho grid of --method soft, comma-separated (default: the method's rho alone)")
	fs.StringVar(&c.gammas, "gammas", "", "the gamma grid of a kernel method with an rbf or poly kernel, comma-separated (default: the method's gamma alone)")
	fs.IntVar(&c.folds, "folds", 5, "k of k-fold cross-validation (>= 2)")
	fs.Float64Var(&c.holdOut, "hold-out", 0, "validate on this held-out fraction of the training set, in (0, 1), instead of --folds")
	fs.Uint64Var(&c.foldSeed, "fold-seed", 1, "seed of the assignment of the examples to folds")
	fs.StringVar(&c.metric, "metric", "", "validation metric (default: the task's own; e.g. example_f1 on multi-label data)")
	fs.BoolVar(&c.cold, "cold", false, "start every value of the grid from scratch (default: BCFW warm-started along the lambda grid)")
	fs.Float64Var(&c.passes, "passes", 50, "stop every fit after this many effective passes at its value")
	fs.Float64Var(&c.gap, "gap-tol", 0, "stop every fit once its duality gap is at most this (0: never)")
	fs.IntVar(&c.workers, "workers", 0, "the goroutines of each unit's solver on its worker (0: one per CPU)")
	fs.StringVar(&c.curve, "curve", "", "write the validation curve (JSON, as fwstruct tune --curve) to `FILE`")
	registerOutputDir(fs, &c.output)
}

// config returns tune's configuration of the flags.
func (c *tuneCmd) config() (tune.Config, error) {
	cfg := tune.Config{Seed: c.foldSeed, Metric: c.metric, Cold: c.cold, Workers: c.workers,
		Stop: run.Stop{Passes: c.passes, Gap: c.gap}}
	switch {
	case c.holdOut != 0 && c.folds != 5:
		return cfg, errors.New("give --folds or --hold-out, not both")
	case c.holdOut != 0:
		if !(c.holdOut > 0 && c.holdOut < 1) {
			return cfg, fmt.Errorf("--hold-out must be in (0, 1), got %v", c.holdOut)
		}
		cfg.HoldOut = c.holdOut
	case c.folds < 2:
		return cfg, fmt.Errorf("--folds must be >= 2, got %d", c.folds)
	default:
		cfg.Folds = c.folds
	}
	if cfg.Stop == (run.Stop{}) {
		return cfg, errors.New("give --passes or --gap-tol")
	}
	for _, g := range []struct {
		name, value string
		dst         *[]float64
	}{{"lambdas", c.lambdas, &cfg.Lambdas}, {"rhos", c.rhos, &cfg.Rhos}, {"gammas", c.gammas, &cfg.Gammas}} {
		if g.value == "" {
			continue
		}
		v, err := parseGrid(g.name, g.value)
		if err != nil {
			return cfg, err
		}
		*g.dst = v
	}
	return cfg, nil
}

func (c *tuneCmd) run(ctx context.Context, r dist.Runner, runnerName string, stdout, stderr io.Writer) error {
	cfg, err := c.config()
	if err != nil {
		return err
	}
	base, err := parseMethod(c.method)
	if err != nil {
		return err
	}
	if c.curve != "" {
		f, err := os.OpenFile(c.curve, os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			return fmt.Errorf("--curve: %w", err)
		}
		f.Close()
	}
	spec, err := c.data.spec()
	if err != nil {
		return err
	}
	d, err := spec.Load()
	if err != nil {
		return err
	}
	plan, err := tune.NewPlan(d, base, cfg)
	if err != nil {
		return err
	}
	if runnerName == "" {
		runnerName = "prism"
	}
	fmt.Fprintf(stdout, "data %s: %d training and %d test examples, d = %d\n", spec.Name, d.Train.Len(), d.Test.Len(), d.Train.Dim())
	m, err := run.Encode(plan.Method)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "method %s\n", m)
	start := time.Now()
	res, err := dist.Tune(ctx, r, spec, plan)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%d units and the final model on %s in %.2f s\n", len(plan.Units()), runnerName, time.Since(start).Seconds())
	if err := printTable(stdout, res); err != nil {
		return err
	}
	if c.curve != "" {
		b, err := json.Marshal(res.Result)
		if err == nil {
			err = writeFile(c.curve, b)
		}
		if err != nil {
			return fmt.Errorf("--curve: %w", err)
		}
	}
	return nil
}

// printTable prints the validation table and the summary line of fwstruct
// tune.
func printTable(w io.Writer, res *dist.TuneResult) error {
	if err := res.WriteTable(w); err != nil {
		return err
	}
	return res.WriteSummary(w, res.FinalFit.Passes)
}
