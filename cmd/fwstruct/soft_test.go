package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	solverrun "github.com/fwstruct/fwstruct/solver/run"
)

// writeToyMULAN writes a dense MULAN dataset of 3 features and 4 labels
// (toy-train.arff, toy-test.arff, toy.xml) whose labels follow the
// features, and returns the training file.
func writeToyMULAN(t *testing.T, dir string) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(4, 5))
	arff := func(n int) string {
		var b strings.Builder
		b.WriteString("@relation toy\n@attribute x0 numeric\n@attribute x1 numeric\n@attribute x2 numeric\n")
		for l := 0; l < 4; l++ {
			fmt.Fprintf(&b, "@attribute l%d {0,1}\n", l)
		}
		b.WriteString("@data\n")
		for m := 0; m < n; m++ {
			x := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			fmt.Fprintf(&b, "%.4f,%.4f,%.4f", x[0], x[1], x[2])
			for l := 0; l < 4; l++ {
				y := 0
				if x[l%3]+0.4*rng.NormFloat64() > 0 {
					y = 1
				}
				fmt.Fprintf(&b, ",%d", y)
			}
			b.WriteString("\n")
		}
		return b.String()
	}
	xml := `<?xml version="1.0" encoding="utf-8"?><labels xmlns="http://mulan.sourceforge.net/labels"><label name="l0"/><label name="l1"/><label name="l2"/><label name="l3"/></labels>`
	for name, text := range map[string]string{"toy-train.arff": arff(30), "toy-test.arff": arff(20), "toy.xml": xml} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "toy-train.arff")
}

// TestFactorGraphSolvers trains the soft (with uniform and example-perm
// sampling), LP-hard and bcfw methods on a MULAN dataset by path and
// evaluates the models: the soft trace carries rho and the hard primal,
// eval prints Hamming loss and example-based F1 for exact MAP and for LP
// plus rounding; --workers alone leaves LP-hard's steps sequential, --batch
// makes them a mini-batch.
func TestFactorGraphSolvers(t *testing.T) {
	dir := t.TempDir()
	data := writeToyMULAN(t, dir)
	for _, tc := range []struct {
		solver string
		want   string
		extra  []string
	}{{"soft", "method soft (", nil}, {"soft", "sampling example-perm", []string{"--sampling", "example-perm"}},
		{"lp-hard", "method lp-hard (", nil}, {"bcfw", "method bcfw (", nil},
		{"lp-hard", "; execution sequential\n", []string{"--workers", "2"}},
		{"lp-hard", "; execution mini-batch of 2, lookahead 2\n", []string{"--workers", "2", "--batch", "2", "--lookahead", "2"}}} {
		trace, model := filepath.Join(dir, tc.solver+".json"), filepath.Join(dir, tc.solver+"-model.json")
		args := []string{"train", "--data", data, "--method", tc.solver, "--lambda", "0.05", "--passes", "6", "--gap-every", "2", "--trace", trace, "--model", model}
		if tc.solver == "soft" {
			args = append(args, "--rho", "0.5")
		}
		code, out, errOut := runCLI(t, append(args, tc.extra...)...)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Fatalf("%s: exit %d: %s %s", tc.solver, code, out, errOut)
		}
		raw, err := os.ReadFile(trace)
		if err != nil {
			t.Fatal(err)
		}
		var pts []solverrun.Point
		if err := json.Unmarshal(raw, &pts); err != nil {
			t.Fatal(err)
		}
		last := pts[len(pts)-1]
		if soft := tc.solver == "soft"; soft != (last.Rho == 0.5) || soft != !(last.HardPrimal != last.HardPrimal) || soft != strings.Contains(out, " hard ") {
			t.Fatalf("%s: rho %v, hard primal %v in the trace", tc.solver, last.Rho, last.HardPrimal)
		}
		if !(last.TestLoss >= 0 && last.TestLoss < 0.5) || last.Pass > 6 {
			t.Fatalf("%s: last point %+v", tc.solver, last)
		}
		code, out, errOut = runCLI(t, "eval", "--model", model, "--data", data)
		if code != 0 || strings.Count(out, "hamming_loss") != 2 || strings.Count(out, "example_f1") != 2 || !strings.Contains(out, "LP + rounding") {
			t.Fatalf("%s eval: exit %d: %s %s", tc.solver, code, out, errOut)
		}
	}
	for _, bad := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--data", data, "--method", "soft", "--rho", "0"}, 1, "--rho must be positive"},
		{[]string{"--data", data, "--method", "soft", "--rho", "-1"}, 1, "--rho must be positive"},
		{[]string{"--data", data, "--method", "soft", "--rho", "NaN"}, 1, "--rho must be positive"},
		{[]string{"--data", data, "--method", "soft", "--rho", "Inf"}, 1, "--rho must be positive"},
		{[]string{"--data", data, "--method", "soft", "--averaging"}, 1, "--averaging does not apply to --method soft"},
		{[]string{"--data", data, "--method", "soft", "--train-loss"}, 1, "--train-loss does not apply to --method soft"},
		{[]string{"--data", "synthetic", "--method", "soft"}, 1, "a factor-graph problem is needed (yeast or a MULAN dataset)"},
		{[]string{"--data", "synthetic", "--method", "lp-hard"}, 1, "a factor-graph problem is needed (yeast or a MULAN dataset)"},
		{[]string{"--data", data, "--method", "lp-hard", "--sampling", "example-perm"}, 2, `--sampling "example-perm": want uniform, perm, gap or gap-in-order`},
		{[]string{"--data", "synthetic", "--method", "recommended", "--sampling", "example-perm"}, 2, `--sampling "example-perm": want uniform, perm, gap or gap-in-order`},
	} {
		code, _, errOut := runCLI(t, append([]string{"train", "--passes", "1"}, bad.args...)...)
		if code != bad.code || !strings.Contains(errOut, bad.want) {
			t.Fatalf("%v: exit %d, %q does not name %s", bad.args, code, errOut, bad.want)
		}
	}
}

