package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/internal/gendata"
)

// TestTuneCommand tunes every family from the command line on generated
// data: the table and the summary are printed, the curve (JSON), its
// figure and the final model are written, and eval of that model prints
// the test metric tune reported.
func TestTuneCommand(t *testing.T) {
	isolateData(t)
	dir := t.TempDir()
	svm := writeFarRings(t, dir, "rings.svm", 90)
	emotions, err := gendata.Emotions(dir, "emotions", 1)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		args     []string
		metric   string
		evalLine string // eval's line holding the test metric
	}{
		{"bcfw", []string{"--data", svm, "--scale", "standardize", "--lambdas", "1,0.1,0.01"}, "error_rate", "test loss %s ("},
		{"kernel", []string{"--data", svm, "--scale", "standardize", "--method", "kernel", "--kernel", "rbf", "--gammas", "0.5,2", "--lambdas", "0.1,0.01"}, "error_rate", "test loss %s ("},
		{"soft", []string{"--data", emotions, "--scale", "standardize", "--method", "soft", "--rhos", "1", "--lambdas", "1,0.01", "--metric", "hamming_loss"}, "hamming_loss", "test loss %s (LP + rounding, mulan, "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			model, curve, fig := filepath.Join(dir, tc.name+".json"), filepath.Join(dir, tc.name+"-curve.json"), filepath.Join(dir, tc.name+".svg")
			args := append([]string{"tune", "--folds", "3", "--passes", "6", "--gap-every", "3", "--model", model, "--curve", curve, "--figure", fig}, tc.args...)
			code, out, errOut := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s\n%s", code, errOut, out)
			}
			if strings.Contains(errOut, "warning") {
				t.Errorf("standardized data warned: %s", errOut)
			}
			if !strings.Contains(out, "<- chosen") || !strings.Contains(out, "[1/") || !strings.Contains(out, "final model, test") {
				t.Fatalf("output:\n%s", out)
			}
			var c struct {
				Metric string
				Curve  []struct{ Folds []float64 }
				Chosen struct{ Mean float64 }
				Test   float64
			}
			if err := json.Unmarshal(mustRead(t, curve), &c); err != nil {
				t.Fatal(err)
			}
			if c.Metric != tc.metric || len(c.Curve) == 0 || len(c.Curve[0].Folds) != 3 {
				t.Fatalf("curve file: %+v", c)
			}
			if b := mustRead(t, fig); !strings.Contains(string(b), "<svg") {
				t.Errorf("figure is not an SVG")
			}
			code, evalOut, errOut := runCLI(t, "eval", "--model", model)
			if code != 0 {
				t.Fatalf("eval: exit %d: %s", code, errOut)
			}
			want := fmt.Sprintf(tc.evalLine, fmt.Sprintf("%.6f", c.Test))
			if !strings.Contains(evalOut, want) {
				t.Errorf("eval printed %q, want %q (the test %s tune reported)", evalOut, want, tc.metric)
			}
		})
	}
}

// TestTuneRefusesWhatDoesNotApply: flags of train that tune does not use
// are refused with a line saying why, and train-only flags are not
// defined.
func TestTuneRefusesWhatDoesNotApply(t *testing.T) {
	isolateData(t)
	dir := t.TempDir()
	svm := writeRings(t, dir)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--lambda", "0.1"}, 1, "--lambda applies to train only (tune chooses lambda: give the grid with --lambdas)"},
		{[]string{"--time", "1m"}, 1, "--time applies to train only"},
		{[]string{"--oracle-accuracy", "0.5"}, 1, "--oracle-accuracy applies to train only (tune runs the exact oracle)"},
		{[]string{"--method", "recommended", "--rhos", "1,2"}, 1, "--rhos does not apply to --method recommended (a flag of --method soft)"},
		{[]string{"--method", "kernel", "--gammas", "1", "--kernel", "linear"}, 1, "--gammas applies to --kernel rbf and poly only"},
		{[]string{"--method", "bcfw", "--gammas", "1"}, 1, "--gammas does not apply to --method bcfw (a flag of --method kernel, kernel-fw or kernel-exact)"},
		{[]string{"--method", "recommended", "--rho", "2"}, 1, "--rho does not apply to --method recommended (a flag of --method auto or soft)"},
		{[]string{"--early-check", "0.8"}, 1, "--early-check needs --gap-tol"},
		{[]string{"--method", "cg"}, 1, `--method "cg": unknown method`},
		{[]string{"--lambdas", "0.1,x"}, 1, `--lambdas: "x" is not a positive number`},
		{[]string{"--lambdas", "0.1,-1"}, 1, `--lambdas: "-1" is not a positive number`},
		{[]string{"--lambdas", ""}, 1, `--lambdas: an empty grid`},
		{[]string{"--folds", "3", "--hold-out", "0.2"}, 1, "give --folds or --hold-out, not both"},
		{[]string{"--folds", "0"}, 1, "--folds must be >= 2, got 0"},
		{[]string{"--hold-out", "0"}, 1, "--hold-out must be in (0, 1), got 0"},
		{[]string{"--folds", "1000"}, 1, "1000 folds of 150 examples"},
		{[]string{"--metric", "auc"}, 1, `no metric "auc"`},
		{[]string{"--trace", "t.json"}, 2, "unknown flag --trace"},
		{[]string{"--resume", "x"}, 2, "unknown flag --resume"},
	} {
		code, _, errOut := runCLI(t, append([]string{"tune", "--data", svm, "--passes", "1"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want exit %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "t.json")); err == nil {
		t.Error("a refused run wrote a file")
	}
}
