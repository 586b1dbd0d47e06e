package main

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/auto"
	"github.com/fwstruct/fwstruct/solver/kernel"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/soft"
)

// A methodEntry is a method as the command line offers it, --method NAME:
// a line saying what it is, the executions its steps take, and its flags.
// The flags of every method default to the values of the method type's zero
// value, the library's defaults (--method fw is solver.FW{Lambda: lambda}),
// but for recommended, the default, which is solver.Recommended(lambda):
// BCFW with bcfw's flags at its values.
type methodEntry struct {
	name, summary string
	execs         execKinds
	// approx says that train may run its max oracle approximately
	// (--oracle-accuracy: the method takes any problem, not one of a
	// concrete type).
	approx bool
	// noTrainLoss says that the method does not record the training loss
	// (--train-loss does not apply).
	noTrainLoss bool
	// method is the registered name of the entry's methods (run.Method.Name).
	method string
	// declare declares the method's flags on f, bound to a method that
	// starts as from (the checkpoint's, when resuming) or as the entry's
	// default when from is nil; get returns the method once f is parsed
	// and finished.
	declare func(f *flagSet, from run.Method) (get func() run.Method)
}

// execKinds says which executions of its block steps a method takes (the
// others it refuses in New: see package solver/execution).
type execKinds int

const (
	sequentialOnly execKinds = iota // its steps are sequential
	miniBatchOnly                   // mini-batches (multi-plane BCFW, whose batches end with its passes)
	anyExecution                    // mini-batch, asynchronous and simulated executions
)

// entry returns the methodEntry of a method type M: start is its default
// and flags declares its flags, bound to the fields of a value of M.
func entry[M run.Method](name, summary string, execs execKinds, start M, flags func(*flagSet, *M)) methodEntry {
	return methodEntry{name: name, summary: summary, execs: execs, method: start.Name(),
		declare: func(f *flagSet, from run.Method) func() run.Method {
			m := start
			if from != nil {
				m = from.(M)
			}
			flags(f, &m)
			return func() run.Method { return m }
		}}
}

// methods lists the methods of the command line, the default first.
var methods = []methodEntry{
	entry("auto", "chosen from the problem (package solver/auto): exact steps with shrinking for multiclass data, kernelized ones\n"+
		"with --kernel, soft constraints with --rho, else multi-plane BCFW with pairwise steps and the cost rule (recommended\n"+
		"when --async or --simulate-workers is given);\n"+
		"the method line says which and why: the default", anyExecution, auto.Method{}, autoFlags).approximate(),
	entry("recommended", "bcfw with gap sampling, pairwise steps and the gap-based cache (solver.Recommended)",
		anyExecution, solver.Recommended(0), bcfwFlags).approximate(),
	entry("bcfw", "block-coordinate Frank-Wolfe (Lacoste-Julien et al. 2013) with the variants of Osokin et al. (2016); "+
		"its defaults are the papers' baseline", anyExecution, solver.BCFW{}, bcfwFlags).approximate(),
	entry("mp-bcfw", "multi-plane BCFW (Shah et al. 2015): working sets of planes, approximate passes", miniBatchOnly,
		solver.MultiPlane{}, multiPlaneFlags).approximate(),
	entry("fw", "batch Frank-Wolfe (Lacoste-Julien et al. 2013, Alg. 2)", sequentialOnly, solver.FW{}, fwFlags).approximate(),
	entry("ssg", "stochastic subgradient with the Pegasos step size (the papers' baseline; no dual, no gap)", sequentialOnly,
		solver.SSG{}, ssgFlags).approximate(),
	entry("cp", "the 1-slack cutting-plane method (SVM^struct) as fully corrective Frank-Wolfe", sequentialOnly,
		solver.CuttingPlane{}, cpFlags).approximate(),
	entry("online-eg", "online exponentiated gradient (Collins et al. 2008), chain data (ocr, conll)", sequentialOnly,
		solver.OnlineEG{}, onlineEGFlags),
	entry("exact", "exact block steps over the classes, liblinear -s 4's method (multiclass data)", sequentialOnly,
		solver.Exact{}, exactFlags),
	entry("lp-hard", "bcfw on the LP relaxation of a factor graph (yeast, MULAN), test by LP + rounding (Meshi et al. 2015)",
		anyExecution, solver.LPHard{}, func(f *flagSet, m *solver.LPHard) { bcfwFlags(f, &m.BCFW) }),
	entry("soft", "soft-constraint BCFW over factor graphs (Meshi et al. 2015), test by LP + rounding", sequentialOnly,
		soft.BCFW{Rho: 1}, softFlags).withoutTrainLoss(),
	entry("kernel", "kernelized BCFW (Lacoste-Julien et al. 2013, App. B.5), multiclass data", sequentialOnly,
		kernel.BCFW{}, kernelBCFWFlags),
	entry("kernel-fw", "kernelized batch Frank-Wolfe, multiclass data", sequentialOnly, kernel.FW{}, kernelFWFlags),
	entry("kernel-exact", "kernelized exact block steps over the classes (Keerthi et al. 2008), multiclass data", sequentialOnly,
		kernel.Exact{}, kernelExactFlags),
}

