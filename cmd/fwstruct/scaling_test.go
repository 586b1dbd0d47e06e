package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/internal/gendata"
	solverrun "github.com/fwstruct/fwstruct/solver/run"
)

// writeFarRings writes rings data (see writeRings) whose two features are
// moved far from the origin and stretched, x' = 100 x + 700, as unscaled
// measurements often are: lines of training data (n), and the test file
// beside it.
func writeFarRings(t *testing.T, dir, name string, n int) string {
	t.Helper()
	write := func(name string, n int, seed uint64) string {
		rng := rand.New(rand.NewPCG(seed, 1))
		var b strings.Builder
		for i := 0; i < n; i++ {
			r, a := 3*rng.Float64(), 2*math.Pi*rng.Float64()
			fmt.Fprintf(&b, "%d 1:%.4f 2:%.4f\n", int(r)+1, 100*r*math.Cos(a)+700, 100*r*math.Sin(a)+700)
		}
		return writeTestFile(t, filepath.Join(dir, name), []byte(b.String()))
	}
	write(name+".t", 100, 2)
	return write(name, n, 1)
}

// lastPoint returns the last point of a trace file.
func lastPoint(t *testing.T, path string) solverrun.Point {
	t.Helper()
	var pts []solverrun.Point
	if err := json.Unmarshal(mustRead(t, path), &pts); err != nil {
		t.Fatal(err)
	}
	return pts[len(pts)-1]
}

// TestScalingRoundTripsThroughModels trains every family with --scale
// standardize and checks that the model records the fitted scaling and
// the data options, and that eval applies that scaling: the loss eval
// prints is the final test loss of the trace, also when the data is named
// anew (a training file other than the one the scaling was fitted on, whose
// own statistics differ): the model's scaling is the one applied, not one
// refitted.
func TestScalingRoundTripsThroughModels(t *testing.T) {
	isolateData(t)
	dir := t.TempDir()
	svm := writeFarRings(t, dir, "rings.svm", 150)
	mulan := writeToyMULAN(t, dir)
	cases := []struct {
		name, data string
		args       []string
		evalLine   string // the line of eval's output holding the trace's test loss
		otherData  bool   // also evaluate the test file without the training file
	}{
		{"bcfw", svm, []string{"--lambda", "0.01"}, "test loss %.6f (", true},
		{"kernel", svm, []string{"--method", "kernel", "--kernel", "rbf", "--gamma", "1", "--lambda", "0.001"}, "test loss %.6f (", true},
		{"soft", mulan, []string{"--method", "soft", "--lambda", "0.05"}, "test loss %.6f (LP + rounding, mulan, ", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			trace, model := filepath.Join(dir, tc.name+"-trace.json"), filepath.Join(dir, tc.name+"-model.json")
			args := append([]string{"train", "--data", tc.data, "--scale", "standardize", "--passes", "10", "--gap-every", "5", "--trace", trace, "--model", model, "--quiet"}, tc.args...)
			code, _, errOut := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("train: exit %d: %s", code, errOut)
			}
			if strings.Contains(errOut, "warning") {
				t.Errorf("standardized data warned: %s", errOut)
			}
			var m struct {
				Schema struct {
					Scaler *struct {
						Scaling        string
						Offset, Factor []float64
					} `json:"scaler"`
				} `json:"schema"`
				Data struct {
					Name    string
					Options struct {
						Scaling string
					}
				}
			}
			if err := json.Unmarshal(mustRead(t, model), &m); err != nil {
				t.Fatal(err)
			}
			if sc := m.Schema.Scaler; sc == nil || sc.Scaling != "standardize" || len(sc.Offset) == 0 || m.Data.Options.Scaling != "standardize" || m.Data.Name != tc.data {
				t.Fatalf("model records scaler %+v, data %+v", sc, m.Data)
			}
			want := fmt.Sprintf(tc.evalLine, lastPoint(t, trace).TestLoss)
			code, out, errOut := runCLI(t, "eval", "--model", model)
			if code != 0 || !strings.Contains(out, want) {
				t.Fatalf("eval: exit %d, %q %s; want %q", code, out, errOut, want)
			}
			if !tc.otherData {
				return
			}
			// Without the training file, the test file named: the model's
			// scaling still applies (item 5: eval needs no training file).
			hidden := svm + ".away"
			if err := os.Rename(svm, hidden); err != nil {
				t.Fatal(err)
			}
			defer os.Rename(hidden, svm)
			code, out, errOut = runCLI(t, "eval", "--model", model, "--data", svm+".t")
			if code != 0 || !strings.Contains(out, want) {
				t.Fatalf("eval of the test file alone: exit %d, %q %s; want %q (the model's scaling)", code, out, errOut, want)
			}
		})
	}
}

