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

	solverrun "github.com/fwstruct/fwstruct/solver/run"
)

// writeRings writes a multiclass svmlight training file and its test file
// of points labeled by the ring (distance to the origin) they fall in.
func writeRings(t *testing.T, dir string) string {
	t.Helper()
	write := func(name string, n int, seed uint64) string {
		rng := rand.New(rand.NewPCG(seed, 1))
		var b strings.Builder
		for i := 0; i < n; i++ {
			r, a := 3*rng.Float64(), 2*math.Pi*rng.Float64()
			fmt.Fprintf(&b, "%d 1:%.4f 2:%.4f\n", int(r)+1, r*math.Cos(a), r*math.Sin(a))
		}
		return writeTestFile(t, filepath.Join(dir, name), []byte(b.String()))
	}
	write("rings.svm.t", 100, 2)
	return write("rings.svm", 150, 1)
}

// TestTrainKernelModel trains the kernelized solver from the command line,
// writes its trace and its model (support vectors), and evaluates the
// model with eval: the error eval prints is the final test loss of the
// trace.
func TestTrainKernelModel(t *testing.T) {
	isolateData(t)
	dir := t.TempDir()
	train := writeRings(t, dir)
	trace, model := filepath.Join(dir, "trace.json"), filepath.Join(dir, "model.json")
	code, out, errOut := runCLI(t, "train", "--data", train, "--kernel", "rbf", "--gamma", "2", "--lambda", "0.001",
		"--passes", "20", "--gap-every", "5", "--averaging", "--trace", trace, "--model", model, "--kernel-cache", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "kernel rbf(gamma=2)") || !strings.Contains(out, "support vectors") {
		t.Fatalf("output:\n%s", out)
	}
	raw, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var points []solverrun.Point
	if err := json.Unmarshal(raw, &points); err != nil {
		t.Fatal(err)
	}
	last := points[len(points)-1]
	if last.Pass != 20 || math.Abs(last.Primal-last.Dual-last.Gap) > 1e-9 || !(last.Gap < points[0].Gap) {
		t.Fatalf("last point %+v", last)
	}
	code, out, errOut = runCLI(t, "eval", "--model", model)
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errOut)
	}
	want := fmt.Sprintf("test loss %.6f", last.TestLoss)
	if !strings.Contains(out, want) || !strings.Contains(out, "support vectors") {
		t.Fatalf("eval printed %q, want %q", out, want)
	}
	if code, out, _ = runCLI(t, "eval", "--model", model, "--average"); code != 0 || !strings.Contains(out, "test loss") {
		t.Fatalf("eval --average: exit %d, %q", code, out)
	}
	// A corrupt kernel model is refused.
	bad := strings.Replace(string(mustRead(t, model)), `"classes":3`, `"classes":2`, 1)
	badPath := writeTestFile(t, filepath.Join(dir, "bad.json"), []byte(bad))
	if code, _, errOut = runCLI(t, "eval", "--model", badPath); code != 1 || !strings.Contains(errOut, "coefficients") {
		t.Fatalf("corrupt model: exit %d, %q", code, errOut)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTrainCuttingPlaneAndApproximateOracle runs the cutting-plane solver
// and BCFW with an approximate oracle from the command line.
func TestTrainCuttingPlaneAndApproximateOracle(t *testing.T) {
	base := []string{"train", "--data", "synthetic", "--synthetic-words", "40", "--quiet", "--gap-every", "1"}
	code, out, errOut := runCLI(t, append(base, "--solver", "cp", "--passes", "8", "--cp-tol", "1e-4")...)
	if code != 0 || !strings.Contains(out, "solver cp") || !strings.Contains(out, "done (passes) after 8.0 passes") {
		t.Fatalf("cp: exit %d: %s %s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, append(base, "--oracle-accuracy", "0.5", "--passes", "4")...)
	if code != 0 || !strings.Contains(out, "accuracy nu = 0.5") {
		t.Fatalf("approximate oracle: exit %d: %s %s", code, out, errOut)
	}
}

func TestKernelCommandLineErrors(t *testing.T) {
	isolateData(t)
	train := writeRings(t, t.TempDir())
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--data", "synthetic", "--kernel", "rbf", "--gamma", "1"}, "multiclass data"},
		{[]string{"--data", train, "--kernel", "sigmoid"}, "unknown kernel"},
		{[]string{"--data", train, "--kernel", "rbf"}, "gamma > 0"},
		{[]string{"--data", train, "--kernel", "poly", "--gamma", "1", "--degree", "0"}, "degree >= 1"},
		{[]string{"--data", train, "--kernel", "rbf", "--gamma", "1", "--solver", "ssg"}, "bcfw or fw"},
		{[]string{"--data", train, "--kernel", "rbf", "--gamma", "1", "--oracle-accuracy", "0.5"}, "--oracle-accuracy"},
		{[]string{"--data", train, "--kernel", "rbf", "--gamma", "1", "--kernel-cache", "-1"}, "--kernel-cache"},
		{[]string{"--data", "synthetic", "--oracle-accuracy", "0"}, "accuracy nu must be in (0, 1]"},
		{[]string{"--data", "synthetic", "--solver", "cp", "--box-lower", "*=0"}, "--box-lower applies to the primal bcfw, fw and ssg solvers only"},
		{[]string{"--data", "synthetic", "--solver", "cp", "--cp-tol", "-1"}, "CPTol"},
	} {
		code, _, errOut := runCLI(t, append([]string{"train", "--passes", "2", "--quiet"}, tc.args...)...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestTrainExactSteps: --step exact (with --shrinking) runs the exact block
// steps of the primal solver on multiclass data and of the kernelized
// solver (with the float32 row cache) to a certified gap.
func TestTrainExactSteps(t *testing.T) {
	isolateData(t)
	dir := t.TempDir()
	train := writeRings(t, dir)
	for _, args := range [][]string{
		{"--step", "exact", "--sampling", "perm", "--shrinking"},
		{"--step", "exact"},
		{"--kernel", "rbf", "--gamma", "2", "--step", "exact", "--sampling", "perm", "--shrinking", "--kernel-cache", "1", "--kernel-cache-float32"},
	} {
		all := append([]string{"train", "--data", train, "--lambda", "0.01", "--gap-tol", "1e-4", "--passes", "2000", "--gap-every", "5"}, args...)
		code, out, errOut := runCLI(t, all...)
		if code != 0 || !strings.Contains(out, "done (converged)") {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, out, errOut)
		}
	}
	if code, _, errOut := runCLI(t, "train", "--data", train, "--step", "exact", "--shrinking", "--sampling", "uniform"); code == 0 || !strings.Contains(errOut, "permutation sampling") {
		t.Fatalf("shrinking with uniform sampling: exit %d, %s", code, errOut)
	}
}

// TestTrainKernelWorkers: --workers 1, 2 and 3 train the same kernelized
// run, trace for trace (the steps' kernel rows and the gap passes on the
// workers, the steps applied in order), under permutation sampling with
// shrinking and under gap sampling; --batch, --async and
// --simulate-workers are refused with one line naming the flag.
func TestTrainKernelWorkers(t *testing.T) {
	isolateData(t)
	dir := t.TempDir()
	train := writeRings(t, dir)
	for _, args := range [][]string{
		{"--step", "exact", "--sampling", "perm", "--shrinking"},
		{"--sampling", "gap", "--averaging"},
	} {
		var traces []string
		for _, W := range []string{"1", "2", "3"} {
			trace := filepath.Join(dir, "trace-"+W+".json")
			all := append([]string{"train", "--data", train, "--kernel", "rbf", "--gamma", "2", "--lambda", "0.01", "--passes", "12", "--gap-every", "3",
				"--kernel-cache", "0", "--quiet", "--workers", W, "--trace", trace}, args...)
			if code, out, errOut := runCLI(t, all...); code != 0 {
				t.Fatalf("%v --workers %s: exit %d\n%s\n%s", args, W, code, out, errOut)
			}
			var points []solverrun.Point
			if err := json.Unmarshal(mustRead(t, trace), &points); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, p := range points {
				p.Seconds = 0
				fmt.Fprintf(&b, "%+v\n", p)
			}
			traces = append(traces, b.String())
		}
		if traces[1] != traces[0] || traces[2] != traces[0] {
			t.Fatalf("%v: the traces of 1, 2 and 3 workers differ:\n%s\n%s\n%s", args, traces[0], traces[1], traces[2])
		}
	}
	for _, flag := range [][]string{{"--batch", "2"}, {"--async"}, {"--simulate-workers", "4"}} {
		all := append([]string{"train", "--data", train, "--kernel", "rbf", "--gamma", "2", "--passes", "2", "--quiet"}, flag...)
		code, out, errOut := runCLI(t, all...)
		if code != 1 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, flag[0]+" applies to the primal bcfw solver only") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", flag, code, out, errOut)
		}
	}
}
