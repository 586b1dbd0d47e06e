package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
)

// dataFlags selects a dataset.
type dataFlags struct {
	name       string
	path       string
	testPath   string
	split      string
	noBias     bool
	scale      string
	indexBase  string
	label      string
	csvHeader  string
	csvComma   string
	synthWords int
	synthSeed  uint64
	synthNoise float64
}

func (d *dataFlags) register(fs *flag.FlagSet, defaultName string) {
	fs.StringVar(&d.name, "data", defaultName, "dataset: ocr, usps, synthetic, auto (ocr when found, else synthetic), svmlight or csv (with --data-path), or a path\n"+
		"to letter.data[.gz], a USPS folder, or an svmlight (.svm, .libsvm, .scale) or CSV (.csv) training file")
	fs.StringVar(&d.path, "data-path", "", "the data, used as given (never another copy): a data root, a dataset folder or file\n(default for ocr and usps: $FWSTRUCT_DATA, then the user cache)")
	fs.StringVar(&d.testPath, "test-data", "", "svmlight/csv: the test `FILE` (default: beside the training file, e.g. X.t or X_test.csv)")
	fs.StringVar(&d.split, "split", "small", "OCR split: small (train on fold 0) or large (train on folds 1-9)")
	fs.BoolVar(&d.noBias, "no-bias", false, "usps/svmlight/csv: no constant bias feature")
	fs.StringVar(&d.scale, "scale", "none", "svmlight/csv feature scaling, fitted on the training file: none, minmax or standardize")
	fs.StringVar(&d.indexBase, "index-base", "auto", "svmlight feature indices: auto (0-based when some index is 0), 0 or 1")
	fs.StringVar(&d.label, "label-column", "", "csv label column: a header name or a 0-based index, negative from the end (default: the last)")
	fs.StringVar(&d.csvHeader, "csv-header", "auto", "csv header row: auto, yes or no")
	fs.StringVar(&d.csvComma, "csv-comma", ",", "csv field separator (one character; \\t for a tab)")
	fs.IntVar(&d.synthWords, "synthetic-words", 0, "synthetic data: words per split (0: 300)")
	fs.Uint64Var(&d.synthSeed, "synthetic-seed", 1, "synthetic data: generator seed")
	fs.Float64Var(&d.synthNoise, "synthetic-noise", 0, "synthetic data: pixel flip probability (0: 0.1)")
}

// options returns the datasets.Options the flags describe.
func (d *dataFlags) options() (datasets.Options, error) {
	split, err := datasets.ParseSplit(d.split)
	if err != nil {
		return datasets.Options{}, err
	}
	opt := datasets.Options{
		Path:      d.path,
		TestPath:  d.testPath,
		Split:     split,
		NoBias:    d.noBias,
		Synthetic: datasets.SyntheticConfig{TrainWords: d.synthWords, TestWords: d.synthWords, Seed: d.synthSeed, FlipNoise: d.synthNoise},
	}
	if opt.Scaling, err = datasets.ParseScaling(d.scale); err != nil {
		return opt, fmt.Errorf("--scale: %w", err)
	}
	if opt.SVMLight.IndexBase, err = datasets.ParseIndexBase(d.indexBase); err != nil {
		return opt, fmt.Errorf("--index-base: %w", err)
	}
	if opt.CSV.Header, err = datasets.ParseCSVHeader(d.csvHeader); err != nil {
		return opt, fmt.Errorf("--csv-header: %w", err)
	}
	opt.CSV.Label = d.label
	comma := []rune(strings.ReplaceAll(d.csvComma, `\t`, "\t"))
	if len(comma) != 1 {
		return opt, fmt.Errorf("--csv-comma: want one character, got %q", d.csvComma)
	}
	opt.CSV.Comma = comma[0]
	return opt, nil
}

// load returns the training and test problems and the resolved name.
func (d *dataFlags) load() (train, test oracles.Problem, name string, err error) {
	opt, err := d.options()
	if err != nil {
		return nil, nil, "", err
	}
	name = d.name
	if name == "auto" {
		// OCR when it is found, else synthetic; but a path the user names
		// must hold OCR, and a broken $FWSTRUCT_DATA is an error.
		name = "ocr"
		if d.path == "" {
			_, err := datasets.Locate(datasets.OCR, "")
			switch {
			case errors.Is(err, datasets.ErrNotFound):
				name = "synthetic"
			case err != nil:
				return nil, nil, "", err
			}
		}
	}
	train, test, err = datasets.Load(name, opt)
	return train, test, name, err
}