// TestFactorGraphResume checkpoints soft and LP-hard runs half way and
// resumes them: the weights and the trace equal those of an uninterrupted
// run with the same seed.
func TestFactorGraphResume(t *testing.T) {
	dir := t.TempDir()
	data := writeToyMULAN(t, dir)
	for _, alg := range []string{"soft", "lp-hard"} {
		t.Run(alg, func(t *testing.T) {
			base := []string{"train", "--data", data, "--method", alg, "--lambda", "0.05", "--gap-every", "2", "--seed", "3", "--quiet"}
			ref, refTrace := filepath.Join(dir, alg+"-ref.json"), filepath.Join(dir, alg+"-ref-trace.json")
			if code, out, errOut := runCLI(t, append(base, "--passes", "8", "--model", ref, "--trace", refTrace)...); code != 0 {
				t.Fatalf("exit %d: %s %s", code, out, errOut)
			}
			ck, model, trace := filepath.Join(dir, alg+".ckpt"), filepath.Join(dir, alg+"-model.json"), filepath.Join(dir, alg+"-trace.json")
			if code, out, errOut := runCLI(t, append(base, "--passes", "4", "--checkpoint", ck)...); code != 0 {
				t.Fatalf("exit %d: %s %s", code, out, errOut)
			}
			code, out, errOut := runCLI(t, "train", "--resume", ck, "--passes", "8", "--model", model, "--trace", trace)
			if code != 0 || !strings.Contains(out, "resumed from") {
				t.Fatalf("resume: exit %d: %s %s", code, out, errOut)
			}
			want, err := readModel(ref)
			if err != nil {
				t.Fatal(err)
			}
			got, err := readModel(model)
			if err != nil {
				t.Fatal(err)
			}
			if got.Passes != want.Passes || len(got.Weights) != len(want.Weights) {
				t.Fatalf("resumed model at %v passes (dim %d), uninterrupted %v (dim %d)", got.Passes, len(got.Weights), want.Passes, len(want.Weights))
			}
			for j := range want.Weights {
				if got.Weights[j] != want.Weights[j] {
					t.Fatalf("w[%d] = %v resumed, %v uninterrupted", j, got.Weights[j], want.Weights[j])
				}
			}
			gt, wt := readTraceFile(t, trace), readTraceFile(t, refTrace)
			if len(gt) != len(wt) || gt[len(gt)-1].Primal != wt[len(wt)-1].Primal {
				t.Fatalf("resumed trace %d points, uninterrupted %d", len(gt), len(wt))
			}
		})
	}
}
