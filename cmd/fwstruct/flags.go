package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/kernel"
	solverrun "github.com/fwstruct/fwstruct/solver/run"
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

	// scaler, when set (eval: the scaling a model stores), is applied
	// instead of fitting --scale on the training file.
	scaler *datasets.Scaler
}

func (d *dataFlags) register(fs *flag.FlagSet, defaultName string) {
	fs.StringVar(&d.name, "data", defaultName, "dataset: ocr, usps, synthetic, auto (ocr when found, else synthetic), conll, yeast, horses, hansards (word alignment,\n"+
		"gold pairs 1-100 / 101-447), hansards-intersected (5,000 pairs labelled by intersected diagonal IBM Model 2 alignments, not by people),\n"+
		"svmlight or csv (with --data-path), or a path to letter.data[.gz], a USPS folder, a Hansards folder, or an svmlight (.svm, .libsvm, .scale)\n"+
		"or CSV (.csv) training file")
	fs.StringVar(&d.path, "data-path", "", "the data, used as given (never another copy): a data root, a dataset folder or file\n(default for ocr and usps: $FWSTRUCT_DATA, then the user cache)")
	fs.StringVar(&d.testPath, "test-data", "", "svmlight/csv/conll: the test `FILE` (default: beside the training file, e.g. X.t, X_test.csv or test.txt)")
	fs.StringVar(&d.split, "split", "small", "OCR split: small (train on fold 0) or large (train on folds 1-9)")
	fs.BoolVar(&d.noBias, "no-bias", false, "usps/svmlight/csv: no constant bias feature")
	fs.StringVar(&d.scale, "scale", "none", "feature scaling of usps, yeast/MULAN, svmlight and csv data, fitted on the training file and stored in\nthe model: none, minmax or standardize")
	fs.StringVar(&d.indexBase, "index-base", "auto", "svmlight feature indices: auto (0-based when some index is 0), 0 or 1")
	fs.StringVar(&d.label, "label-column", "", "csv label column: a header name or a 0-based index, negative from the end (default: the last)")
	fs.StringVar(&d.csvHeader, "csv-header", "auto", "csv header row: auto, yes or no")
	fs.StringVar(&d.csvComma, "csv-comma", ",", "csv field separator (one character; \\t for a tab)")
	fs.IntVar(&d.synthWords, "synthetic-words", 300, "synthetic data: words per split (>= 1)")
	fs.Uint64Var(&d.synthSeed, "synthetic-seed", 1, "synthetic data: generator seed")
	fs.Float64Var(&d.synthNoise, "synthetic-noise", 0.1, "synthetic data: pixel flip probability, in (0, 0.5]")
}

// dataFlagNames lists the flags of dataFlags, those a model file and a
// checkpoint record to rebuild the same problems.
func dataFlagNames() map[string]bool {
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	new(dataFlags).register(fs, "")
	names := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { names[f.Name] = true })
	return names
}

// resolved returns the value of every data flag as the data was loaded:
// the dataset name resolved (auto becomes ocr or synthetic) and paths made
// absolute, so that another command, maybe run from another folder,
// rebuilds the same problems with applyFlags.
func (d *dataFlags) resolved(fs *flag.FlagSet, name string) (map[string]string, error) {
	vals := flagValues(fs, dataFlagNames())
	vals["data"] = name
	abs := func(key string) error {
		if vals[key] == "" {
			return nil
		}
		p, err := filepath.Abs(vals[key])
		vals[key] = p
		return err
	}
	if !slices.Contains(datasets.Names, name) {
		if err := abs("data"); err != nil {
			return nil, err
		}
	}
	if err := errors.Join(abs("data-path"), abs("test-data")); err != nil {
		return nil, err
	}
	return vals, nil
}

