package auto

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/internal/gendata"
	"github.com/fwstruct/fwstruct/internal/realdata"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/execution"
	"github.com/fwstruct/fwstruct/solver/run"
)

var (
	defaults     = flag.Bool("defaults", false, "BenchmarkDefaults: run the default method against a search over the methods and their main knobs on every dataset (long: tens of minutes)")
	defaultsOnly = flag.String("defaults-rows", "", "BenchmarkDefaults: comma-separated row names to run (empty: all)")
	defaultsReps = flag.Int("defaults-reps", 3, "BenchmarkDefaults: runs of each configuration (the median is compared)")
)

// defaultsRow is one dataset of BenchmarkDefaults: the problem, the
// regularization and the target the runs race to.
type defaultsRow struct {
	name   string
	lambda float64
	gap    float64 // the certified duality gap to reach
	load   func(b *testing.B) oracles.Problem
}

// candidate is one configuration of the search.
type candidate struct {
	name string
	m    run.Method
	x    run.Execution
}

// BenchmarkDefaults runs, on every shipped dataset (those found under
// $FWSTRUCT_DATA) and on generated data of each kind, the default method
// (Method: what Choose picks, with its execution) against a search over
// the methods and their main knobs (sampling, step, cache, multi-plane,
// exact steps, the mini-batch on the workers), each run to a certified
// duality gap, and prints the table: the default's time, the best
// configuration's, and their ratio. Times are whole Run calls in wall
// seconds (gap passes included), the median of -defaults-reps runs, on
// GOMAXPROCS workers; a configuration slower than 3 times the best one so
// far is stopped there and marked ">". It runs only with -args -defaults:
//
//	FWSTRUCT_DATA=/path/to/data go test ./solver/auto -run '^$' -bench Defaults -benchtime 1x -timeout 3h -args -defaults
//
// (make bench-defaults). docs/methods.md ("The default method") holds the
// table it printed and the rules it justifies.
func BenchmarkDefaults(b *testing.B) {
	if !*defaults {
		b.Skip("BenchmarkDefaults runs with -args -defaults (tens of minutes)")
	}
	var picked map[string]bool
	if *defaultsOnly != "" {
		picked = map[string]bool{}
		for _, r := range strings.Split(*defaultsOnly, ",") {
			picked[r] = true
		}
	}
	var lines []string
	for _, row := range defaultsRows() {
		if picked != nil && !picked[row.name] {
			continue
		}
		var line string
		b.Run(row.name, func(b *testing.B) {
			p := row.load(b)
			line = raceRow(b, row, p)
		})
		if line != "" {
			lines = append(lines, line)
			fmt.Fprintln(os.Stderr, line)
		}
	}
	fmt.Println("| data | n | lambda | gap | default (auto's choice) | default s | best configuration | best s | ratio |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, l := range lines {
		fmt.Println(l)
	}
}

// raceRow runs the default and every candidate on p and returns the row of
// the table.
func raceRow(b *testing.B, row defaultsRow, p oracles.Problem) string {
	choice, err := Choose(p, Method{Lambda: row.lambda}, 0, nil)
	if err != nil {
		b.Fatal(err)
	}
	def := candidate{name: "default", m: choice.Method, x: choice.Execution}
	b.Logf("%s: %s", row.name, choice)
	best, bestT := "", math.Inf(1)
	// An untimed pass of the default first: the first run after the data
	// is loaded pays its first touch (page faults, cold caches), which
	// would count against the default alone.
	warm, err := def.m.New(p)
	if err == nil {
		_, err = warm.Run(context.Background(), run.Stop{Passes: 1})
	}
	if err != nil {
		b.Fatalf("default: %v", err)
	}
	defT, _ := timeTo(b, p, row, def, math.Inf(1))
	if defT < bestT {
		best, bestT = describeCandidate(def), defT
	}
	for _, c := range candidates(p, row.lambda) {
		t, ok := timeTo(b, p, row, c, 3*bestT)
		mark := ""
		if !ok {
			mark = ">"
		}
		b.Logf("%s: %-40s %s%.3f s", row.name, describeCandidate(c), mark, t)
		if ok && t < bestT {
			best, bestT = describeCandidate(c), t
		}
	}
	return fmt.Sprintf("| %s | %d | %g | %g | %s | %.3f | %s | %.3f | %.2f |",
		row.name, p.Len(), row.lambda, row.gap, describeCandidate(def), defT, best, bestT, defT/bestT)
}

// timeTo returns the median wall time of -defaults-reps runs of c on p to
// the row's gap, and false when a run did not reach it within limit.
func timeTo(b *testing.B, p oracles.Problem, row defaultsRow, c candidate, limit float64) (float64, bool) {
	var ts []float64
	for k := 0; k < *defaultsReps; k++ {
		opts := []run.Option{}
		if c.x != nil {
			opts = append(opts, run.WithExecution(c.x))
		}
		s, err := c.m.New(p, opts...)
		if err != nil {
			b.Fatalf("%s: %v", describeCandidate(c), err)
		}
		stop := run.Stop{Gap: row.gap, EarlyCheck: 0.8, Passes: 1e6}
		if !math.IsInf(limit, 1) {
			stop.Duration = time.Duration(limit * float64(time.Second))
		}
		t0 := time.Now()
		res, err := s.Run(context.Background(), stop)
		t := time.Since(t0).Seconds()
		if err != nil {
			b.Fatalf("%s: %v", describeCandidate(c), err)
		}
		if res.Status != run.StatusConverged {
			return t, false
		}
		ts = append(ts, t)
	}
	sort.Float64s(ts)
	return ts[len(ts)/2], true
}