// approximate returns e with approx set.
func (e methodEntry) approximate() methodEntry { e.approx = true; return e }

// withoutTrainLoss returns e with noTrainLoss set.
func (e methodEntry) withoutTrainLoss() methodEntry { e.noTrainLoss = true; return e }

// methodNamed returns the entry called name, or an error listing the
// names of entries (the entries a command offers).
func methodNamed(name string, entries []methodEntry) (methodEntry, error) {
	var names []string
	for _, e := range entries {
		if e.name == name {
			return e, nil
		}
		names = append(names, e.name)
	}
	return methodEntry{}, fmt.Errorf("--method %s: unknown method (want %s)", quote(name), orList(names))
}

// entryOf returns the entry of the methods of m's type (for a method read
// from a file: bcfw, never recommended).
func entryOf(m run.Method) (methodEntry, error) {
	for _, e := range methods {
		if e.method == m.Name() && e.name == e.method { // bcfw, not recommended
			return e, nil
		}
	}
	return methodEntry{}, fmt.Errorf("method %s has no flags of this fwstruct", quote(m.Name()))
}

func bcfwFlags(f *flagSet, m *solver.BCFW) {
	f.Choice(&m.Sampling, "sampling", "block sampling: uniform, perm (a fresh permutation every pass), gap (proportional to the block gaps,\n"+
		"Osokin et al. 2016, Alg. 2) or gap-in-order (gap, the first pass in index order, as gapBCFW)", "uniform", "perm", "gap", "gap-in-order")
	f.Choice(&m.Step, "step", "block step: fw (line search), fw-predefined (step 2n/(k+2n)), pairwise (BCPFW) or away (BCAFW)",
		"fw", "fw-predefined", "pairwise", "away")
	cacheFlags(f, &m.Cache)
	averageFlag(f, &m.Average)
	boxFlags(f, &m.Box)
	scheduleFlags(f, &m.GapEvery, &m.TraceEvery)
	seedFlag(f, &m.Seed)
}