// options returns the datasets.Options the flags describe.
func (d *dataFlags) options() (datasets.Options, error) {
	split, err := datasets.ParseSplit(d.split)
	if err != nil {
		return datasets.Options{}, fmt.Errorf("--split: %w", err)
	}
	if d.synthWords < 1 {
		return datasets.Options{}, fmt.Errorf("--synthetic-words must be >= 1, got %d", d.synthWords)
	}
	if !(d.synthNoise > 0 && d.synthNoise <= 0.5) {
		return datasets.Options{}, fmt.Errorf("--synthetic-noise must be in (0, 0.5], got %v", d.synthNoise)
	}
	opt := datasets.Options{
		Path:      d.path,
		TestPath:  d.testPath,
		Conll:     datasets.ConllOptions{TestPath: d.testPath},
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
	opt.Scaler = d.scaler
	return opt, nil
}

// load returns the loaded data (its problems, files and fitted scaling)
// and the resolved name.
func (d *dataFlags) load() (data *datasets.Data, name string, err error) {
	opt, err := d.options()
	if err != nil {
		return nil, "", err
	}
	name = d.name
	if name == "auto" {
		// OCR when it is found, else synthetic; but a path the user names
		// must hold OCR, and a broken $FWSTRUCT_DATA is an error.
		if name, err = d.kind(); err != nil {
			return nil, "", err
		}
	}
	data, err = datasets.LoadData(name, opt)
	return data, name, err
}

// unseenNote says how many examples of test data have a label that the
// training data does not have (oracles.NoClass): errors of every model,
// counted in the test loss. It is empty when there are none.
func unseenNote(test oracles.Problem) string {
	m, ok := test.(*oracles.Multiclass)
	if !ok {
		return ""
	}
	n := 0
	for i := 0; i < m.Len(); i++ {
		if m.Truth(i)[0] == oracles.NoClass {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d with a label the training data does not have, counted as errors)", n)
}

// solverFlags configures the solver.
type solverFlags struct {
	preset     string
	lambda     float64
	rho        float64
	algorithm  string
	sampling   string
	step       string
	stepSize   string
	averaging  bool
	average    string
	shrinking  bool
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
	batch      int
	lookahead  int
	simWorkers int
	simDelays  string
	lpHard     bool // the run being built is lp-hard's bcfw (--solver lp-hard, algorithm then says bcfw)
	async      bool
	accuracy   float64
	cpTol      float64
	cpCache    int

	multiplane  bool
	mpN, mpT    int
	mpM         int
	mpRule      string
	mpCostRatio float64
	mpUpdate    float64

	set *flag.FlagSet // the flag set registered with, to tell which flags were given
}

func (f *solverFlags) register(fs *flag.FlagSet) {
	f.set = fs
	fs.StringVar(&f.preset, "preset", "recommended", "bcfw defaults of --sampling, --step and --cache: recommended (gap, pairwise, on: solver.Recommended)\n"+
		"or paper (uniform, fw, off: the papers' baseline, plain BCFW); flags given explicitly override them")
	fs.Float64Var(&f.lambda, "lambda", 0.01, "regularization parameter lambda (> 0)")
	fs.StringVar(&f.algorithm, "solver", "bcfw", "optimizer: bcfw, fw, ssg, cp (cutting plane: fully corrective FW) or online-eg (exponentiated gradient, chain data: ocr, conll);\non factor-graph data (yeast, MULAN) also lp-hard (bcfw on the LP relaxation)\nor soft (soft constraints, Meshi et al. 2015; see --rho)")
	fs.Float64Var(&f.rho, "rho", 1, "penalty rho of --solver soft on the violated agreement constraints (> 0)")
	fs.StringVar(&f.sampling, "sampling", "", "block sampling: uniform, perm or gap (default: the --preset's); with --solver soft also example-perm\n(each example's blocks one after another, a fresh random order every pass; default uniform, Meshi Alg. 1)")
	fs.StringVar(&f.step, "step", "", "block step of bcfw: fw, pairwise, away or exact (default: the --preset's); exact (multiclass data only)\n"+
		"solves each example's sub-problem over its K classes exactly, as liblinear -s 4 does, and turns the --preset's cache off")
	fs.BoolVar(&f.shrinking, "shrinking", false, "with --step exact: skip the examples whose block gap was settled until the next gap pass (liblinear's shrinking)")
	fs.StringVar(&f.stepSize, "step-size", "line", "step size: line (line search) or predefined (2n/(k+2n))")
	fs.BoolVar(&f.averaging, "averaging", false, "also track an average of the iterates (the weighted one unless --average says otherwise)")
	fs.StringVar(&f.average, "average", "wavg", "the average of the iterates --averaging tracks (given alone, it turns averaging on): wavg (weights k),\n"+
		"tavg (0.5-suffix average by the doubling trick) or avg (uniform; Lacoste-Julien et al. 2013, App. C, F)")
	fs.BoolVar(&f.cache, "cache", false, "cache oracle answers with the gap-based hit rule (Osokin et al. 2016, Alg. 5)\n(default: the --preset's; --cache=false turns it off)")
	fs.Float64Var(&f.cacheF, "cache-f", 0.25, "cache: local factor F (> 0)")
	fs.Float64Var(&f.cacheNu, "cache-nu", 0.01, "cache: global factor nu (> 0)")
	fs.IntVar(&f.cacheSize, "cache-size", 10, "cache: corners kept per block (>= 1)")
	fs.StringVar(&f.boxLower, "box-lower", "", "lower bounds on w, e.g. '0-99=0,150=-1' (coordinate ranges = value; '*' for all)")
	fs.StringVar(&f.boxUpper, "box-upper", "", "upper bounds on w, same syntax as --box-lower")
	fs.Float64Var(&f.gapEvery, "gap-every", 10, "passes between exact duality-gap evaluations (> 0; inf: never)")
	fs.Float64Var(&f.traceEvery, "trace-every", 0, "passes between extra observe-only gap evaluations (0: none)")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed of the sampling")
	fs.IntVar(&f.workers, "workers", 0, "goroutines for the gap passes and evaluations, the read part of the block steps of a mini-batch (oracle calls,\n"+
		"cache scores) and, with --kernel, the kernel rows of the steps (the sequential run bit for bit, whatever N) (0: one per CPU);\n"+
		"with N > 1 and sequential steps, a trace point's test (and --train-loss) losses are computed while the next steps go on;\n"+
		"with --solver lp-hard, --workers N > 1 also makes a mini-batch of N blocks with a lookahead of 2 unless --batch says otherwise")
	fs.IntVar(&f.batch, "batch", 0, "mini-batch BCFW: tau distinct blocks per step, their oracle calls in parallel against one w\n"+
		"(Wang et al. 2016; 0: --workers when given and > 1, else 1 = BCFW); the run depends on tau, not on --workers")
	fs.IntVar(&f.lookahead, "lookahead", 0, "mini-batch: the batches (of --batch blocks, or one) drawn ahead of the one being applied, their oracle calls and cache scores\n"+
		"computed on the workers meanwhile (answers at most (L+1) tau - 1 steps old; the run depends on tau and L, not on --workers);\n"+
		"0: Wang et al.'s synchronous mini-batch; default 2 when --workers N > 1 makes the mini-batch (lp-hard), else 0")
	fs.IntVar(&f.simWorkers, "simulate-workers", 0, "delay simulator: run bcfw sequentially with the staleness K asynchronous workers would have\n"+
		"(every oracle answer applied K-1 steps after the iterate it saw; Wang et al. 2016), to measure passes-to-gap at K workers on any machine (0: off)")
	fs.StringVar(&f.simDelays, "simulate-delays", "", "with --simulate-workers: the weights w0,w1,... of the delays of the answers (delay d drawn with weight w_d;\n"+
		"the list a mini-batch, --async or simulated run prints after its summary), instead of K-1 for every answer")
	fs.BoolVar(&f.async, "async", false, "asynchronous bcfw: --workers solve oracles on possibly stale copies of w, one updater applies the block steps\n"+
		"as the answers arrive (Wang et al. 2016); not reproducible bit for bit")
	fs.Float64Var(&f.accuracy, "oracle-accuracy", 1, "run the max oracle approximately with multiplicative accuracy nu in (0, 1]\n(oracles.WithAccuracy; gaps stay certified by the exact oracle)")
	fs.Float64Var(&f.cpTol, "cp-tol", 0, "cp: tolerance of the QP over the planes, relative to the gap (0: 1e-3)")
	fs.IntVar(&f.cpCache, "cp-cache", 0, "cp: labelings each example keeps in the constraint cache (SVM^struct's; 0: 5, -1: no cache)")
	fs.BoolVar(&f.multiplane, "multiplane", false, "multi-plane BCFW (Shah et al. 2015): per-example working sets of planes and approximate passes\n(sampling perm unless --sampling says otherwise; the --preset does not apply)")
	fs.IntVar(&f.mpN, "mp-n", 1000, "multi-plane: planes kept per example, N (0: none, as in the paper)")
	fs.IntVar(&f.mpT, "mp-t", 10, "multi-plane: outer iterations an unused plane is kept, T (0: until N drops it)")
	fs.IntVar(&f.mpM, "mp-m", 1000, "multi-plane: most approximate passes per outer iteration, M (0: none; --mp-n 0 --mp-m 0 is BCFW)")
	fs.StringVar(&f.mpRule, "mp-rule", "time", "multi-plane: the rule ending the approximate passes measures solver time (time) or a deterministic cost (cost)")
	fs.Float64Var(&f.mpCostRatio, "mp-cost-ratio", 0, "multi-plane cost rule: cost of an oracle call in plane evaluations (needed with --mp-rule cost)")
	fs.Float64Var(&f.mpUpdate, "mp-update-cost", 0, "multi-plane cost rule: cost of a step's update in plane evaluations (0: 1; solver.MeasureUpdateCost estimates it)")
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
	return solver.MultiPlane{Enabled: f.multiplane, N: zero(f.mpN), T: zero(f.mpT), M: zero(f.mpM), Rule: rule, CostRatio: f.mpCostRatio, UpdateCost: f.mpUpdate}, nil
}

// solverFlagNames lists the flags of solverFlags that fix the trajectory
// of a run (all but --workers).
func solverFlagNames() map[string]bool {
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	new(solverFlags).register(fs)
	names := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { names[f.Name] = f.Name != "workers" })
	return names
}

// config builds the solver configuration for a problem of dimension d
// from the flags given and, for the others, the --preset's values.
func (f *solverFlags) config(d int) (solver.Config, error) {
	return f.configPreset(d, f.preset)
}

// configPreset is config with the named preset (kernelized training,
// whose steps are the papers' baseline, asks for "paper").
func (f *solverFlags) configPreset(d int, presetName string) (solver.Config, error) {
	preset, err := f.presetDefaults(presetName)
	if err != nil {
		return solver.Config{}, err
	}
	alg, err := solverrun.ParseAlgorithm(f.algorithm)
	if err != nil {
		return solver.Config{}, fmt.Errorf("--solver: %w", err)
	}
	if !f.multiplane {
		for _, name := range []string{"mp-n", "mp-t", "mp-m", "mp-rule", "mp-cost-ratio"} {
			if f.given(name) {
				return solver.Config{}, fmt.Errorf("--%s needs --multiplane", name)
			}
		}
	}
	mp, err := f.multiPlane()
	if err != nil {
		return solver.Config{}, err
	}
	samp, step, cache := preset.Sampling, preset.Step, preset.Cache.Enabled
	if f.sampling != "" {
		if samp, err = solverrun.ParseSampling(f.sampling); err != nil {
			return solver.Config{}, fmt.Errorf("--sampling: %w", err)
		}
	}
	if f.step != "" {
		if step, err = solver.ParseStep(f.step); err != nil {
			return solver.Config{}, fmt.Errorf("--step: %w", err)
		}
	}
	if step == solver.Exact {
		cache = false // exact steps score every class: nothing to cache
	}
	if f.given("cache") {
		cache = f.cache
	}
	var size solverrun.StepSize
	switch f.stepSize {
	case "line":
		size = solverrun.LineSearch
	case "predefined":
		size = solverrun.Predefined
	default:
		return solver.Config{}, fmt.Errorf("--step-size: want line or predefined, got %s", quote(f.stepSize))
	}
	if err := checkFlags(
		positive("lambda", f.lambda), positive("cache-f", f.cacheF), positive("cache-nu", f.cacheNu),
		flagCheck{"gap-every", "positive (inf: never)", f.gapEvery, f.gapEvery > 0},
		flagCheck{"trace-every", "finite and >= 0 (0: none)", f.traceEvery, f.traceEvery >= 0 && !math.IsInf(f.traceEvery, 1)},
		flagCheck{"cache-size", ">= 1", float64(f.cacheSize), f.cacheSize >= 1},
		flagCheck{"workers", ">= 0 (0: one per CPU)", float64(f.workers), f.workers >= 0},
		flagCheck{"batch", ">= 0 (0: --workers when given, 1: BCFW)", float64(f.batch), f.batch >= 0},
		flagCheck{"lookahead", ">= 0 (0: the synchronous mini-batch)", float64(f.lookahead), f.lookahead >= 0},
		flagCheck{"simulate-workers", ">= 0 (0: off)", float64(f.simWorkers), f.simWorkers >= 0},
		flagCheck{"mp-n", ">= 0 (0: no working sets)", float64(f.mpN), f.mpN >= 0},
		flagCheck{"mp-t", ">= 0 (0: keep planes until --mp-n drops them)", float64(f.mpT), f.mpT >= 0},
		flagCheck{"mp-m", ">= 0 (0: no approximate passes)", float64(f.mpM), f.mpM >= 0},
		flagCheck{"mp-cost-ratio", "finite and >= 0", f.mpCostRatio, f.mpCostRatio >= 0 && !math.IsInf(f.mpCostRatio, 1)},
		flagCheck{"mp-update-cost", "finite and >= 0", f.mpUpdate, f.mpUpdate >= 0 && !math.IsInf(f.mpUpdate, 1)},
	); err != nil {
		return solver.Config{}, err
	}
	kind, err := solverrun.ParseAverageKind(f.average)
	if err != nil {
		return solver.Config{}, fmt.Errorf("--average: %w", err)
	}
	delays, err := parseDelays(f.simDelays)
	if err != nil {
		return solver.Config{}, fmt.Errorf("--simulate-delays: %w", err)
	}
	cfg := solver.Config{
		Lambda: f.lambda, Algorithm: alg, Sampling: samp, Step: step, StepSize: size,
		Averaging: f.averaging || f.given("average"), Shrinking: f.shrinking, AverageKind: kind, GapEvery: f.gapEvery, TraceEvery: f.traceEvery,
		Seed: f.seed, CPTol: f.cpTol, CPCache: f.cpCache,
		Cache:           solver.Cache{Enabled: cache, F: f.cacheF, Nu: f.cacheNu, MaxSize: f.cacheSize},
		MultiPlane:      mp,
		Batch:           f.batchSize(alg),
		Lookahead:       f.lookaheadOf(alg),
		SimulateWorkers: f.simWorkers,
		SimulateDelays:  delays,
		Async:           f.async,
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

// parseDelays reads --simulate-delays: comma-separated weights w0,w1,...
// of the delays 0, 1, ... (nil when empty).
func parseDelays(list string) (*solver.DelayDistribution, error) {
	if list == "" {
		return nil, nil
	}
	dd := &solver.DelayDistribution{}
	for k, field := range strings.Split(list, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(field), 64)
		if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return nil, fmt.Errorf("weight %d is %s; want comma-separated weights >= 0 of the delays 0, 1, 2, ... (e.g. 0,97,3)", k, quote(field))
		}
		dd.Weights = append(dd.Weights, v)
	}
	return dd, nil
}

// batchSize returns tau: --batch when given, else --workers when it makes
// the mini-batch (workersBatch), else 1 (BCFW).
func (f *solverFlags) batchSize(alg solverrun.Algorithm) int {
	if f.given("batch") {
		return f.batch
	}
	if f.workersBatch(alg) {
		return f.workers
	}
	return 0
}

// workersBatch reports whether --workers makes the mini-batch: given,
// above one, --batch not given, and the solver is lp-hard, whose LP oracle
// is nearly all of a step's time (for the other solvers the mini-batch is
// an explicit choice: their steps are dominated by the scoring of the
// cached corners and the updates, which stream the corner sets from
// memory, and a mini-batch of 2 was measured 33-60% slower than the
// sequential steps on OCR-large and no faster on the horses; --workers
// still parallelizes their gap passes and evaluations).
func (f *solverFlags) workersBatch(alg solverrun.Algorithm) bool {
	return !f.given("batch") && f.given("workers") && f.workers > 1 && alg == solverrun.BCFW && (f.algorithm == "lp-hard" || f.lpHard) &&
		f.simWorkers == 0 && !f.async && f.step != "exact"
}

// lookaheadOf returns Config.Lookahead: --lookahead when given, else 2
// when --workers makes the mini-batch (measured on LP-hard: 1.56x the
// sequential run's wall time with 2 workers, against 1.47x with a
// lookahead of 1), else 0.
func (f *solverFlags) lookaheadOf(alg solverrun.Algorithm) int {
	switch {
	case f.given("lookahead"):
		return f.lookahead
	case f.workersBatch(alg):
		return 2
	}
	return 0
}

// presetDefaults returns the values that --sampling, --step and --cache
// take when not given: the named preset's for the primal bcfw solver (and
// LP-hard, which runs it), none for the other solvers, permutation
// sampling for multi-plane BCFW.
func (f *solverFlags) presetDefaults(presetName string) (solver.Config, error) {
	var preset solver.Config
	switch presetName {
	case "recommended":
		preset = solver.Recommended()
	case "paper":
	default:
		return solver.Config{}, fmt.Errorf("--preset: want recommended or paper, got %s", quote(presetName))
	}
	if (f.algorithm != "bcfw" && f.algorithm != "lp-hard") || f.multiplane {
		// The preset's options are bcfw's; multi-plane BCFW is its own
		// choice of plane reuse, with permutation sampling (Shah et al.).
		preset = solver.Config{}
	}
	if f.multiplane {
		preset.Sampling = solverrun.Permutation
	}
	return preset, nil
}

// given reports whether the flag was given on the command line.
func (f *solverFlags) given(name string) bool { return f.set != nil && flagSet(f.set, name) }

// cacheOn reports whether the run uses the cache: --cache when given, else
// the recommended preset's for the primal bcfw solver without multi-plane.
func (f *solverFlags) cacheOn(kernelKind string) bool {
	if f.given("cache") {
		return f.cache
	}
	return f.preset == "recommended" && f.step != "exact" && (f.algorithm == "bcfw" || f.algorithm == "lp-hard") && !f.multiplane && kernelKind == "" &&
		solver.Recommended().Cache.Enabled
}

// use returns what a run of the solver flags (and kernel kind) uses.
func (f *solverFlags) use(command, data, kernelKind string) runUse {
	return runUse{command: command, data: data, solver: f.algorithm, kernel: kernelKind, multiplane: f.multiplane,
		cache: f.cacheOn(kernelKind), mpRule: f.mpRule, simWorkers: f.simWorkers}
}

// solverNames lists the values of --solver.
var solverNames = []string{"bcfw", "fw", "ssg", "cp", "online-eg", "lp-hard", "soft"}

// checkNames refuses an unknown --solver or --kernel, before the flags that
// depend on them are checked.
func (f *solverFlags) checkNames(kernelKind string) error {
	if !slices.Contains(solverNames, f.algorithm) {
		return fmt.Errorf("--solver: unknown solver %s (want %s)", quote(f.algorithm), orList(solverNames))
	}
	if kernelKind != "" {
		if _, err := kernel.ParseKind(kernelKind); err != nil {
			return fmt.Errorf("--kernel: %w", err)
		}
	}
	return nil
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
			return nil, fmt.Errorf("%s: want RANGE=VALUE", quote(part))
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil || math.IsNaN(v) {
			return nil, fmt.Errorf("%s: bad value %s", quote(part), quote(val))
		}
		lo, hi := 0, d-1
		if r := strings.TrimSpace(rng); r != "*" {
			a, b, isRange := strings.Cut(r, "-")
			if lo, err = strconv.Atoi(a); err != nil {
				return nil, fmt.Errorf("%s: bad coordinate %s", quote(part), quote(a))
			}
			hi = lo
			if isRange {
				if hi, err = strconv.Atoi(b); err != nil {
					return nil, fmt.Errorf("%s: bad coordinate %s", quote(part), quote(b))
				}
			}
		}
		if lo < 0 || hi >= d || lo > hi {
			return nil, fmt.Errorf("%s: coordinates must satisfy 0 <= i <= j < %d", quote(part), d)
		}
		for j := lo; j <= hi; j++ {
			out[j] = v
		}
	}
	return out, nil
}