// candidates is the search over the methods and their main knobs for p.
func candidates(p oracles.Problem, lambda float64) []candidate {
	l := lambda
	var cs []candidate
	add := func(name string, m run.Method, x run.Execution) { cs = append(cs, candidate{name, m, x}) }
	if _, ok := p.(*oracles.Multiclass); ok {
		add("exact perm", solver.Exact{Lambda: l, Sampling: run.Permutation}, nil)
		add("exact perm shrinking", solver.Exact{Lambda: l, Sampling: run.Permutation, Shrinking: true}, nil)
		add("exact perm shrinking gap-every 5", solver.Exact{Lambda: l, Sampling: run.Permutation, Shrinking: true, GapEvery: 5}, nil)
		add("exact gap", solver.Exact{Lambda: l, Sampling: run.GapSampling}, nil)
	}
	cache := &solver.Cache{}
	for _, smp := range []run.Sampling{run.Uniform, run.Permutation, run.GapSampling} {
		for _, st := range []solver.Step{solver.FWStep, solver.Pairwise} {
			for _, c := range []*solver.Cache{nil, cache} {
				name := fmt.Sprintf("bcfw %v %v", smp, st)
				if c != nil {
					name += " cache"
				}
				add(name, solver.BCFW{Lambda: l, Sampling: smp, Step: st, Cache: c}, nil)
			}
		}
	}
	add("bcfw gap away cache", solver.BCFW{Lambda: l, Sampling: run.GapSampling, Step: solver.Away, Cache: cache}, nil)
	add("mp-bcfw", solver.MultiPlane{Lambda: l}, nil)
	add("mp-bcfw pairwise", solver.MultiPlane{Lambda: l, Step: solver.Pairwise}, nil)
	rec := solver.Recommended(l)
	add("bcfw recommended, mini-batch 2 lookahead 2", rec, execution.MiniBatch{Batch: 2, Lookahead: 2})
	add("bcfw recommended, mini-batch 2", rec, execution.MiniBatch{Batch: 2})
	add("bcfw recommended, async", rec, execution.Async{})
	return cs
}

// describeCandidate names a candidate by its method's name and the
// settings away from their defaults, and its execution.
func describeCandidate(c candidate) string {
	var b strings.Builder
	b.WriteString(c.m.Name())
	switch m := c.m.(type) {
	case solver.BCFW:
		fmt.Fprintf(&b, " %v %v", m.Sampling, m.Step)
		if m.Cache != nil {
			b.WriteString(" cache")
		}
	case solver.Exact:
		fmt.Fprintf(&b, " %v", m.Sampling)
		if m.Shrinking {
			b.WriteString(" shrinking")
		}
		if m.GapEvery != 0 {
			fmt.Fprintf(&b, " gap-every %g", m.GapEvery)
		}
	case solver.MultiPlane:
		fmt.Fprintf(&b, " %v", m.Step)
		if m.Cost != nil {
			fmt.Fprintf(&b, " cost %g", m.Cost.Ratio)
		}
	}
	if c.x != nil {
		b.WriteString(", " + c.x.Describe())
	}
	return b.String()
}

// defaultsRows lists the datasets of BenchmarkDefaults.
func defaultsRows() []defaultsRow {
	data := func(name string, opt datasets.Options) func(b *testing.B) oracles.Problem {
		return func(b *testing.B) oracles.Problem {
			if name != "synthetic" && opt.Path == "" {
				opt.Path = realdata.Dir(b)
			}
			d, err := datasets.LoadData(name, opt)
			if err != nil {
				b.Skipf("%s: %v", name, err)
			}
			return d.Train
		}
	}
	generated := func(p oracles.Problem) func(b *testing.B) oracles.Problem {
		return func(*testing.B) oracles.Problem { return p }
	}
	fg := func(b *testing.B) oracles.Problem {
		m, err := gendata.MultiLabel(300, 6, 20, 7)
		if err != nil {
			b.Fatal(err)
		}
		e, err := factorgraph.NewExact(m, 0)
		if err != nil {
			b.Fatal(err)
		}
		return e
	}
	return []defaultsRow{
		{"ocr-small", 0.01, 0.01, data("ocr", datasets.Options{Split: datasets.SplitSmall})},
		{"ocr-large", 0.001, 0.01, data("ocr", datasets.Options{Split: datasets.SplitLarge})},
		{"usps", 0.001, 0.001, data("usps", datasets.Options{})},
		{"conll", 0.015, 0.01, data("conll", datasets.Options{})},
		{"yeast", 0.01, 0.01, data("yeast", datasets.Options{})},
		{"horses", 1e-4, 0.001, data("horses", datasets.Options{})},
		{"hansards", 0.01, 0.001, data("hansards", datasets.Options{})},
		{"synthetic-chain", 0.01, 0.01, data("synthetic", datasets.Options{})},
		{"generated-multiclass", 0.001, 1e-4, generated(oraclestest.Multiclass(2000, 10, 30, 3))},
		{"generated-factorgraph", 0.01, 0.01, fg},
		{"generated-segmentation", 0.01, 0.001, generated(oraclestest.Segmentation(oraclestest.SegmentationConfig{N: 200, MinNodes: 30, MaxNodes: 60, Unary: 8, Pairwise: 2, Degree: 4, Seed: 5}))},
	}
}