func multiPlaneFlags(f *flagSet, m *solver.MultiPlane) {
	// The flags spell out the defaults; 0 means none, as in the paper
	// (the method's negative values).
	count := func(p *int, def int, name, usage string) {
		v := *p
		switch {
		case v == 0:
			v = def
		case v < 0:
			v = 0
		}
		f.Int(&v, name, usage)
		f.check(func() error {
			if v < 0 {
				return fmt.Errorf("--%s must be >= 0, got %d", name, v)
			}
			*p = v
			if v == 0 {
				*p = -1
			}
			return nil
		})
	}
	count(&m.N, 1000, "mp-n", "planes kept in a working set, N (0: none, no approximate passes)")
	count(&m.T, 10, "mp-t", "outer iterations a plane stays in its working set unused, T (0: until --mp-n drops it)")
	count(&m.M, 1000, "mp-m", "most approximate passes per outer iteration, M (0: none; --mp-n 0 --mp-m 0 is bcfw with permutation sampling)")
	rule, cost := "time", solver.CostRule{}
	if m.Cost != nil {
		rule, cost = "cost", *m.Cost
	}
	f.choice("mp-rule", "the pass rule ending the approximate passes measures solver time (time, as the paper) or a deterministic\n"+
		"cost (cost: runs with equal seeds are identical)", []string{"time", "cost"}, func() string { return rule }, func(s string) error { rule = s; return nil })
	f.Float(&cost.Ratio, "mp-cost-ratio", "with --mp-rule cost: the cost of an oracle call in plane evaluations (> 0)")
	f.Float(&cost.Update, "mp-update-cost", "with --mp-rule cost: the cost of a step's update in plane evaluations (0: 1; solver.MeasureUpdateCost estimates it)")
	f.check(func() error {
		if rule == "time" {
			m.Cost = nil
			return needs(f, "needs --mp-rule cost", "mp-cost-ratio", "mp-update-cost")
		}
		if err := checkFlags(positive("mp-cost-ratio", cost.Ratio),
			flagCheck{"mp-update-cost", "finite and >= 0 (0: 1)", cost.Update, cost.Update >= 0 && !math.IsInf(cost.Update, 1)}); err != nil {
			return err
		}
		c := cost
		m.Cost = &c
		return nil
	})
	f.Choice(&m.Step, "step", "block step: fw (line search), pairwise or away", "fw", "pairwise", "away")
	averagingFlag(f, &m.Averaging, "keep the weighted averages of the iterates after the exact and the approximate steps (Sec. 3.5)")
	boxFlags(f, &m.Box)
	scheduleFlags(f, &m.GapEvery, &m.TraceEvery)
	seedFlag(f, &m.Seed)
}

func fwFlags(f *flagSet, m *solver.FW) {
	stepSizeFlag(f, &m.StepSize)
	averageFlag(f, &m.Average)
	boxFlags(f, &m.Box)
	scheduleFlags(f, &m.GapEvery, &m.TraceEvery)
}

func ssgFlags(f *flagSet, m *solver.SSG) {
	averageFlag(f, &m.Average)
	boxFlags(f, &m.Box)
	scheduleFlags(f, &m.GapEvery, &m.TraceEvery)
	seedFlag(f, &m.Seed)
}

func cpFlags(f *flagSet, m *solver.CuttingPlane) {
	tol := cmp.Or(m.Tol, solver.DefaultCPTol)
	f.Float(&tol, "cp-tol", "tolerance of the QP over the planes, relative to the gap of the iteration (> 0)")
	size := m.Cache
	switch {
	case size == 0:
		size = solver.DefaultCPCache
	case size < 0:
		size = 0
	}
	f.Int(&size, "cp-cache", "labelings each example keeps in the constraint cache (SVM^struct's; 0: no cache)")
	f.check(func() error {
		if err := checkFlags(positive("cp-tol", tol), flagCheck{"cp-cache", ">= 0 (0: no cache)", float64(size), size >= 0}); err != nil {
			return err
		}
		m.Tol, m.Cache = tol, size
		if size == 0 {
			m.Cache = -1
		}
		return nil
	})
	scheduleFlags(f, &m.GapEvery, &m.TraceEvery)
}

func onlineEGFlags(f *flagSet, m *solver.OnlineEG) {
	averageFlag(f, &m.Average)
	scheduleFlags(f, &m.GapEvery, &m.TraceEvery)
	seedFlag(f, &m.Seed)
}

func exactFlags(f *flagSet, m *solver.Exact) {
	f.Choice(&m.Sampling, "sampling", "order of the steps: uniform, perm (a fresh permutation every pass, as liblinear) or gap",
		"uniform", "perm", "gap")
	shrinkingFlag(f, &m.Shrinking)
	averageFlag(f, &m.Average)
	scheduleFlags(f, &m.GapEvery, &m.TraceEvery)
	seedFlag(f, &m.Seed)
}