// stopFlags says when training stops.
type stopFlags struct {
	passes     float64
	gapTol     float64
	earlyCheck float64
	limit      time.Duration
}

func (s *stopFlags) register(fs *flag.FlagSet) {
	fs.Float64Var(&s.passes, "passes", 50, "stop after this many effective passes in total (oracle calls / n, the exact gap passes\n"+
		"of bcfw included; a resumed run counts the passes before it); never exceeded: a gap pass that\n"+
		"does not fit ends the run up to a pass early; 0: no pass budget")
	fs.Float64Var(&s.gapTol, "gap-tol", 0, "stop once the certified duality gap is at most this (0: off)")
	fs.Float64Var(&s.earlyCheck, "early-check", 0, "with --gap-tol (bcfw): certify the gap as soon as the stale gap estimate\n"+
		"falls below this times --gap-tol, e.g. 0.8, instead of waiting for the next scheduled gap pass (0: off)")
	fs.DurationVar(&s.limit, "time", 0, "wall-clock budget of this command, e.g. 30s (0: none)")
}

// stop returns the stopping criteria, checking what does not depend on the
// solver (Solver.CheckStop checks the rest).
func (s *stopFlags) stop() (solverrun.Stop, error) {
	st := solverrun.Stop{Passes: s.passes, Gap: s.gapTol, EarlyCheck: s.earlyCheck, Duration: s.limit}
	offOr := func(name string, v float64) flagCheck {
		return flagCheck{name, "finite and >= 0 (0: off)", v, v >= 0 && !math.IsInf(v, 1)}
	}
	if err := checkFlags(offOr("passes", st.Passes), offOr("gap-tol", st.Gap), offOr("early-check", st.EarlyCheck)); err != nil {
		return st, err
	}
	if st.Duration < 0 {
		return st, fmt.Errorf("--time must be >= 0 (0: none), got %v", st.Duration)
	}
	if st.Passes == 0 && st.Gap == 0 && st.Duration == 0 {
		return st, fmt.Errorf("give at least one of --passes, --gap-tol or --time")
	}
	return st, nil
}

