// The golden-trace test: a fixed set of short, deterministic runs of every
// solver family and variant on small generated data, whose traces and final
// iterates are stored in testdata/<run>.golden and compared bit for bit.
//
// The runs cover the example-level solver (package solver: BCFW with
// uniform, permutation and gap sampling x Frank-Wolfe, pairwise and away
// steps x line search and the predefined step size, the gap-based cache,
// averaging, box constraints, multi-plane BCFW with the cost rule, sparse
// block storage, batch FW, SSG, the cutting plane, an approximate oracle,
// a fork and a SetLambda in mid-run, stopping on the gap and its estimate,
// the regularization path) on chain, multiclass, segmentation and factor
// graph problems (exact and LP-relaxed views), the soft-constraint solver
// (package solver/soft) under every sampling, and the kernelized solver
// (package solver/kernel) with BCFW and batch FW. Every run uses one worker;
// TestGoldenWorkers reruns some with three and expects the same files.
//
// Every float is written with strconv's shortest exact form ('g', -1), so
// equal text means equal bits. Wall-clock fields (Seconds, OracleTimeShare,
// a breakpoint's Seconds and WallSeconds) are left out, and so are fields
// that are NaN, zero counters, false flags and empty events (a field added
// to run.Point later changes no file until a run computes it). Final
// vectors (weights, averages, dual variables) are recorded as their length
// and a hash of their bits.
//
// When a change is meant to change behaviour, regenerate the files with
//
//	go test ./solver/internal/golden -run Golden -update-golden
//
// in a commit of its own whose message says why, and review the diff.
//
// The files were recorded on amd64. Other architectures may fuse a
// multiply and an add into one instruction (FMA), which rounds differently:
// there the test skips with a message instead of failing.
package golden

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/internal/gendata"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/kernel"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/soft"
)

var update = flag.Bool("update-golden", false, "rewrite the golden traces under testdata instead of comparing with them")

// record is what a run leaves to compare: its trace and its final state.
type record struct {
	b strings.Builder
}

// wallClock lists the run.Point fields that measure time: never compared.
var wallClock = map[string]bool{"Seconds": true, "EvalSeconds": true, "OracleTimeShare": true}

func (r *record) line(format string, args ...any) { fmt.Fprintf(&r.b, format+"\n", args...) }

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// points writes every trace point, one line each: the fields that were
// computed (see the package comment), by name.
func (r *record) points(what string, tr []run.Point) {
	r.line("%s: %d points", what, len(tr))
	for k, p := range tr {
		var fields []string
		v := reflect.ValueOf(p)
		for j := 0; j < v.NumField(); j++ {
			name, f := v.Type().Field(j).Name, v.Field(j)
			if wallClock[name] {
				continue
			}
			switch f.Kind() {
			case reflect.Float64:
				if !math.IsNaN(f.Float()) {
					fields = append(fields, name+"="+num(f.Float()))
				}
			case reflect.Int64, reflect.Int:
				if f.Int() != 0 {
					fields = append(fields, name+"="+strconv.FormatInt(f.Int(), 10))
				}
			case reflect.Bool:
				if f.Bool() {
					fields = append(fields, name)
				}
			case reflect.String:
				if f.String() != "" {
					fields = append(fields, name+"="+strconv.Quote(f.String()))
				}
			default:
				panic(fmt.Sprintf("golden: run.Point.%s has kind %v: teach points to write it", name, f.Kind()))
			}
		}
		r.line("  %d %s", k, strings.Join(fields, " "))
	}
}

// vec writes the length and a hash of the bits of a final vector (nil: absent).
func (r *record) vec(what string, x []float64) {
	if x == nil {
		r.line("%s: none", what)
		return
	}
	h := fnv.New64a()
	var buf [8]byte
	for _, v := range x {
		bits := math.Float64bits(v)
		for k := range buf {
			buf[k] = byte(bits >> (8 * k))
		}
		h.Write(buf[:])
	}
	r.line("%s: len %d fnv64a %016x", what, len(x), h.Sum64())
}

func (r *record) result(res run.Result) {
	r.line("result: status %v current %v", res.Status, res.Current)
}

// goldenRun is one fixed run; it writes what it compares into r.
type goldenRun struct {
	name string
	do   func(t *testing.T, r *record, workers int)
}

