package solver

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/run"
)

var (
	conllVariantsFlag   = flag.Bool("conll-variants", false, "run BenchmarkConllVariants (long)")
	conllVariantsPasses = flag.Float64("conll-variants-passes", 60, "BenchmarkConllVariants: effective passes per run")
	conllVariantsOut    = flag.String("conll-variants-out", "", "BenchmarkConllVariants: write every trace as JSON into this folder")
)

// osokinVariant is one of the eight variants of Osokin et al. (2016,
// Fig. 5): object sampling x kind of step x cache.
type osokinVariant struct {
	name string
	cfg  config
}

// osokinVariants returns the eight variants of Osokin et al. (2016, Fig. 5),
// plain BCFW first and the recommended method (gap sampling, pairwise steps
// of Alg. 3, the cache of Alg. 5) last.
func osokinVariants() []osokinVariant {
	var vs []osokinVariant
	for _, cache := range []bool{false, true} {
		for _, step := range []Step{FWStep, Pairwise} {
			for _, sampling := range []run.Sampling{run.Uniform, run.GapSampling} {
				name := map[run.Sampling]string{run.Uniform: "uniform", run.GapSampling: "gap"}[sampling] +
					map[Step]string{FWStep: "-fw", Pairwise: "-pairwise"}[step] +
					map[bool]string{false: "", true: "-cache"}[cache]
				vs = append(vs, osokinVariant{name, config{Sampling: sampling, Step: step, Cache: cacheRule{Enabled: cache}}})
			}
		}
	}
	return vs
}

// BenchmarkConllVariants measures Osokin et al. (2016), Fig. 3 and 5, on
// full CoNLL-2000 (n = 8,936, d = 1.66M, App. I.2) at lambda = 1/n: the
// eight variants (uniform / gap sampling x FW / pairwise steps x cache / no
// cache), 3 seeds each, an exact gap pass every 5 effective passes (gap
// passes count as passes, as in the paper) and a budget of
// -conll-variants-passes effective passes (60 by default).
//
// For every variant it prints the median [min, max] over the seeds of the
// duality gap at the end of the budget, and the effective passes and solver
// seconds (excluding gap passes) at which the gap first fell to each of a
// few levels ("-" when some seed never got there). Then the effect of each
// dimension as ratios of median final gaps, the other two dimensions fixed:
// the machine is shared, so compare the seconds as ratios within one run.
// With -conll-variants-out naming a folder, every trace is written there as
// JSON.
//
// It took 30 minutes on the shared 2-core machine (load average 12 to 17;
// one run of 60 passes takes from half a minute to two), so it runs only
// when asked for with -conll-variants (make bench does not):
//
//	FWSTRUCT_DATA=../shared/data nice -n 10 go test ./solver -run '^$' -bench ConllVariants -benchtime 1x -timeout 2h -v -args -conll-variants
//
// Measured on 2026-11-22 (median [min, max] final gap over 3 seeds at 60
// passes): uniform-fw 9.12e-03 [8.40e-03, 9.94e-03], gap-fw 1.09e-02
// [1.05e-02, 1.35e-02], uniform-pairwise 1.30e-02 [1.18e-02, 1.31e-02],
// gap-pairwise 1.05e-02 [8.99e-03, 1.18e-02], uniform-fw-cache 6.20e-03
// [5.87e-03, 6.39e-03], gap-fw-cache 3.46e-03 [3.40e-03, 3.76e-03],
// uniform-pairwise-cache 7.37e-03 [7.06e-03, 7.38e-03], gap-pairwise-cache
// 3.05e-03 [2.87e-03, 3.07e-03]. Gap sampling helps with the cache (1.79x,
// 2.42x) and with pairwise steps (1.24x), not with FW steps alone (0.84x at
// pass 60, ahead early); pairwise steps help only with gap sampling (1.03x,
// 1.13x); the cache helps every variant (1.47x to 3.46x). The notebook
// notebooks/09_chunking.ipynb quotes the full table.
func BenchmarkConllVariants(b *testing.B) {
	if !*conllVariantsFlag {
		b.Skip("the CoNLL Fig. 3/5 measurements take long: run with -args -conll-variants")
	}
	train := loadConll(b)
	for k := 0; k < b.N; k++ {
		b.Log(variantFigures(b, "CoNLL-2000", train, 3, *conllVariantsPasses, *conllVariantsOut, os.Stderr))
	}
}

// conllGapLevels are the duality gaps BenchmarkConllVariants reports the
// passes and seconds to reach.
var conllGapLevels = []float64{3e-2, 1e-2, 3e-3, 1e-3}