// TestOlderModelsRefused: a model written before the run was recorded as
// a typed method and data (fwstruct-model/1 and /2, fwstruct-kernel-model/1
// and /2, which recorded flag strings), or before the model stored its
// schema (fwstruct-model/3), is refused with one line saying what
// to do.
func TestOlderModelsRefused(t *testing.T) {
	isolateData(t)
	dir := t.TempDir()
	svm := writeRings(t, dir)
	model := filepath.Join(dir, "k.json")
	if code, _, errOut := runCLI(t, "train", "--data", svm, "--method", "kernel", "--kernel", "rbf", "--gamma", "1", "--passes", "4", "--model", model, "--quiet"); code != 0 {
		t.Fatalf("train: %s", errOut)
	}
	var m map[string]any
	if err := json.Unmarshal(mustRead(t, model), &m); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCLI(t, "eval", "--model", model); code != 0 || !strings.Contains(out, "test loss") {
		t.Fatalf("eval of the model: exit %d %s %s", code, out, errOut)
	}
	for _, format := range []string{"fwstruct-kernel-model/1", "fwstruct-kernel-model/2", "fwstruct-model/1", "fwstruct-model/2", "fwstruct-model/3"} {
		m["format"] = format
		b, _ := json.Marshal(m)
		old := writeTestFile(t, filepath.Join(dir, "old.json"), b)
		code, _, errOut := runCLI(t, "eval", "--model", old, "--data", svm)
		if code != 1 || !strings.Contains(errOut, "made by an older fwstruct: train again") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("eval of a %s model: exit %d %q", format, code, errOut)
		}
	}
}

// TestIllConditioningWarning checks the one-line warning of train: on far
// rings at a small lambda (Kappa about 1e7) and on unscaled emotions-like
// MULAN data (4.9e4) it names --scale standardize; standardized, or on
// well-scaled data, there is none.
func TestIllConditioningWarning(t *testing.T) {
	isolateData(t)
	dir := t.TempDir()
	far := writeFarRings(t, dir, "far.svm", 150)
	near := writeRings(t, dir)
	emotions, err := gendata.Emotions(dir, "emotions", 1)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		warn bool
	}{
		{[]string{"--data", far}, true},
		{[]string{"--data", far, "--method", "kernel", "--kernel", "linear"}, true},
		{[]string{"--data", far, "--scale", "standardize"}, false},
		{[]string{"--data", far, "--method", "kernel", "--kernel", "rbf", "--gamma", "1"}, false}, // k(x, x) = 1
		{[]string{"--data", near}, false},
		{[]string{"--data", writeToyMULAN(t, dir), "--method", "soft"}, false},
		{[]string{"--data", emotions, "--lambda", "0.01"}, true},
		{[]string{"--data", emotions, "--lambda", "0.01", "--method", "soft"}, true},
		{[]string{"--data", emotions, "--lambda", "0.01", "--scale", "standardize"}, false},
	}
	for _, tc := range cases {
		code, _, errOut := runCLI(t, append([]string{"train", "--lambda", "0.001", "--passes", "1", "--quiet"}, tc.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errOut)
		}
		warned := strings.Count(errOut, "fwstruct train: warning: ill-conditioned training")
		if tc.warn != (warned == 1) || strings.Count(errOut, "\n") != warned {
			t.Errorf("%v: stderr %q, want %d warning line", tc.args, errOut, map[bool]int{true: 1}[tc.warn])
		}
		if tc.warn && !strings.Contains(errOut, "; use --scale standardize (or a larger --lambda)\n") {
			t.Errorf("%v: the warning does not say what to do: %q", tc.args, errOut)
		}
	}
	if _, err := os.Stat(far); err != nil {
		t.Fatal(err)
	}
}
