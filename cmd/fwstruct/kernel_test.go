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
	code, out, errOut := runCLI(t, "train", "--data", train, "--method", "kernel", "--kernel", "rbf", "--gamma", "2", "--lambda", "0.001",
		"--passes", "20", "--gap-every", "5", "--averaging", "--trace", trace, "--model", model, "--kernel-cache", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "method kernel (averaging true, cache_bytes 1048576, gap_every 5, kernel (gamma 2, kind rbf), ") || !strings.Contains(out, "support vectors") {
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
	// eval uses the averaged kernel model the run kept unless told
	// otherwise: its error is the trace's test loss of the average.
	for _, c := range []struct {
		args []string
		want float64
		says string
	}{
		{nil, last.TestLossAvg, "(averaged kernel model)"},
		{[]string{"--weights", "average"}, last.TestLossAvg, "(averaged kernel model)"},
		{[]string{"--weights", "iterate"}, last.TestLoss, "(kernel model)"},
	} {
		code, out, errOut = runCLI(t, append([]string{"eval", "--model", model}, c.args...)...)
		if code != 0 {
			t.Fatalf("eval %q: exit %d: %s", c.args, code, errOut)
		}
		want := fmt.Sprintf("test loss %.6f", c.want)
		if !strings.Contains(out, want) || !strings.Contains(out, c.says) || !strings.Contains(out, "support vectors") {
			t.Fatalf("eval %q printed %q, want %q and %q", c.args, out, want, c.says)
		}
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
	code, out, errOut := runCLI(t, append(base, "--method", "cp", "--passes", "8", "--cp-tol", "1e-4")...)
	if code != 0 || !strings.Contains(out, "method cp (cache 5, gap_every 1, tol 0.0001)") || !strings.Contains(out, "done (passes) after 8.0 passes") {
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
		code int
		want string
	}{
		{[]string{"--data", "synthetic", "--method", "kernel", "--kernel", "rbf", "--gamma", "1"}, 1, "multiclass data"},
		{[]string{"--data", train, "--method", "kernel", "--kernel", "sigmoid"}, 2, `--kernel "sigmoid": want linear, rbf or poly`},
		{[]string{"--data", train, "--method", "kernel", "--kernel", "rbf"}, 1, "--gamma must be positive with --kernel rbf, got 0"},
		{[]string{"--data", train, "--method", "kernel-fw", "--kernel", "poly", "--gamma", "1", "--degree", "0"}, 1, "--degree must be >= 1"},
		{[]string{"--data", train, "--method", "ssg", "--kernel", "rbf", "--gamma", "1"}, 1, "--kernel does not apply to --method ssg (a flag of --method auto, kernel, kernel-fw or kernel-exact)"},
		{[]string{"--data", train, "--method", "kernel", "--kernel", "rbf", "--gamma", "1", "--oracle-accuracy", "0.5"}, 1, "--oracle-accuracy does not apply to --method kernel"},
		{[]string{"--data", train, "--method", "kernel", "--kernel", "rbf", "--gamma", "1", "--kernel-cache", "-1"}, 1, "--kernel-cache must be >= 0"},
		{[]string{"--data", "synthetic", "--oracle-accuracy", "0"}, 1, "--oracle-accuracy must be in (0, 1], got 0"},
		{[]string{"--data", "synthetic", "--method", "cp", "--box-lower", "*=0"}, 1, "--box-lower does not apply to --method cp (a flag of --method recommended, bcfw, mp-bcfw, fw, ssg or lp-hard)"},
		{[]string{"--data", "synthetic", "--method", "cp", "--cp-tol", "-1"}, 1, "--cp-tol must be positive and finite, got -1"},
	} {
		code, _, errOut := runCLI(t, append([]string{"train", "--passes", "2", "--quiet"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestTrainExactSteps: --method exact (with --shrinking) runs the exact
// block steps on multiclass data, and --method kernel-exact those of the
// kernelized solver (with the float32 row cache), to a certified gap.
func TestTrainExactSteps(t *testing.T) {
	isolateData(t)
	dir := t.TempDir()
	train := writeRings(t, dir)
	for _, args := range [][]string{
		{"--method", "exact", "--sampling", "perm", "--shrinking"},
		{"--method", "exact"},
		{"--method", "kernel-exact", "--kernel", "rbf", "--gamma", "2", "--sampling", "perm", "--shrinking", "--kernel-cache", "1", "--kernel-cache-float32"},
	} {
		all := append([]string{"train", "--data", train, "--lambda", "0.01", "--gap-tol", "1e-4", "--passes", "2000", "--gap-every", "5"}, args...)
		code, out, errOut := runCLI(t, all...)
		if code != 0 || !strings.Contains(out, "done (converged)") {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, out, errOut)
		}
	}
	if code, _, errOut := runCLI(t, "train", "--data", train, "--method", "exact", "--shrinking", "--sampling", "uniform"); code == 0 || !strings.Contains(errOut, "permutation sampling") {
		t.Fatalf("shrinking with uniform sampling: exit %d, %s", code, errOut)
	}
}

// TestTrainKernelWorkers: --workers 1, 2 and 3 train the same kernelized
// run, trace for trace (the steps' kernel rows and the gap passes on the
// workers, the steps applied in order), under permutation sampling with
// shrinking and under gap sampling; --batch, --async and
// --simulate-workers are refused with one line naming the flag and the
// method.
func TestTrainKernelWorkers(t *testing.T) {
	isolateData(t)
	dir := t.TempDir()
	train := writeRings(t, dir)
	for _, args := range [][]string{
		{"--method", "kernel-exact", "--sampling", "perm", "--shrinking"},
		{"--method", "kernel", "--sampling", "gap", "--averaging"},
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
				p.Seconds, p.EvalSeconds = 0, 0
				fmt.Fprintf(&b, "%+v\n", p)
			}
			traces = append(traces, b.String())
		}
		if traces[1] != traces[0] || traces[2] != traces[0] {
			t.Fatalf("%v: the traces of 1, 2 and 3 workers differ:\n%s\n%s\n%s", args, traces[0], traces[1], traces[2])
		}
	}
	for _, flag := range [][]string{{"--batch", "2"}, {"--async"}, {"--simulate-workers", "4"}} {
		all := append([]string{"train", "--data", train, "--method", "kernel", "--kernel", "rbf", "--gamma", "2", "--passes", "2", "--quiet"}, flag...)
		code, out, errOut := runCLI(t, all...)
		if code != 1 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, flag[0]+" does not apply to --method kernel") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", flag, code, out, errOut)
		}
	}
}

// TestKernelResume: a kernel run checkpointed half way and resumed ends
// with the model and the trace (but for the solver time) of an
// uninterrupted run.
func TestKernelResume(t *testing.T) {
	isolateData(t)
	dir := t.TempDir()
	train := writeRings(t, dir)
	base := []string{"train", "--data", train, "--method", "kernel", "--kernel", "rbf", "--gamma", "2", "--sampling", "perm", "--seed", "5",
		"--lambda", "0.01", "--gap-every", "2", "--quiet"}
	ref, refTrace := filepath.Join(dir, "ref.json"), filepath.Join(dir, "ref-trace.json")
	if code, _, errOut := runCLI(t, append(base, "--passes", "8", "--model", ref, "--trace", refTrace)...); code != 0 {
		t.Fatal(errOut)
	}
	ck, model, trace := filepath.Join(dir, "k.ckpt"), filepath.Join(dir, "model.json"), filepath.Join(dir, "trace.json")
	if code, _, errOut := runCLI(t, append(base, "--passes", "4", "--checkpoint", ck)...); code != 0 {
		t.Fatal(errOut)
	}
	if code, out, errOut := runCLI(t, "train", "--resume", ck, "--passes", "8", "--model", model, "--trace", trace); code != 0 || !strings.Contains(out, "resumed from") {
		t.Fatalf("resume: exit %d: %s %s", code, out, errOut)
	}
	a, err := readModel(ref)
	if err != nil {
		t.Fatal(err)
	}
	b, err := readModel(model)
	if err != nil {
		t.Fatal(err)
	}
	ka, _ := json.Marshal(a.Kernel)
	kb, _ := json.Marshal(b.Kernel)
	if a.Kernel == nil || string(ka) != string(kb) || a.Passes != b.Passes {
		t.Fatalf("resumed kernel model differs (%v vs %v passes)", b.Passes, a.Passes)
	}
	ta, tb := readTraceFile(t, refTrace), readTraceFile(t, trace)
	if len(ta) != len(tb) || ta[len(ta)-1].Primal != tb[len(tb)-1].Primal {
		t.Fatalf("traces of %d and %d points", len(ta), len(tb))
	}
}