// The problems, small and generated once per call (runs never share state).
func chain() *oracles.Chain {
	return oraclestest.Chain(oraclestest.ChainConfig{N: 14, MaxLen: 5, Labels: 3, Features: 5, Density: 0.7, Seed: 7})
}

func chainTest() *oracles.Chain {
	return oraclestest.Chain(oraclestest.ChainConfig{N: 8, MaxLen: 5, Labels: 3, Features: 5, Density: 0.7, Seed: 8})
}

func multiclass(seed uint64) *oracles.Multiclass { return oraclestest.Multiclass(30, 4, 5, seed) }

func segmentation() *oracles.Segmentation {
	return oraclestest.Segmentation(oraclestest.SegmentationConfig{N: 6, MinNodes: 5, MaxNodes: 9, Unary: 4, Pairwise: 2, Degree: 3, Seed: 9})
}

// loopy is a factor-graph model on a loopy pairwise graph with ternary
// variables and a factor of three variables (the soft solver's blocks).
func loopy(t *testing.T, n int, seed uint64) *factorgraph.Model {
	m, err := gendata.Model(n, []int{3, 3, 2, 2}, [][]int{{0, 1}, {1, 2}, {0, 2}, {1, 2, 3}}, 3, seed)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// failure carries an error of a run up to check, which fails the test.
type failure struct{ err error }

// must returns v, or stops the run with err (see check).
func must[T any](v T, err error) T {
	if err != nil {
		panic(failure{err})
	}
	return v
}

// runSolver builds an example-level solver, runs it to stop and records it.
func runSolver(t *testing.T, r *record, p oracles.Problem, m run.Method, stop run.Stop, opts ...run.Option) *solver.Solver {
	s := must(m.New(p, opts...)).(*solver.Solver)
	res := must(s.Run(context.Background(), stop))
	recordSolver(t, r, s, res)
	return s
}

func recordSolver(t *testing.T, r *record, s *solver.Solver, res run.Result) {
	r.result(res)
	r.points("trace", s.Trace())
	r.vec("weights", s.Weights())
	r.vec("average weights", s.AverageWeights())
	gaps, current := s.BlockGaps()
	r.vec("block gaps", gaps)
	r.line("block gaps current %v, gap estimate %s, steps %d, oracle calls %d", current, num(s.GapEstimate()), s.Steps(), s.OracleCalls())
	hits, misses, drops := s.CacheStats()
	total, active := s.Planes()
	r.line("cache hits %d misses %d drops %d, planes %d active %d, inner steps %d", hits, misses, drops, total, active, s.InnerSteps())
	cur := must(s.Current())
	r.points("current", []run.Point{cur})
}

func solverRuns() []goldenRun {
	var runs []goldenRun
	// BCFW: sampling x step x step size (pairwise and away steps need line search).
	for _, smp := range []run.Sampling{run.Uniform, run.Permutation, run.GapSampling} {
		for _, st := range []solver.Step{solver.FWStep, solver.Pairwise, solver.Away} {
			for _, ss := range []run.StepSize{run.LineSearch, run.Predefined} {
				if st != solver.FWStep && ss == run.Predefined {
					continue
				}
				name := fmt.Sprintf("bcfw-%v-%v-%s", smp, st, map[run.StepSize]string{run.LineSearch: "line", run.Predefined: "predefined"}[ss])
				m := solver.BCFW{Lambda: 0.05, Sampling: smp, Step: st, GapEvery: 2, Seed: 3}
				if ss == run.Predefined {
					m.Step = solver.FWPredefined
				}
				runs = append(runs, goldenRun{name, func(t *testing.T, r *record, workers int) {
					runSolver(t, r, chain(), m, run.Stop{Passes: 12}, run.WithWorkers(workers))
				}})
			}
		}
	}
	add := func(name string, do func(t *testing.T, r *record, workers int)) {
		runs = append(runs, goldenRun{name, do})
	}
	simple := func(name string, m run.Method, stop run.Stop, opts ...run.Option) {
		add(name, func(t *testing.T, r *record, workers int) {
			runSolver(t, r, chain(), m, stop, append([]run.Option{run.WithWorkers(workers)}, opts...)...)
		})
	}
	simple("bcfw-cache-gap", solver.BCFW{Lambda: 0.02, Sampling: run.GapSampling, Cache: &solver.Cache{}, GapEvery: 2, Seed: 4}, run.Stop{Passes: 14})
	simple("bcfw-cache-pairwise", solver.BCFW{Lambda: 0.02, Step: solver.Pairwise, Cache: &solver.Cache{F: 0.5, Nu: 0.1, MaxSize: 4}, GapEvery: 3, Seed: 5}, run.Stop{Passes: 14})
	simple("bcfw-averaging-trainloss-test", solver.BCFW{Lambda: 0.05, Sampling: run.Permutation, Average: run.WeightedAverage, GapEvery: 3, TraceEvery: 1, Seed: 6}, run.Stop{Passes: 9},
		run.WithTrainLoss(true), run.WithTest(chainTest()))
	simple("bcfw-sparse-storage", solver.BCFW{Lambda: 0.05, GapEvery: 2, Seed: 3, Storage: solver.SparseBlocks}, run.Stop{Passes: 8})
	simple("bcfw-stop-gap-earlycheck", solver.BCFW{Lambda: 0.1, Sampling: run.GapSampling, GapEvery: 5, Seed: 2}, run.Stop{Passes: 60, Gap: 0.01, EarlyCheck: 0.8})
	simple("bcfw-stop-gap-estimate", solver.BCFW{Lambda: 0.1, GapEvery: 4, Seed: 2}, run.Stop{Passes: 60, GapEstimate: 0.02})
	add("bcfw-box", func(t *testing.T, r *record, workers int) {
		p := chain()
		box := boxFor(p.Dim())
		runSolver(t, r, p, solver.BCFW{Lambda: 0.02, Step: solver.Away, Box: box, GapEvery: 2, Seed: 3}, run.Stop{Passes: 10}, run.WithWorkers(workers))
	})
	add("bcfw-box-averaging", func(t *testing.T, r *record, workers int) {
		p := chain()
		runSolver(t, r, p, solver.BCFW{Lambda: 0.02, Average: run.WeightedAverage, Box: boxFor(p.Dim()), GapEvery: 2, Seed: 3}, run.Stop{Passes: 10}, run.WithWorkers(workers))
	})
	cost := &solver.CostRule{Ratio: 20}
	simple("multiplane-cost", solver.MultiPlane{Lambda: 0.02, N: 5, T: 3, M: 4, Cost: cost, GapEvery: 2, Seed: 8}, run.Stop{Passes: 10})
	simple("multiplane-cost-averaging-pairwise", solver.MultiPlane{Lambda: 0.02, N: 5, T: 3, M: 4, Cost: cost, Step: solver.Pairwise, Averaging: true, GapEvery: 2, TraceEvery: 1, Seed: 8}, run.Stop{Passes: 8})
	simple("fw-line", solver.FW{Lambda: 0.05, GapEvery: 2}, run.Stop{Passes: 20})
	simple("fw-predefined-averaging", solver.FW{Lambda: 0.05, StepSize: run.Predefined, Average: run.WeightedAverage, GapEvery: 3, TraceEvery: 2}, run.Stop{Passes: 20},
		run.WithTrainLoss(true), run.WithTest(chainTest()))
	add("fw-box", func(t *testing.T, r *record, workers int) {
		p := chain()
		runSolver(t, r, p, solver.FW{Lambda: 0.02, Box: boxFor(p.Dim()), GapEvery: 2}, run.Stop{Passes: 15}, run.WithWorkers(workers))
	})
	simple("ssg", solver.SSG{Lambda: 0.05, GapEvery: 2, Seed: 4}, run.Stop{Passes: 10})
	simple("ssg-averaging", solver.SSG{Lambda: 0.05, Average: run.WeightedAverage, GapEvery: 2, TraceEvery: 1, Seed: 4}, run.Stop{Passes: 10})
	add("ssg-box", func(t *testing.T, r *record, workers int) {
		p := chain()
		runSolver(t, r, p, solver.SSG{Lambda: 0.05, Box: boxFor(p.Dim()), GapEvery: 2, Seed: 4}, run.Stop{Passes: 10}, run.WithWorkers(workers))
	})
	simple("cp", solver.CuttingPlane{Lambda: 0.05, GapEvery: 1}, run.Stop{Passes: 12})
	simple("cp-gap-stop", solver.CuttingPlane{Lambda: 0.1, Tol: 0.01, GapEvery: 2}, run.Stop{Passes: 40, Gap: 1e-3})
	for _, m := range []run.Method{solver.BCFW{Lambda: 0.05, GapEvery: 2, Seed: 5}, solver.FW{Lambda: 0.05, GapEvery: 2}, solver.CuttingPlane{Lambda: 0.05, GapEvery: 2}} {
		add("approx-"+m.Name(), func(t *testing.T, r *record, workers int) {
			p := must(oracles.WithAccuracy(chain(), 0.5))
			runSolver(t, r, p, m, run.Stop{Passes: 10}, run.WithWorkers(workers))
		})
	}
	add("bcfw-multiclass", func(t *testing.T, r *record, workers int) {
		runSolver(t, r, multiclass(1), solver.BCFW{Lambda: 0.02, Sampling: run.GapSampling, Step: solver.Pairwise, GapEvery: 2, Seed: 1}, run.Stop{Passes: 10},
			run.WithWorkers(workers), run.WithTest(multiclass(2)), run.WithTrainLoss(true))
	})
	// The segmentation model bounds its pairwise weights (a box of its own).
	add("bcfw-segmentation", func(t *testing.T, r *record, workers int) {
		runSolver(t, r, segmentation(), solver.BCFW{Lambda: 0.05, Step: solver.Away, GapEvery: 2, Seed: 2}, run.Stop{Passes: 10}, run.WithWorkers(workers))
	})
	add("bcfw-factorgraph-exact", func(t *testing.T, r *record, workers int) {
		p := must(factorgraph.NewExact(loopy(t, 10, 3), 0))
		runSolver(t, r, p, solver.BCFW{Lambda: 0.1, Sampling: run.Permutation, GapEvery: 2, Seed: 2}, run.Stop{Passes: 8}, run.WithWorkers(workers))
	})
	add("fork", func(t *testing.T, r *record, workers int) {
		s := runSolver(t, r, chain(), solver.BCFW{Lambda: 0.05, Step: solver.Pairwise, GapEvery: 2, Seed: 3}, run.Stop{Passes: 4}, run.WithWorkers(workers))
		for _, change := range []func(m solver.BCFW) run.Method{
			func(m solver.BCFW) run.Method { m.Sampling, m.Cache = run.GapSampling, &solver.Cache{}; return m },
			func(m solver.BCFW) run.Method {
				m.Lambda, m.Step, m.Average = 0.02, solver.Away, run.WeightedAverage
				return m
			},
			func(m solver.BCFW) run.Method {
				return solver.MultiPlane{Lambda: m.Lambda, Cost: &solver.CostRule{Ratio: 10}, Step: m.Step, Averaging: m.Average != run.NoAverage,
					GapEvery: m.GapEvery, TraceEvery: m.TraceEvery, Seed: m.Seed}
			},
		} {
			s = must(s.Fork(change(s.Method().(solver.BCFW)))).(*solver.Solver)
			res := must(s.Run(context.Background(), run.Stop{Passes: s.Passes() + 4}))
			recordSolver(t, r, s, res)
		}
	})
	add("setlambda", func(t *testing.T, r *record, workers int) {
		s := runSolver(t, r, chain(), solver.BCFW{Lambda: 0.1, Sampling: run.GapSampling, Average: run.WeightedAverage, GapEvery: 2, Seed: 3}, run.Stop{Passes: 5}, run.WithWorkers(workers))
		for _, l := range []float64{0.05, 0.01} {
			if err := s.SetLambda(l); err != nil {
				t.Fatal(err)
			}
			res := must(s.Run(context.Background(), run.Stop{Passes: s.Passes() + 5}))
			recordSolver(t, r, s, res)
		}
	})
	for _, heuristic := range []bool{false, true} {
		name := map[bool]string{false: "regpath", true: "regpath-heuristic"}[heuristic]
		add(name, func(t *testing.T, r *record, workers int) {
			cfg := solver.PathConfig{Epsilon: 0.05, LambdaMin: 0.01, Heuristic: heuristic, TrueGaps: heuristic, Method: solver.BCFW{Step: solver.Pairwise, Seed: 2}}
			if heuristic {
				cfg.Kappa = 0.7
			}
			path := must(solver.RegPath(context.Background(), chain(), cfg, run.WithWorkers(workers)))
			r.line("path: epsilon %s kappa %s heuristic %v lower end %s complete %v, %d breakpoints",
				num(path.Epsilon), num(path.Kappa), path.Heuristic, num(path.LowerEnd), path.Complete, len(path.Breakpoints))
			for k, b := range path.Breakpoints {
				r.line("  %d lambda=%s gap=%s true_gap=%s delta=%s passes=%s oracle_calls=%d",
					k, num(b.Lambda), num(b.Gap), num(b.TrueGap), num(b.Delta), num(b.Passes), b.OracleCalls)
				r.vec("  weights", b.W)
			}
		})
	}
	return runs
}

// boxFor bounds every third coordinate of w to [-0.05, 0.05] and every
// fifth from below by 0.
func boxFor(d int) *solver.Box {
	b := &solver.Box{Lower: make([]float64, d), Upper: make([]float64, d)}
	for j := range d {
		b.Lower[j], b.Upper[j] = math.Inf(-1), math.Inf(1)
		if j%3 == 0 {
			b.Lower[j], b.Upper[j] = -0.05, 0.05
		}
		if j%5 == 0 {
			b.Lower[j] = 0
		}
	}
	return b
}

func softRuns() []goldenRun {
	var runs []goldenRun
	for _, smp := range []run.Sampling{run.Uniform, run.Permutation, run.GapSampling, run.ExamplePermutation} {
		m := soft.BCFW{Lambda: 0.1, Rho: 0.5, Sampling: smp, GapEvery: 2, Seed: 4}
		if smp == run.GapSampling {
			m.TraceEvery = 1
		}
		runs = append(runs, goldenRun{"soft-" + smp.String(), func(t *testing.T, r *record, workers int) {
			test := must(factorgraph.NewRounded(loopy(t, 6, 12)))
			s := must(m.New(must(factorgraph.NewRounded(loopy(t, 10, 11))), run.WithWorkers(workers), run.WithTest(test))).(*soft.Solver)
			res := must(s.Run(context.Background(), run.Stop{Passes: 8}))
			r.result(res)
			r.points("trace", s.Trace())
			r.vec("weights", s.Weights())
			r.line("gap estimate %s, steps %d, oracle calls %d", num(s.GapEstimate()), s.Steps(), s.OracleCalls())
			cur := must(s.Current())
			r.points("current", []run.Point{cur})
		}})
	}
	runs = append(runs, goldenRun{"soft-multilabel", func(t *testing.T, r *record, workers int) {
		m := must(factorgraph.NewRounded(must(gendata.MultiLabel(12, 4, 3, 5))))
		s := must(soft.BCFW{Lambda: 0.05, Rho: 2, Sampling: run.ExamplePermutation, GapEvery: 2, Seed: 1}.New(m, run.WithWorkers(workers)))
		res := must(s.Run(context.Background(), run.Stop{Passes: 30, Gap: 1e-3}))
		r.result(res)
		r.points("trace", s.Trace())
		r.vec("weights", s.Weights())
	}})
	runs = append(runs, goldenRun{"lp-hard", func(t *testing.T, r *record, workers int) {
		// LPHard makes the relaxation (factorgraph.NewRelaxed) of any view of the model.
		view := must(factorgraph.NewRounded(loopy(t, 8, 13)))
		runSolver(t, r, view, solver.LPHard{BCFW: solver.BCFW{Lambda: 0.1, Step: solver.Pairwise, GapEvery: 2, Seed: 3}}, run.Stop{Passes: 8}, run.WithWorkers(workers))
	}})
	return runs
}

func kernelRuns() []goldenRun {
	var runs []goldenRun
	for _, tc := range []struct {
		name string
		m    run.Method
		opts []run.Option
	}{
		{"kernel-bcfw-linear", kernel.BCFW{Lambda: 0.02, GapEvery: 2, Seed: 1}, nil},
		{"kernel-bcfw-rbf-gap-averaging", kernel.BCFW{Lambda: 0.02, Kernel: kernel.Kernel{Kind: kernel.RBF, Gamma: 0.3}, Sampling: run.GapSampling, Averaging: true, GapEvery: 2, TraceEvery: 1, Seed: 2, CacheBytes: 1 << 20},
			[]run.Option{run.WithTrainLoss(true), run.WithTest(multiclass(4))}},
		{"kernel-bcfw-poly-perm-predefined", kernel.BCFW{Lambda: 0.05, Kernel: kernel.Kernel{Kind: kernel.Poly, Gamma: 0.5, Degree: 2, Coef0: 1}, Sampling: run.Permutation, StepSize: run.Predefined, GapEvery: 3, Seed: 3}, nil},
		{"kernel-fw-rbf", kernel.FW{Lambda: 0.02, Kernel: kernel.Kernel{Kind: kernel.RBF, Gamma: 0.3}, GapEvery: 2}, nil},
		{"kernel-fw-predefined-averaging", kernel.FW{Lambda: 0.02, StepSize: run.Predefined, Averaging: true, GapEvery: 3}, []run.Option{run.WithTrainLoss(true)}},
	} {
		runs = append(runs, goldenRun{tc.name, func(t *testing.T, r *record, workers int) {
			s := must(tc.m.New(multiclass(3), append([]run.Option{run.WithWorkers(workers)}, tc.opts...)...)).(*kernel.Solver)
			res := must(s.Run(context.Background(), run.Stop{Passes: 12}))
			r.result(res)
			r.points("trace", s.Trace())
			var alpha []float64
			for i := 0; i < s.Problem().Len(); i++ {
				alpha = append(alpha, s.Alpha(i)...)
			}
			r.vec("alpha", alpha)
			r.line("gap estimate %s, steps %d, oracle calls %d, support vectors %d", num(s.GapEstimate()), s.Steps(), s.OracleCalls(), s.SupportVectors())
			cur := must(s.Current())
			r.points("current", []run.Point{cur})
		}})
	}
	return runs
}

func allRuns() []goldenRun {
	return append(append(solverRuns(), softRuns()...), kernelRuns()...)
}

func skipOffAMD64(t *testing.T) {
	if runtime.GOARCH != "amd64" && !*update {
		t.Skipf("the golden traces were recorded on amd64; %s may fuse multiply-adds (FMA), which round differently", runtime.GOARCH)
	}
}

// check compares what run writes with its golden file (or rewrites it).
func check(t *testing.T, g goldenRun, workers int) {
	var r record
	func() {
		defer func() {
			if e := recover(); e != nil {
				f, ok := e.(failure)
				if !ok {
					panic(e)
				}
				t.Fatalf("%s: %v", g.name, f.err)
			}
		}()
		g.do(t, &r, workers)
	}()
	got := []byte(r.b.String())
	file := filepath.Join("testdata", g.name+".golden")
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update-golden to record it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for k := 0; k < max(len(gl), len(wl)); k++ {
		var a, b string
		if k < len(gl) {
			a = gl[k]
		}
		if k < len(wl) {
			b = wl[k]
		}
		if a != b {
			t.Fatalf("%s differs from the golden trace at line %d:\n got: %s\nwant: %s", file, k+1, a, b)
		}
	}
}

// TestGolden runs every fixed run with one worker and compares it with its
// golden file.
func TestGolden(t *testing.T) {
	skipOffAMD64(t)
	runs := allRuns()
	names := map[string]bool{}
	for _, g := range runs {
		if names[g.name] {
			t.Fatalf("two runs named %s", g.name)
		}
		names[g.name] = true
		t.Run(g.name, func(t *testing.T) { check(t, g, 1) })
	}
	// Every golden file belongs to a run (a renamed run leaves none behind).
	files, err := filepath.Glob(filepath.Join("testdata", "*.golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if name := strings.TrimSuffix(filepath.Base(f), ".golden"); !names[name] && !*update {
			t.Errorf("%s belongs to no run: remove it", f)
		}
	}
}

// TestGoldenWorkers reruns runs whose passes spread over workers with
// three: the files are the same (results never depend on the number of
// workers).
func TestGoldenWorkers(t *testing.T) {
	skipOffAMD64(t)
	if *update {
		t.Skip("the files are written by TestGolden")
	}
	for _, g := range allRuns() {
		switch g.name {
		case "bcfw-gap-pairwise-line", "bcfw-cache-gap", "multiplane-cost-averaging-pairwise", "approx-bcfw", "ssg-averaging",
			"bcfw-averaging-trainloss-test", "fw-predefined-averaging", "cp", "approx-fw", "fork", "regpath", "soft-example-perm", "soft-gap", "lp-hard", "kernel-bcfw-rbf-gap-averaging", "kernel-fw-rbf":
			t.Run(g.name, func(t *testing.T) { check(t, g, 3) })
		}
	}
}