// flagCheck is a condition a flag's value must meet.
type flagCheck struct {
	name, want string // the flag, and what its value must be
	v          float64
	ok         bool
}

// positive checks that a flag is positive and finite (NaN is not).
func positive(name string, v float64) flagCheck {
	return flagCheck{name, "positive and finite", v, v > 0 && !math.IsInf(v, 1)}
}

// checkFlags returns an error naming the first flag whose check fails.
func checkFlags(checks ...flagCheck) error {
	for _, c := range checks {
		if !c.ok {
			return fmt.Errorf("--%s must be %s, got %v", c.name, c.want, c.v)
		}
	}
	return nil
}

// describeMultiPlane returns the multi-plane settings for the header line
// (empty when off).
// describeExecution names the parallel or simulated execution of bcfw's
// steps ("" for the sequential one).
func describeExecution(cfg solver.Config) string {
	switch {
	case cfg.Batch > 1 || cfg.Lookahead > 0:
		return fmt.Sprintf(", mini-batch %d, lookahead %d", max(1, cfg.Batch), cfg.Lookahead)
	case cfg.Async:
		return ", asynchronous"
	case cfg.SimulateWorkers > 0 && cfg.SimulateDelays != nil:
		return fmt.Sprintf(", simulated %d workers with the given delays", cfg.SimulateWorkers)
	case cfg.SimulateWorkers > 0:
		return fmt.Sprintf(", simulated %d workers", cfg.SimulateWorkers)
	}
	return ""
}

func describeMultiPlane(mp solver.MultiPlane) string {
	if !mp.Enabled {
		return ""
	}
	return ", multi-plane " + mp.String()
}