// solverFlags configures the solver.
type solverFlags struct {
	lambda     float64
	algorithm  string
	sampling   string
	step       string
	stepSize   string
	averaging  bool
	cache      bool
	cacheF     float64
	cacheNu    float64
	cacheSize  int
	boxLower   string
	boxUpper   string
	gapEvery   float64
	traceEvery float64
	seed       uint64
	workers    int

	multiplane  bool
	mpN, mpT    int
	mpM         int
	mpRule      string
	mpCostRatio float64
	fs          *flag.FlagSet // to tell flags set on the command line
}

func (f *solverFlags) register(fs *flag.FlagSet) {
	fs.Float64Var(&f.lambda, "lambda", 0.01, "regularization parameter lambda (> 0)")
	fs.StringVar(&f.algorithm, "solver", "bcfw", "optimizer: bcfw, fw or ssg")
	fs.StringVar(&f.sampling, "sampling", "uniform", "block sampling of bcfw: uniform, perm or gap")
	fs.StringVar(&f.step, "step", "fw", "block step of bcfw: fw, pairwise or away")
	fs.StringVar(&f.stepSize, "step-size", "line", "step size: line (line search) or predefined (2n/(k+2n))")
	fs.BoolVar(&f.averaging, "averaging", false, "also track the weighted average of the iterates (wavg)")
	fs.BoolVar(&f.cache, "cache", false, "cache oracle answers with the gap-based hit rule (Osokin et al. 2016, Alg. 5)")
	fs.Float64Var(&f.cacheF, "cache-f", 0.25, "cache: local factor F")
	fs.Float64Var(&f.cacheNu, "cache-nu", 0.01, "cache: global factor nu")
	fs.IntVar(&f.cacheSize, "cache-size", 10, "cache: corners kept per block")
	fs.StringVar(&f.boxLower, "box-lower", "", "lower bounds on w, e.g. '0-99=0,150=-1' (coordinate ranges = value; '*' for all)")
	fs.StringVar(&f.boxUpper, "box-upper", "", "upper bounds on w, same syntax as --box-lower")
	fs.Float64Var(&f.gapEvery, "gap-every", 10, "passes between exact duality-gap evaluations (inf: never)")
	fs.Float64Var(&f.traceEvery, "trace-every", 0, "passes between extra observe-only gap evaluations (0: none)")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed of the sampling")
	fs.IntVar(&f.workers, "workers", 0, "goroutines for gap passes (0: all CPUs)")
	fs.BoolVar(&f.multiplane, "multiplane", false, "multi-plane BCFW (Shah et al. 2015): per-example working sets of planes and approximate passes\n(sampling perm unless --sampling says otherwise)")
	fs.IntVar(&f.mpN, "mp-n", 1000, "multi-plane: planes kept per example, N (0: none, as in the paper)")
	fs.IntVar(&f.mpT, "mp-t", 10, "multi-plane: outer iterations an unused plane is kept, T (0: until N drops it)")
	fs.IntVar(&f.mpM, "mp-m", 1000, "multi-plane: most approximate passes per outer iteration, M (0: none; --mp-n 0 --mp-m 0 is BCFW)")
	fs.StringVar(&f.mpRule, "mp-rule", "time", "multi-plane: the rule ending the approximate passes measures solver time (time) or a deterministic cost (cost)")
	fs.Float64Var(&f.mpCostRatio, "mp-cost-ratio", 0, "multi-plane cost rule: cost of an oracle call in plane evaluations (needed with --mp-rule cost)")
	f.fs = fs
}

// isSet reports whether the flag name was given on the command line.
func (f *solverFlags) isSet(name string) bool {
	set := false
	if f.fs != nil {
		f.fs.Visit(func(fl *flag.Flag) { set = set || fl.Name == name })
	}
	return set
}

// multiPlane returns the multi-plane settings the flags describe.
func (f *solverFlags) multiPlane() (solver.MultiPlane, error) {
	rule, err := solver.ParsePassRule(f.mpRule)
	if err != nil {
		return solver.MultiPlane{}, fmt.Errorf("--mp-rule: %w", err)
	}
	zero := func(v int) int { // the flags spell out the defaults; 0 means none, as in the paper
		if v <= 0 {
			return -1
		}
		return v
	}
	return solver.MultiPlane{Enabled: f.multiplane, N: zero(f.mpN), T: zero(f.mpT), M: zero(f.mpM), Rule: rule, CostRatio: f.mpCostRatio}, nil
}