// autoFlags declares what auto chooses from besides the problem: a kernel
// (a kernelized method) and rho (soft constraints).
func autoFlags(f *flagSet, m *auto.Method) {
	var k kernel.Kernel
	if m.Kernel != nil {
		k = *m.Kernel
	}
	kernelFlags(f, &k)
	f.Float(&m.Rho, "rho", "train soft constraints with penalty rho (> 0; factor-graph data; 0: the hard problem)")
	ge := m.GapEvery
	if ge < 0 {
		ge = math.Inf(1)
	}
	f.Float(&ge, "gap-every", "passes between exact duality-gap evaluations (> 0; inf: never; 0: the chosen method's, 10 or 20 for exact steps)")
	f.Float(&m.TraceEvery, "trace-every", "passes between extra observe-only gap evaluations (0: none)")
	seedFlag(f, &m.Seed)
	f.check(func() error {
		if err := checkFlags(flagCheck{"gap-every", ">= 0 (inf: never; 0: the chosen method's)", ge, ge >= 0},
			flagCheck{"trace-every", "finite and >= 0 (0: none)", m.TraceEvery, m.TraceEvery >= 0 && !math.IsInf(m.TraceEvery, 1)}); err != nil {
			return err
		}
		m.GapEvery = ge
		if math.IsInf(ge, 1) {
			m.GapEvery = -1
		}
		if f.given("kernel") {
			m.Kernel = &k
		}
		if m.Rho < 0 || math.IsNaN(m.Rho) || math.IsInf(m.Rho, 1) {
			return fmt.Errorf("--rho must be positive and finite (0: the hard problem), got %v", m.Rho)
		}
		return nil
	})
}

func softFlags(f *flagSet, m *soft.BCFW) {
	f.Float(&m.Rho, "rho", "penalty rho on the violated agreement constraints (> 0; Meshi et al. 2015, eq. 5)")
	f.check(func() error { return checkFlags(positive("rho", m.Rho)) })
	f.Choice(&m.Sampling, "sampling", "block sampling: uniform (Meshi Alg. 1), perm, gap or example-perm (each example's blocks one after\n"+
		"another, a fresh random order every pass)", "uniform", "perm", "gap", "example-perm")
	scheduleFlags(f, &m.GapEvery, &m.TraceEvery)
	seedFlag(f, &m.Seed)
}

// The kernel methods: the kernel, their own knobs, and the row cache of
// those whose steps read rows.

func kernelBCFWFlags(f *flagSet, m *kernel.BCFW) {
	kernelFlags(f, &m.Kernel)
	f.Choice(&m.Sampling, "sampling", "block sampling: uniform, perm or gap", "uniform", "perm", "gap")
	stepSizeFlag(f, &m.StepSize)
	kernelRunFlags(f, &m.Averaging, &m.GapEvery, &m.TraceEvery, &m.Seed)
	kernelCacheFlags(f, &m.CacheBytes, &m.CacheFloat32)
}

func kernelFWFlags(f *flagSet, m *kernel.FW) {
	kernelFlags(f, &m.Kernel)
	stepSizeFlag(f, &m.StepSize)
	kernelRunFlags(f, &m.Averaging, &m.GapEvery, &m.TraceEvery, nil)
}

func kernelExactFlags(f *flagSet, m *kernel.Exact) {
	kernelFlags(f, &m.Kernel)
	f.Choice(&m.Sampling, "sampling", "order of the steps: uniform, perm or gap", "uniform", "perm", "gap")
	shrinkingFlag(f, &m.Shrinking)
	kernelRunFlags(f, &m.Averaging, &m.GapEvery, &m.TraceEvery, &m.Seed)
	kernelCacheFlags(f, &m.CacheBytes, &m.CacheFloat32)
}

// kernelRunFlags declares --averaging, the schedule and (seed non-nil)
// --seed of a kernel method.
func kernelRunFlags(f *flagSet, averaging *bool, gapEvery, traceEvery *float64, seed *uint64) {
	averagingFlag(f, averaging, "keep the weighted average of the iterates")
	scheduleFlags(f, gapEvery, traceEvery)
	if seed != nil {
		seedFlag(f, seed)
	}
}

// The flags several methods have, each bound to its method's field.

