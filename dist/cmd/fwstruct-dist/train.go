package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/dist"
	"github.com/fwstruct/fwstruct/solver/run"
)

const trainSummary = `Trains units of work, one (method, data, fold) each, on the runner, and prints one line per unit.
The units are the lines of --units (JSON: {"key": ..., "method": {...}, "data": {"name": ..., "options": {...}},
"folds": k, "fold": i, "seed": s, "stop": {"passes": ...}, ...}), or else the grid of --method x --lambdas x
(--folds folds, or the whole training set). Paths of the data are the workers' paths.`

type trainCmd struct {
	units    string
	method   string
	lambdas  string
	data     dataFlags
	folds    int
	foldSeed uint64
	passes   float64
	gap      float64
	test     bool
	workers  int
	weights  bool
	out      string
	output   string
}

func (c *trainCmd) summary() string   { return trainSummary }
func (c *trainCmd) outputDir() string { return c.output }

func (c *trainCmd) register(fs *flag.FlagSet) {
	fs.StringVar(&c.units, "units", "", "read the units from `FILE`, one JSON object a line (- for stdin), instead of the grid of --method, --lambdas, --data and --folds")
	fs.StringVar(&c.method, "method", "bcfw", "the method: a registered name (bcfw, mp-bcfw, fw, ssg, cp, soft, kernel, ...) or its JSON as run.Encode writes it")
	fs.StringVar(&c.lambdas, "lambdas", "", "the lambda grid, comma-separated (default: the lambda of --method's JSON)")
	c.data.register(fs, "loaded on the workers")
	fs.IntVar(&c.folds, "folds", 0, "train on each fold of k-fold cross-validation of the training set (k >= 2; 0: the whole training set)")
	fs.Uint64Var(&c.foldSeed, "fold-seed", 1, "the seed of the assignment of the examples to folds")
	fs.Float64Var(&c.passes, "passes", 30, "stop after this many effective passes")
	fs.Float64Var(&c.gap, "gap", 0, "stop once the duality gap is at most this (0: never)")
	fs.BoolVar(&c.test, "test", false, "record the test loss (the data's test set, or the fold's held-out examples)")
	fs.IntVar(&c.workers, "workers", 0, "the goroutines of each unit's solver on its worker (0: one per CPU)")
	fs.BoolVar(&c.weights, "weights", false, "write the final weights in the results (--out); they are always summarized by a digest")
	fs.StringVar(&c.out, "out", "", "write the results to `FILE`, one JSON object a line")
	registerOutputDir(fs, &c.output)
}

// registerOutputDir declares --output-dir.
func registerOutputDir(fs *flag.FlagSet, dst *string) {
	fs.StringVar(dst, "output-dir", "", "where the workers write the outputs for this program to read: a location both reach (a shared directory, gs://...); "+
		"default a temporary directory, for prism in-process and LOOPBACK")
}

// dataFlags are --data and --data-options.
type dataFlags struct {
	name, options string
}

func (d *dataFlags) register(fs *flag.FlagSet, where string) {
	fs.StringVar(&d.name, "data", "synthetic", "the dataset, as fwstruct's --data names it (synthetic, ocr, conll, a path, ...), "+where)
	fs.StringVar(&d.options, "data-options", "", "the data's options as the JSON of datasets.Options, e.g. {\"path\": \"/shared/data\", \"split\": \"large\"}")
}

// spec returns the data's spec, its relative paths made absolute (the
// workers get them absolute).
func (d *dataFlags) spec() (datasets.Spec, error) {
	data := datasets.Spec{Name: d.name}
	if d.options != "" {
		if err := json.Unmarshal([]byte(d.options), &data.Options); err != nil {
			return data, fmt.Errorf("--data-options: %w", err)
		}
	}
	data, err := data.Abs()
	if err != nil {
		return data, fmt.Errorf("--data: %w", err)
	}
	return data, nil
}

// parseGrid parses a comma-separated grid of positive values of --name.
func parseGrid(name, s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v > 0) || math.IsInf(v, 1) {
			return nil, fmt.Errorf("--%s: %q is not a positive number", name, strings.TrimSpace(f))
		}
		out = append(out, v)
	}
	return out, nil
}