// config builds the solver configuration for a problem of dimension d.
func (f *solverFlags) config(d int) (solver.Config, error) {
	alg, err := solver.ParseAlgorithm(f.algorithm)
	if err != nil {
		return solver.Config{}, err
	}
	sampling := f.sampling
	if f.multiplane && !f.isSet("sampling") {
		sampling = "perm"
	}
	samp, err := solver.ParseSampling(sampling)
	if err != nil {
		return solver.Config{}, err
	}
	mp, err := f.multiPlane()
	if err != nil {
		return solver.Config{}, err
	}
	step, err := solver.ParseStep(f.step)
	if err != nil {
		return solver.Config{}, err
	}
	var size solver.StepSize
	switch f.stepSize {
	case "line":
		size = solver.LineSearch
	case "predefined":
		size = solver.Predefined
	default:
		return solver.Config{}, fmt.Errorf("unknown step size %q (want line or predefined)", f.stepSize)
	}
	cfg := solver.Config{
		Lambda: f.lambda, Algorithm: alg, Sampling: samp, Step: step, StepSize: size,
		Averaging: f.averaging, GapEvery: f.gapEvery, TraceEvery: f.traceEvery,
		Seed:       f.seed,
		Cache:      solver.Cache{Enabled: f.cache, F: f.cacheF, Nu: f.cacheNu, MaxSize: f.cacheSize},
		MultiPlane: mp,
	}
	if f.boxLower != "" || f.boxUpper != "" {
		box := &solver.Box{}
		if f.boxLower != "" {
			if box.Lower, err = parseBounds(f.boxLower, d, math.Inf(-1)); err != nil {
				return solver.Config{}, fmt.Errorf("--box-lower: %w", err)
			}
		}
		if f.boxUpper != "" {
			if box.Upper, err = parseBounds(f.boxUpper, d, math.Inf(1)); err != nil {
				return solver.Config{}, fmt.Errorf("--box-upper: %w", err)
			}
		}
		cfg.Box = box
	}
	return cfg, nil
}

// parseBounds parses "RANGE=VALUE,..." where RANGE is a coordinate i, a
// range i-j (inclusive) or * (all) into a vector of dimension d whose other
// entries are def.
func parseBounds(spec string, d int, def float64) ([]float64, error) {
	out := make([]float64, d)
	for j := range out {
		out[j] = def
	}
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		rng, val, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("%q: want RANGE=VALUE", part)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil || math.IsNaN(v) {
			return nil, fmt.Errorf("%q: bad value %q", part, val)
		}
		lo, hi := 0, d-1
		if r := strings.TrimSpace(rng); r != "*" {
			a, b, isRange := strings.Cut(r, "-")
			if lo, err = strconv.Atoi(a); err != nil {
				return nil, fmt.Errorf("%q: bad coordinate %q", part, a)
			}
			hi = lo
			if isRange {
				if hi, err = strconv.Atoi(b); err != nil {
					return nil, fmt.Errorf("%q: bad coordinate %q", part, b)
				}
			}
		}
		if lo < 0 || hi >= d || lo > hi {
			return nil, fmt.Errorf("%q: coordinates must satisfy 0 <= i <= j < %d", part, d)
		}
		for j := lo; j <= hi; j++ {
			out[j] = v
		}
	}
	return out, nil
}

// stopFlags says when training stops.
type stopFlags struct {
	passes float64
	gapTol float64
	limit  time.Duration
}

func (s *stopFlags) register(fs *flag.FlagSet) {
	fs.Float64Var(&s.passes, "passes", 50, "effective passes over the data (oracle calls / n)")
	fs.Float64Var(&s.gapTol, "gap-tol", 0, "stop once the certified duality gap is at most this (0: off)")
	fs.DurationVar(&s.limit, "time", 0, "wall-clock budget, e.g. 30s (0: none)")
}

func (s *stopFlags) stop() (solver.Stop, error) {
	st := solver.Stop{Passes: s.passes, Gap: s.gapTol, Duration: s.limit}
	if st.Passes < 0 || st.Gap < 0 || st.Duration < 0 {
		return st, fmt.Errorf("--passes, --gap-tol and --time must be >= 0")
	}
	if st == (solver.Stop{}) {
		return st, fmt.Errorf("give at least one of --passes, --gap-tol or --time")
	}
	return st, nil
}

// describeMultiPlane returns the multi-plane settings for the header line
// (empty when off).
func describeMultiPlane(mp solver.MultiPlane) string {
	if !mp.Enabled {
		return ""
	}
	show := func(v int, none string) string {
		if v < 0 {
			return none
		}
		return strconv.Itoa(v)
	}
	out := fmt.Sprintf(", multi-plane N=%s T=%s M=%s rule %s", show(mp.N, "0"), show(mp.T, "inf"), show(mp.M, "0"), mp.Rule)
	if mp.Rule == solver.RuleCost {
		out += fmt.Sprintf(" (oracle = %g planes)", mp.CostRatio)
	}
	return out
}
