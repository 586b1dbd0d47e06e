package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/internal/realdata"
)

// synthetic writes a synthetic corpus in the Hansards formats with enough
// gold pairs for the default split (100 training pairs, 25 held out).
func synthetic(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "hansards")
	if err := datasets.WriteSyntheticHansards(dir, datasets.SyntheticHansardsConfig{Gold: 130, Unaligned: 400, MaxWords: 5, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestAERExperimentSynthetic(t *testing.T) {
	dir := synthetic(t)
	out := t.TempDir()
	var log bytes.Buffer
	if err := runAER(context.Background(), options{out: out, path: dir}, &log); err != nil {
		t.Fatal(err)
	}
	text := log.String()
	for _, want := range []string{"lambda chosen on held-out gold pairs 76-100", "<- chosen", "test: gold pairs 101-130 (30), trained on pairs 1-100",
		"matching model", "dice matching (threshold", "IBM Model 1 intersection", "diagonal IBM Model 2 intersection", "largest weights:"} {
		if !strings.Contains(text, want) {
			t.Errorf("the output lacks %q:\n%s", want, text)
		}
	}
	for _, id := range []int{101, 102, 103, 104} {
		if _, err := os.Stat(filepath.Join(out, fmt.Sprintf("grid-%d.png", id))); err != nil {
			t.Error(err)
		}
	}
}

func TestFig5Synthetic(t *testing.T) {
	dir := synthetic(t)
	out := t.TempDir()
	var log bytes.Buffer
	o := options{out: out, path: dir, passes: 3, seeds: []uint64{1, 2}, lambdas: []float64{0.01}, intersected: 200}
	if err := runFig5(context.Background(), o, &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "training on 200 unaligned pairs labelled by the intersected diagonal IBM Model 2 alignments (not human labels)") {
		t.Errorf("the output does not say what the labels are:\n%s", log.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "fig5-traces-0.01.json"))
	if err != nil {
		t.Fatal(err)
	}
	type tracePoint struct {
		Primal  *float64 `json:"primal"`
		Dual    *float64 `json:"dual"`
		TestAER *float64 `json:"test_aer"`
	}
	var traces struct {
		Lambda   float64                   `json:"lambda"`
		BestDual float64                   `json:"best_dual"`
		Runs     map[string][][]tracePoint `json:"runs"`
	}
	if err := json.Unmarshal(b, &traces); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"BCFW", "BCFW-wavg", "SSG", "SSG-wavg", "FW", "cutting plane"} {
		runs := traces.Runs[m]
		want := 2
		if m == "FW" || m == "cutting plane" {
			want = 1
		}
		if len(runs) != want {
			t.Fatalf("%s: %d runs, want %d", m, len(runs), want)
		}
		for _, r := range runs {
			if len(r) < 3 {
				t.Fatalf("%s: %d points", m, len(r))
			}
			for _, p := range r {
				if p.TestAER == nil || !(*p.TestAER >= 0 && *p.TestAER <= 1) || p.Primal == nil {
					t.Fatalf("%s: point %+v without a test AER in [0, 1] or a primal", m, p)
				}
				if strings.HasPrefix(m, "SSG") && p.Dual != nil {
					t.Fatalf("%s: a dual %v, SSG has none", m, *p.Dual)
				}
			}
		}
	}
	if math.IsInf(traces.BestDual, 0) || traces.BestDual <= 0 {
		t.Errorf("best dual %v", traces.BestDual)
	}
	for _, f := range []string{"fig5-objective-0.01.png", "fig5-aer-0.01.png"} {
		if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestMatchingBeatsBaselines is the result the word-alignment model must
// show on the real data: with lambda chosen on the held-out gold pairs
// 76-100, the model trained on pairs 1-100 beats both baselines by at
// least 3 AER points on the 347 test pairs.
func TestMatchingBeatsBaselines(t *testing.T) {
	dir := filepath.Join(realdata.Dir(t), "hansards")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real data not found: %v", err)
	}
	h, err := datasets.LoadHansards(datasets.HansardsOptions{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	r, err := chooseAndTest(context.Background(), h, lambdaGrid)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	printAER(&log, h, r)
	t.Log("\n" + log.String())
	for _, b := range r.Baselines {
		if !(r.Model.AER() <= b.Counts.AER()-0.03) {
			t.Errorf("matching model AER %.4f, %s %.4f: not 3 points better", r.Model.AER(), b.Name, b.Counts.AER())
		}
	}
}