func (c *trainCmd) run(ctx context.Context, r dist.Runner, runnerName string, stdout, stderr io.Writer) error {
	units, err := c.makeUnits()
	if err != nil {
		return err
	}
	if c.out != "" {
		// Fail before the work, not after it.
		f, err := os.OpenFile(c.out, os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		f.Close()
	}
	if runnerName == "" {
		runnerName = "prism"
	}
	start := time.Now()
	res, err := dist.Train(ctx, r, units)
	if res == nil {
		return err
	}
	plural := "s"
	if len(units) == 1 {
		plural = ""
	}
	fmt.Fprintf(stderr, "%d unit%s on %s in %.2f s\n", len(units), plural, runnerName, time.Since(start).Seconds())
	printResults(stdout, res)
	if c.out != "" {
		if werr := writeResults(c.out, res); werr != nil {
			return werr
		}
	}
	return err
}

// makeUnits returns the units of --units, or the grid of the flags.
func (c *trainCmd) makeUnits() ([]dist.Unit, error) {
	if c.units != "" {
		return readUnits(c.units)
	}
	method, err := parseMethod(c.method)
	if err != nil {
		return nil, err
	}
	lambdas := []float64{}
	if c.lambdas == "" {
		b, _ := run.Encode(method)
		var l struct{ Lambda float64 }
		_ = json.Unmarshal(b, &l)
		if !(l.Lambda > 0) {
			return nil, errors.New("give --lambdas, or a lambda in --method's JSON")
		}
		lambdas = append(lambdas, l.Lambda)
	} else if lambdas, err = parseGrid("lambdas", c.lambdas); err != nil {
		return nil, err
	}
	data, err := c.data.spec()
	if err != nil {
		return nil, err
	}
	stop := run.Stop{Passes: c.passes, Gap: c.gap}
	folds := []int{0}
	if c.folds != 0 {
		if c.folds < 2 {
			return nil, fmt.Errorf("--folds %d: want k >= 2, or 0 for the whole training set", c.folds)
		}
		folds = folds[:0]
		for f := range c.folds {
			folds = append(folds, f)
		}
	}
	var units []dist.Unit
	for _, l := range lambdas {
		m, err := run.Encode(method.WithLambda(l))
		if err != nil {
			return nil, err
		}
		for _, f := range folds {
			key := fmt.Sprintf("%s/lambda=%g", method.Name(), l)
			if c.folds != 0 {
				key += fmt.Sprintf("/fold=%d", f)
			}
			u, err := dist.NewTrainUnit(key, dist.TrainUnit{
				Method: m, Data: data, Folds: c.folds, Fold: f, Seed: c.foldSeed, Stop: stop,
				Test: c.test, Workers: c.workers, Weights: c.weights,
			})
			if err != nil {
				return nil, err
			}
			units = append(units, u)
		}
	}
	return units, nil
}

// parseMethod reads --method: a registered name or the JSON of a method.
func parseMethod(s string) (run.Method, error) {
	if strings.HasPrefix(strings.TrimSpace(s), "{") {
		m, err := run.Decode([]byte(s))
		if err != nil {
			return nil, fmt.Errorf("--method: %w", err)
		}
		return m, nil
	}
	m, err := run.Lookup(s)
	if err != nil {
		return nil, fmt.Errorf("--method: %w", err)
	}
	return m, nil
}

// fileUnit is a line of --units.
type fileUnit struct {
	Key string `json:"key"`
	dist.TrainUnit
}

// readUnits reads the units of a file of JSON lines.
func readUnits(path string) ([]dist.Unit, error) {
	var r io.Reader = os.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("--units: %w", err)
		}
		defer f.Close()
		r = f
	}
	var units []dist.Unit
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var fu fileUnit
		if err := strictJSON(sc.Bytes(), &fu); err != nil {
			return nil, fmt.Errorf("--units %s: line %d: %w", path, line, err)
		}
		if fu.Key == "" {
			fu.Key = fmt.Sprintf("line%d", line)
		}
		u, err := dist.NewTrainUnit(fu.Key, fu.TrainUnit)
		if err != nil {
			return nil, err
		}
		units = append(units, u)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--units %s: %w", path, err)
	}
	if len(units) == 0 {
		return nil, fmt.Errorf("--units %s: no units", path)
	}
	return units, nil
}

// strictJSON decodes one JSON value, refusing fields v does not have.
func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// printResults prints one line per unit, then the errors of the units that
// failed.
func printResults(w io.Writer, res []dist.TrainResult) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "unit\tstatus\tpasses\toracle calls\tprimal\tgap\ttest loss\tseconds\t")
	num := func(v float64) string {
		if math.IsNaN(v) {
			return "-"
		}
		return strconv.FormatFloat(v, 'g', 6, 64)
	}
	var failed []string
	for _, r := range res {
		if r.Err != "" {
			fmt.Fprintf(tw, "%s\tfailed\t\t\t\t\t\t\t\n", r.Key)
			failed = append(failed, fmt.Sprintf("%s: %s", r.Key, firstLine(errors.New(r.Err))))
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%.3f\t\n", r.Key, r.Status, num(r.Passes), r.OracleCalls,
			num(r.Last.Primal), num(r.Last.Gap), num(r.Last.TestLoss), r.Seconds)
	}
	tw.Flush()
	for _, f := range failed {
		fmt.Fprintln(w, f)
	}
}

// writeResults writes the results as JSON lines.
func writeResults(path string, res []dist.TrainResult) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, r := range res {
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("--out: unit %q: %w", r.Key, err)
		}
	}
	if err := writeFile(path, b.Bytes()); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

// writeFile writes b to path through a temporary file renamed into place.
func writeFile(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