func seedFlag(f *flagSet, p *uint64) { f.Uint64(p, "seed", "random seed of the sampling") }

func averagingFlag(f *flagSet, p *bool, usage string) { f.Bool(p, "averaging", usage) }

func shrinkingFlag(f *flagSet, p *bool) {
	f.Bool(p, "shrinking", "skip the examples whose block gap was settled until the next gap pass (liblinear's shrinking;\nneeds --sampling perm)")
}

func stepSizeFlag(f *flagSet, p *run.StepSize) {
	f.Choice(p, "step-size", "step size: line (line search) or predefined (2/(k+2))", "line", "predefined")
}

func averageFlag(f *flagSet, p *run.AverageKind) {
	f.Choice(p, "average", "also track an average of the iterates: none, wavg (weights k), tavg (0.5-suffix average by the doubling trick)\n"+
		"or avg (uniform; Lacoste-Julien et al. 2013, App. C, F)", "none", "wavg", "tavg", "avg")
}

// scheduleFlags declares --gap-every and --trace-every: the flags show the
// passes (10 for the method's zero, inf for its "never", a negative value).
func scheduleFlags(f *flagSet, gapEvery, traceEvery *float64) {
	ge := *gapEvery
	switch {
	case ge == 0:
		ge = 10
	case ge < 0:
		ge = math.Inf(1)
	}
	f.Float(&ge, "gap-every", "passes between exact duality-gap evaluations (> 0; inf: never)")
	f.Float(traceEvery, "trace-every", "passes between extra observe-only gap evaluations (0: none)")
	f.check(func() error {
		if err := checkFlags(flagCheck{"gap-every", "positive (inf: never)", ge, ge > 0},
			flagCheck{"trace-every", "finite and >= 0 (0: none)", *traceEvery, *traceEvery >= 0 && !math.IsInf(*traceEvery, 1)}); err != nil {
			return err
		}
		*gapEvery = ge
		if math.IsInf(ge, 1) {
			*gapEvery = -1
		}
		return nil
	})
}

// cacheFlags declares the gap-based cache of bcfw (Osokin et al. 2016,
// Alg. 5): --cache turns it on, --cache-f, --cache-nu and --cache-size set
// it (and need it).
func cacheFlags(f *flagSet, p **solver.Cache) {
	on, c := *p != nil, solver.Cache{}
	if on {
		c = **p
	}
	c.F, c.Nu, c.MaxSize = cmp.Or(c.F, 0.25), cmp.Or(c.Nu, 0.01), cmp.Or(c.MaxSize, 10) // the zeros' meaning
	f.Bool(&on, "cache", "cache oracle answers with the gap-based hit rule (Osokin et al. 2016, Alg. 5); --cache=false turns it off")
	f.Float(&c.F, "cache-f", "cache: local factor F (> 0)")
	f.Float(&c.Nu, "cache-nu", "cache: global factor nu (> 0)")
	f.Int(&c.MaxSize, "cache-size", "cache: corners kept per block (>= 1)")
	f.check(func() error {
		if !on {
			*p = nil
			return needs(f, "needs the cache (--cache)", "cache-f", "cache-nu", "cache-size")
		}
		if err := checkFlags(positive("cache-f", c.F), positive("cache-nu", c.Nu),
			flagCheck{"cache-size", ">= 1", float64(c.MaxSize), c.MaxSize >= 1}); err != nil {
			return err
		}
		cc := c
		*p = &cc
		return nil
	})
}

// boxFlags declares the box constraints on w (Osokin et al. 2016, App. H),
// read once the dimension d of the training problem is known.
func boxFlags(f *flagSet, p **solver.Box) {
	var lower, upper string
	if *p != nil {
		lower, upper = formatBounds((*p).Lower), formatBounds((*p).Upper)
	}
	f.String(&lower, "box-lower", "lower bounds on w, e.g. '0-99=0,150=-1' (coordinate ranges = value; '*' for all)")
	f.String(&upper, "box-upper", "upper bounds on w, same syntax as --box-lower")
	f.late = append(f.late, func(d int) error {
		if lower == "" && upper == "" {
			*p = nil
			return nil
		}
		box := &solver.Box{}
		var err error
		if lower != "" {
			if box.Lower, err = parseBounds(lower, d, math.Inf(-1)); err != nil {
				return fmt.Errorf("--box-lower: %w", err)
			}
		}
		if upper != "" {
			if box.Upper, err = parseBounds(upper, d, math.Inf(1)); err != nil {
				return fmt.Errorf("--box-upper: %w", err)
			}
		}
		*p = box
		return nil
	})
}