// variantFigures runs the eight variants of Osokin et al. (2016, Fig. 5)
// on p at lambda = 1/n for the given seeds and passes, writes a line per run
// to progress and every trace as JSON into the folder out (if not empty),
// and returns the table BenchmarkConllVariants prints.
func variantFigures(tb testing.TB, name string, train oracles.Problem, seeds uint64, passes float64, out string, progress io.Writer) string {
	n := train.Len()
	lambda := 1 / float64(n)
	variants := osokinVariants()
	final := make([][]float64, len(variants))
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n%s: n = %d, d = %d, lambda = 1/n, %.0f effective passes, gap every 5, %d seeds; median [min, max] over seeds\n",
		name, n, train.Dim(), passes, seeds)
	for v, variant := range variants {
		var traces [][]run.Point
		for seed := uint64(1); seed <= seeds; seed++ {
			cfg := variant.cfg
			cfg.Lambda, cfg.GapEvery, cfg.Seed = lambda, 5, seed
			s, err := newSolver(train, cfg)
			if err != nil {
				tb.Fatal(err)
			}
			if _, err := s.Run(context.Background(), run.Stop{Passes: passes}); err != nil {
				tb.Fatal(err)
			}
			tr := s.Trace()
			traces = append(traces, tr)
			final[v] = append(final[v], last(tr).Gap)
			fmt.Fprintf(progress, "conll-variants: %s seed %d: gap %.3e after %.0f passes, %.1f s\n", variant.name, seed, last(tr).Gap, last(tr).Pass, last(tr).Seconds)
			if out != "" {
				writeTrace(tb, filepath.Join(out, fmt.Sprintf("conll-%s-seed%d.json", variant.name, seed)), tr)
			}
		}
		var secs []float64
		for _, tr := range traces {
			secs = append(secs, last(tr).Seconds)
		}
		fmt.Fprintf(&sb, "%-24s gap %s  seconds %s\n", variant.name, band(final[v], "%.2e"), band(secs, "%.1f"))
		for _, eps := range conllGapLevels {
			var ps, ts []float64
			for _, tr := range traces {
				ps, ts = append(ps, run.PassesToGap(tr, eps)), append(ts, run.SecondsToGap(tr, eps))
			}
			fmt.Fprintf(&sb, "    gap %.0e: passes %s  seconds %s\n", eps, band(ps, "%.0f"), band(ts, "%.1f"))
		}
	}
	// The effect of one dimension, the two others fixed: the ratio of the
	// median final gaps (above 1: the second helps).
	fmt.Fprintf(&sb, "final-gap ratios (median over seeds), the other two dimensions fixed:\n")
	for _, dim := range []struct {
		name       string
		flip       int // index offset between the two values of the dimension
		base, with string
	}{{"gap sampling", 1, "uniform", "gap"}, {"pairwise steps", 2, "fw", "pairwise"}, {"cache", 4, "no cache", "cache"}} {
		for v, variant := range variants {
			if v&dim.flip != 0 {
				continue
			}
			fmt.Fprintf(&sb, "  %-15s %-24s -> %-24s %.2fx\n", dim.name, variant.name, variants[v+dim.flip].name,
				medianReached(final[v])/medianReached(final[v+dim.flip]))
		}
	}
	return sb.String()
}

// TestOsokinVariants checks that the eight variants are the product of the
// three dimensions, indexed by bits (1: gap sampling, 2: pairwise, 4:
// cache), which the ratios of variantFigures rely on.
func TestOsokinVariants(t *testing.T) {
	vs := osokinVariants()
	if len(vs) != 8 {
		t.Fatalf("%d variants", len(vs))
	}
	names := map[string]bool{}
	for v, variant := range vs {
		names[variant.name] = true
		if got, want := variant.cfg.Sampling == run.GapSampling, v&1 != 0; got != want {
			t.Errorf("%s: gap sampling %v, want %v", variant.name, got, want)
		}
		if got, want := variant.cfg.Step == Pairwise, v&2 != 0; got != want {
			t.Errorf("%s: pairwise %v, want %v", variant.name, got, want)
		}
		if got, want := variant.cfg.Cache.Enabled, v&4 != 0; got != want {
			t.Errorf("%s: cache %v, want %v", variant.name, got, want)
		}
	}
	if len(names) != 8 {
		t.Errorf("names not distinct: %v", names)
	}
}

// TestVariantFigures runs the CoNLL benchmark's measurement on a small
// generated chain: one table entry per variant, one progress line and one
// trace per run, every run within its pass budget.
func TestVariantFigures(t *testing.T) {
	dir := t.TempDir()
	var progress strings.Builder
	table := variantFigures(t, "small", smallChain(3), 2, 20, dir, &progress)
	for _, v := range osokinVariants() {
		if !strings.Contains(table, "\n"+v.name+" ") {
			t.Errorf("no row for %s in\n%s", v.name, table)
		}
		for seed := 1; seed <= 2; seed++ {
			raw, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("conll-%s-seed%d.json", v.name, seed)))
			if err != nil {
				t.Fatal(err)
			}
			var tr []run.Point
			if err := json.Unmarshal(raw, &tr); err != nil {
				t.Fatal(err)
			}
			if len(tr) == 0 || last(tr).Pass > 20 {
				t.Errorf("%s seed %d: %d points, last pass %v", v.name, seed, len(tr), last(tr).Pass)
			}
		}
	}
	if got := strings.Count(progress.String(), "\n"); got != 16 {
		t.Errorf("%d progress lines, want 16", got)
	}
	if got := strings.Count(table, "x\n"); got != 12 {
		t.Errorf("%d ratio lines, want 12:\n%s", got, table)
	}
}