// kernelFlags declares the kernel on inputs: --kernel and the parameters
// of its kind (--gamma for rbf and poly, --degree and --coef0 for poly).
func kernelFlags(f *flagSet, k *kernel.Kernel) {
	kind, gamma, degree, coef0 := k.Kind, k.Gamma, k.Degree, k.Coef0
	if kind != kernel.Poly {
		degree, coef0 = 3, 1
	}
	f.Choice(&kind, "kernel", "kernel on inputs: linear <x,x'>, rbf exp(-gamma |x-x'|^2) or poly (gamma <x,x'> + coef0)^degree", "linear", "rbf", "poly")
	f.Float(&gamma, "gamma", "gamma of --kernel rbf and poly (> 0)")
	f.Int(&degree, "degree", "degree of --kernel poly (>= 1)")
	f.Float(&coef0, "coef0", "coef0 of --kernel poly (>= 0)")
	f.check(func() error {
		switch kind {
		case kernel.Linear:
			*k = kernel.Kernel{}
			return needs(f, "applies to --kernel rbf and poly only", "gamma", "degree", "coef0")
		case kernel.RBF:
			*k = kernel.Kernel{Kind: kind, Gamma: gamma}
			if err := needs(f, "applies to --kernel poly only", "degree", "coef0"); err != nil {
				return err
			}
		default:
			*k = kernel.Kernel{Kind: kind, Gamma: gamma, Degree: degree, Coef0: coef0}
		}
		return checkFlags(flagCheck{"gamma", fmt.Sprintf("positive with --kernel %v", kind), gamma, gamma > 0 && !math.IsInf(gamma, 1)},
			flagCheck{"degree", ">= 1", float64(degree), degree >= 1}, flagCheck{"coef0", "finite and >= 0", coef0, coef0 >= 0 && !math.IsInf(coef0, 1)})
	})
}

// kernelCacheFlags declares the cache of kernel rows, in megabytes.
func kernelCacheFlags(f *flagSet, bytes *int64, float32 *bool) {
	mb := int(*bytes >> 20)
	f.Int(&mb, "kernel-cache", "memory for cached rows of the kernel matrix, in MB (0: none)")
	f.Bool(float32, "kernel-cache-float32", "keep the cached rows as float32 (twice the rows in --kernel-cache; values rounded to float32)")
	f.check(func() error {
		if mb < 0 {
			return fmt.Errorf("--kernel-cache must be >= 0 (0: none), got %d", mb)
		}
		*bytes = int64(mb) << 20
		return nil
	})
}

// needs returns an error for the first of names given on the command
// line: "--NAME why".
func needs(f *flagSet, why string, names ...string) error {
	for _, name := range names {
		if f.given(name) {
			return fmt.Errorf("--%s %s", name, why)
		}
	}
	return nil
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
		v, err := parseFloat(strings.TrimSpace(val))
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

// formatBounds writes bounds in the form parseBounds reads, runs of equal
// values as ranges and infinite ones left out ("" when none is finite).
func formatBounds(b []float64) string {
	var parts []string
	for lo := 0; lo < len(b); {
		hi := lo
		for hi+1 < len(b) && b[hi+1] == b[lo] {
			hi++
		}
		if v := b[lo]; !math.IsInf(v, 0) {
			r := strconv.Itoa(lo)
			if hi > lo {
				r += "-" + strconv.Itoa(hi)
			}
			parts = append(parts, r+"="+strconv.FormatFloat(v, 'g', -1, 64))
		}
		lo = hi + 1
	}
	return strings.Join(parts, ",")
}
