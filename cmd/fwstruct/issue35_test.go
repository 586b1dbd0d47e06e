package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeSVM writes an svmlight training file of n examples of 3 classes and
// its test file X.t (with a feature index beyond the training file's and,
// when extraLabel, examples of a label the training file lacks).
func writeSVM(t *testing.T, dir string, n int, extraLabel bool) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(n), 3))
	var train, test strings.Builder
	for i := 0; i < n; i++ {
		c := i % 3
		fmt.Fprintf(&train, "%d 1:%.3f 2:%.3f\n", c, float64(c)+0.3*rng.Float64(), rng.Float64())
	}
	for i := 0; i < 12; i++ {
		c := i % 3
		if extraLabel && i%4 == 0 {
			c = 7
		}
		fmt.Fprintf(&test, "%d 1:%.3f 2:%.3f 5:1\n", c, float64(c%3)+0.3*rng.Float64(), rng.Float64())
	}
	p := writeTestFile(t, filepath.Join(dir, "x.svm"), []byte(train.String()))
	writeTestFile(t, p+".t", []byte(test.String()))
	return p
}

// TestOutputsNeverReplaceInputs (issue 35 item 1): an output that is one of
// the run's inputs (the data, the test file, the MULAN XML, the checkpoint
// resumed, the model evaluated, a trace reported), named as is or through a
// link, is refused before any work with one line, and the input is left
// as it was; two outputs that are one file are refused too.
func TestOutputsNeverReplaceInputs(t *testing.T) {
	isolateData(t)
	dir := t.TempDir()
	svm := writeSVM(t, dir, 30, false)
	test := svm + ".t"
	mulan := writeToyMULAN(t, dir)
	xml := filepath.Join(dir, "toy.xml")
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(svm, link); err != nil {
		t.Fatal(err)
	}
	ck, model, trace := filepath.Join(dir, "run.ckpt"), filepath.Join(dir, "model.json"), filepath.Join(dir, "trace.json")
	base := []string{"--passes", "2", "--quiet"}
	if code, _, stderr := runBinary(t, append([]string{"train", "--data", svm, "--checkpoint", ck, "--model", model, "--trace", trace}, base...)...); code != 0 {
		t.Fatal(stderr)
	}
	reportDir := t.TempDir()
	figureTrace := writeTestFile(t, filepath.Join(reportDir, "gap-passes.html"), mustRead(t, trace))
	alias := filepath.Join(dir, "alias.json")
	os.Symlink(filepath.Join(dir, "out.json"), alias)
	os.WriteFile(filepath.Join(dir, "out.json"), []byte("{}"), 0o644)
	cases := []struct {
		name  string
		args  []string
		input string // the file that must not change
		want  string
	}{
		{"model onto the data", []string{"train", "--data", svm, "--model", svm}, svm, "--model " + svm + " is the data (" + svm + "), an input of this run"},
		{"trace onto the test file", []string{"train", "--data", svm, "--trace", test}, test, "is the data"},
		{"checkpoint onto the data", []string{"train", "--data", svm, "--checkpoint", svm}, svm, "is the data"},
		{"model through a link to the data", []string{"train", "--data", svm, "--model", link}, svm, "is the data"},
		{"model onto the MULAN XML", []string{"train", "--data", mulan, "--method", "soft", "--model", xml}, xml, "is the data"},
		{"resume, checkpoint onto the data", []string{"train", "--resume", ck, "--checkpoint", svm}, svm, "is the data"},
		{"resume, model onto the checkpoint", []string{"train", "--resume", ck, "--model", ck}, ck, "--model and --checkpoint name the same file " + ck},
		{"resume, trace onto the checkpoint", []string{"train", "--resume", ck, "--checkpoint", filepath.Join(dir, "next.ckpt"), "--trace", ck}, ck, "is --resume " + ck},
		{"two outputs, one file", []string{"train", "--data", svm, "--model", filepath.Join(dir, "out.json"), "--trace", alias}, filepath.Join(dir, "out.json"), "name the same file"},
		{"tune curve onto the data", []string{"tune", "--data", svm, "--curve", svm, "--lambdas", "0.1"}, svm, "is the data"},
		{"path out onto the test file", []string{"path", "--data", svm, "--out", test, "--method", "bcfw"}, test, "is the data"},
		{"predict onto the model", []string{"predict", "--model", model, "--out", model}, model, "is --model " + model},
		{"predict onto its data", []string{"predict", "--model", model, "--data", test, "--out", test}, test, "is the data"},
		{"report onto a trace", []string{"report", "--out", reportDir, "--formats", "html", figureTrace}, figureTrace, "is the trace"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := mustRead(t, tc.input)
			args := tc.args
			if args[0] == "train" || args[0] == "tune" {
				args = append(args, base...)
			}
			code, stdout, stderr := runBinary(t, args...)
			if code != 1 || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 || strings.Contains(stdout, "pass ") {
				t.Errorf("exit %d, stdout %q, stderr %q; want one line saying %q", code, stdout, stderr, tc.want)
			}
			if after := mustRead(t, tc.input); string(after) != string(before) {
				t.Errorf("%s was replaced", tc.input)
			}
		})
	}
}

// TestReadOnlyOutputRefused (issue 35 item 8): a read-only output is
// refused before training, never silently replaced.
func TestReadOnlyOutputRefused(t *testing.T) {
	isolateData(t)
	dir := t.TempDir()
	svm := writeSVM(t, dir, 30, false)
	ro := writeTestFile(t, filepath.Join(dir, "kept.json"), []byte("kept"))
	if err := os.Chmod(ro, 0o444); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--model", "--trace", "--checkpoint"} {
		code, stdout, stderr := runBinary(t, "train", "--data", svm, "--passes", "2", flag, ro)
		if code != 1 || stdout != "" || !strings.Contains(stderr, "it is read-only (mode 0444)") {
			t.Errorf("%s onto a read-only file: exit %d, stdout %q, stderr %q", flag, code, stdout, stderr)
		}
	}
	if string(mustRead(t, ro)) != "kept" {
		t.Error("the read-only file was replaced")
	}
}

// TestUnseenSaidOnce (issue 35 item 7): what the test file holds beyond the
// training file (feature values dropped, labels or tags it lacks) is said
// once by train and once by eval, for every format that has a test file.
func TestUnseenSaidOnce(t *testing.T) {
	isolateData(t)
	dir := t.TempDir()
	digit := func(label string, v float64) string { return label + strings.Repeat(fmt.Sprintf(" %g", v), 256) + "\n" }
	cases := []struct {
		name, train, test, trainData, testData string
		args                                   []string
		want                                   string
	}{
		{"svmlight", "s.svm", "s.svm.t", "1 1:1\n2 2:1\n1 1:0.9\n2 2:0.8\n", "1 1:1 9:2\n3 2:1\n", nil,
			"1 feature values the training data has no feature for, dropped; 1 examples with a label the training data does not have (3), counted as errors"},
		{"csv", "c_train.csv", "c_test.csv", "1,2,a\n3,4,b\n1,1,a\n", "1,2,z\n3,4,b\n", nil,
			"1 examples with a label the training data does not have (z), counted as errors"},
		{"usps", "u_train.txt", "u_test.txt", digit("1", 0.5) + digit("2", -0.5), digit("3", 0.5) + digit("1", 0.5), nil,
			"1 examples with a label the training data does not have (3), counted as errors"},
		{"conll", "k_train.txt", "k_test.txt", "the DT B-NP\ndog NN I-NP\nran VB B-VP\n\nthe DT B-NP\ncat NN I-NP\n", "( ( B-LST\ndog NN I-NP\n", []string{"--lambda", "0.1"},
			"tokens with a tag the training data does not have (B-LST), counted as errors"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			train := writeTestFile(t, filepath.Join(dir, tc.train), []byte(tc.trainData))
			testPath := writeTestFile(t, filepath.Join(dir, tc.test), []byte(tc.testData))
			model := filepath.Join(dir, tc.name+".json")
			code, stdout, stderr := runBinary(t, append([]string{"train", "--data", train, "--test-data", testPath, "--passes", "2", "--quiet", "--model", model}, tc.args...)...)
			if code != 0 {
				t.Fatal(stderr)
			}
			if strings.Count(stdout, tc.want) != 1 || !strings.Contains(stdout, "\ntest file "+testPath+": ") {
				t.Errorf("train says it %d times, want once %q:\n%s", strings.Count(stdout, tc.want), tc.want, stdout)
			}
			code, stdout, stderr = runBinary(t, "eval", "--model", model)
			if code != 0 || strings.Count(stdout, tc.want) != 1 {
				t.Errorf("eval: exit %d, says it %d times, want once:\n%s%s", code, strings.Count(stdout, tc.want), stdout, stderr)
			}
		})
	}
}

// TestTuneChecksBeforeTuning (issue 35 item 12): an output tune cannot
// write (a figure format it does not know) and grids or folds that mean
// nothing are refused before any tuning, with one line naming the flag.
func TestTuneChecksBeforeTuning(t *testing.T) {
	isolateData(t)
	dir := t.TempDir()
	svm := writeSVM(t, dir, 30, false)
	mulan := writeToyMULAN(t, dir)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--data", svm, "--figure", filepath.Join(dir, "x.bmp")}, `--figure: viz: unsupported file extension ".bmp"`},
		{[]string{"--data", svm, "--folds", "0"}, "--folds must be >= 2, got 0"},
		{[]string{"--data", svm, "--hold-out", "0"}, "--hold-out must be in (0, 1), got 0"},
		{[]string{"--data", svm, "--lambdas", ""}, "--lambdas: an empty grid"},
		{[]string{"--data", mulan, "--method", "soft", "--rhos", ""}, "--rhos: an empty grid"},
	} {
		start := time.Now()
		code, stdout, stderr := runBinary(t, append([]string{"tune", "--passes", "50"}, tc.args...)...)
		if code != 1 || stdout != "" || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want one line saying %q before tuning", tc.args, code, stdout, stderr, tc.want)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("%v: refused after %v", tc.args, d)
		}
	}
}

// TestOneFileAlone (issue 35 item 16): liblinear's heart_scale alone (no
// test file) trains without test losses, saying so in one line, and tune
// cross-validates it.
func TestOneFileAlone(t *testing.T) {
	isolateData(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(270, 13))
	var b strings.Builder
	for i := 0; i < 270; i++ {
		y := []string{"+1", "-1"}[i%2]
		b.WriteString(y)
		for f := 1; f <= 13; f++ {
			v := 2*rng.Float64() - 1
			if f <= 3 && y == "+1" {
				v = 0.5 + 0.5*rng.Float64()
			}
			fmt.Fprintf(&b, " %d:%.6f", f, v)
		}
		b.WriteString("\n")
	}
	heart := writeTestFile(t, filepath.Join(dir, "heart_scale"), []byte(b.String()))
	notice := "no test file beside " + heart + " (looked for heart_scale.t, heart_scale.t.gz): "
	code, stdout, stderr := runBinary(t, "train", "--data", heart, "--passes", "5", "--quiet")
	if code != 0 || !strings.Contains(stdout, "data svmlight: 270 training and no test examples, d = 28\n"+notice+"training without test losses\n") ||
		!strings.Contains(stdout, "test loss -") {
		t.Errorf("train: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runBinary(t, "tune", "--data", heart, "--folds", "5", "--passes", "5", "--quiet", "--lambdas", "0.1,0.01")
	if code != 0 || !strings.Contains(stdout, notice+"the final model is not tested\n") || !regexp.MustCompile(`\nchosen lambda = 0\.0?1 .*: error_rate [\d.]+ `).MatchString(stdout) {
		t.Errorf("tune --folds 5: exit %d\n%s%s", code, stdout, stderr)
	}
	// A test file named explicitly must exist.
	if code, _, stderr := runBinary(t, "train", "--data", heart, "--test-data", heart+".t", "--passes", "1"); code != 1 || !strings.Contains(stderr, "heart_scale.t") {
		t.Errorf("a missing --test-data: exit %d, %s", code, stderr)
	}
}

// reGoIdentifier matches what only Go code names: a package-qualified
// identifier (oracles.Multiclass, *oracles.Chain, SVMLightOptions.X) or
// a field of a library type.
var reGoIdentifier = regexp.MustCompile(`\*?\b[a-z]+\.[A-Z][A-Za-z]+|\b[A-Z][a-z]+[A-Z][A-Za-z]*\.[A-Z]|\b(CostRatio|CPTol|MaxFeatures|UpdateCost)\b|use pairwise steps`)

// TestLowClasses: the low-severity classes of issue 35 that reach the
// command line: errors in the flags' and the settings' words, not Go's;
// values used as printed; decimal numbers only in flags; hand-edited models
// with a null or a duplicate index refused.
func TestLowClasses(t *testing.T) {
	isolateData(t)
	dir := t.TempDir()
	svm := writeSVM(t, dir, 30, false)
	big := writeTestFile(t, filepath.Join(dir, "big.svm"), []byte("1 99999999:1\n2 1:1\n"))
	writeTestFile(t, big+".t", []byte("1 1:1\n"))
	t.Run("errors in words", func(t *testing.T) {
		for _, args := range [][]string{
			{"--data", "synthetic", "--synthetic-words", "5", "--method", "exact"},
			{"--data", "synthetic", "--synthetic-words", "5", "--method", "kernel-exact"},
			{"--data", big},
			{"--data", svm, "--method", "mp-bcfw", "--mp-rule", "cost"},
			{"--data", svm, "--method", "cp", "--cp-tol", "0"},
		} {
			code, _, stderr := runBinary(t, append([]string{"train", "--passes", "2"}, args...)...)
			if code == 0 || reGoIdentifier.MatchString(stderr) {
				t.Errorf("%v: exit %d, %q names Go identifiers", args, code, stderr)
			}
		}
	})
	t.Run("values as used", func(t *testing.T) {
		code, stdout, stderr := runBinary(t, "train", "--data", svm, "--method", "bcfw", "--batch", "1000000", "--passes", "2", "--quiet")
		if code != 0 || !strings.Contains(stdout, "execution mini-batch of 30, lookahead 0 (--batch 1000000 capped at n/(lookahead+1) = 30 blocks)") {
			t.Errorf("--batch 1000000: exit %d\n%s%s", code, stdout, stderr)
		}
		if code, _, stderr := runBinary(t, "train", "--data", svm, "--method", "cp", "--cp-cache", "-5", "--passes", "2"); code != 1 || !strings.Contains(stderr, "--cp-cache must be >= 0") {
			t.Errorf("--cp-cache -5: exit %d, %s", code, stderr)
		}
	})
	t.Run("decimal numbers", func(t *testing.T) {
		for _, tc := range []struct {
			args []string
			code int
			want string
		}{
			{[]string{"--lambda", "0x1p-2"}, 2, `--lambda "0x1p-2": want a decimal number`},
			{[]string{"--passes", "1_0"}, 2, `--passes "1_0": want a decimal number`},
			{[]string{"--method", "bcfw", "--seed", "0x10"}, 2, `--seed "0x10": want a non-negative decimal integer`},
			{[]string{"--workers", "0b1"}, 2, `--workers "0b1": want a decimal integer`},
			{[]string{"--checkpoint", filepath.Join(dir, "c"), "--checkpoint-every", "1_0"}, 1, `--checkpoint-every: want a positive duration`},
		} {
			code, _, stderr := runBinary(t, append([]string{"train", "--data", svm, "--passes", "2"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("%v: exit %d, %q; want %q", tc.args, code, stderr, tc.want)
			}
		}
		if code, _, stderr := runBinary(t, "tune", "--data", svm, "--lambdas", "0x1p-2,1_0"); code != 1 || !strings.Contains(stderr, `"0x1p-2" is not a positive number`) {
			t.Errorf("--lambdas 0x1p-2: exit %d, %s", code, stderr)
		}
	})
	t.Run("hand-edited models", func(t *testing.T) {
		linear, kern := filepath.Join(dir, "linear.json"), filepath.Join(dir, "kernel.json")
		for path, args := range map[string][]string{linear: nil, kern: {"--method", "kernel", "--kernel", "rbf", "--gamma", "1"}} {
			if code, _, stderr := runBinary(t, append([]string{"train", "--data", svm, "--passes", "3", "--quiet", "--model", path}, args...)...); code != 0 {
				t.Fatal(stderr)
			}
		}
		edit := func(path string, change func(m map[string]any)) string {
			var m map[string]any
			if err := json.Unmarshal(mustRead(t, path), &m); err != nil {
				t.Fatal(err)
			}
			change(m)
			b, _ := json.Marshal(m)
			return writeTestFile(t, path+".edited", b)
		}
		nullWeight := edit(linear, func(m map[string]any) { m["weights"].([]any)[1] = nil })
		dupIndex := edit(kern, func(m map[string]any) {
			sv := m["kernel_model"].(map[string]any)["support_vectors"].([]any)[0].(map[string]any)
			for k, v := range sv {
				if list, ok := v.([]any); ok && len(list) > 0 {
					sv[k] = []any{list[0], list[0]}
				}
			}
		})
		for name, path := range map[string]string{"a null weight": nullWeight, "a duplicate index": dupIndex} {
			code, _, stderr := runBinary(t, "eval", "--model", path)
			if code != 1 || strings.Count(stderr, "\n") != 1 || !(strings.Contains(stderr, "a null in an array") || strings.Contains(stderr, "indices must increase")) {
				t.Errorf("%s: exit %d, %q", name, code, stderr)
			}
		}
	})
}

// TestSignalWhileWaitingForAPipe (issue 35, low class): a run whose trace
// goes to a named pipe without a reader still stops on SIGINT and SIGTERM,
// at once, saying the pipe had no reader.
func TestSignalWhileWaitingForAPipe(t *testing.T) {
	isolateData(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "trace.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes:", err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			model := filepath.Join(dir, sig.String()+".json")
			cmd, out := startChild(t, "train", "--data", "synthetic", "--synthetic-words", "10", "--passes", "2", "--quiet", "--progress", "off",
				"--trace", fifo, "--model", model)
			deadline := time.Now().Add(time.Minute)
			for { // the run is over once the model is written; the trace waits for a reader
				if _, err := os.Stat(model); err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("no model after a minute: %s", out)
				}
				time.Sleep(10 * time.Millisecond)
			}
			time.Sleep(200 * time.Millisecond)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				var exit *exec.ExitError
				if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(out.String(), "a named pipe without a reader, and the wait for one was interrupted") {
					t.Fatalf("child: %v, output:\n%s", err, out)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%v ignored while waiting for the pipe's reader", sig)
			}
		})
	}
}

// TestEvalKeepsTheModelsClasses (issue 35 item 5): after the training
// labels {1,2} became {2,3}, eval rebuilt the classes from the current
// training file and reported another test loss, with no warning; the
// model now stores its classes, and eval of its test file gives the
// trace's test loss whatever became of the training file.
func TestEvalKeepsTheModelsClasses(t *testing.T) {
	isolateData(t)
	dir := t.TempDir()
	var train, test strings.Builder
	for i := 0; i < 40; i++ {
		c := 1 + i%2
		fmt.Fprintf(&train, "%d 1:%g 2:%g\n", c, float64(c)+0.1*float64(i%3), 0.2*float64(i%4))
		if i < 14 {
			fmt.Fprintf(&test, "%d 1:%g 2:%g\n", c, float64(c)+0.05*float64(i%5), 0.1*float64(i%3))
		}
	}
	svm := writeTestFile(t, filepath.Join(dir, "y.svm"), []byte(train.String()))
	writeTestFile(t, svm+".t", []byte(test.String()))
	model, trace := filepath.Join(dir, "m.json"), filepath.Join(dir, "trace.json")
	if code, _, stderr := runBinary(t, "train", "--data", svm, "--passes", "10", "--quiet", "--model", model, "--trace", trace); code != 0 {
		t.Fatal(stderr)
	}
	want := readTraceFile(t, trace)
	// The training labels become {2,3}.
	writeTestFile(t, svm, []byte(strings.NewReplacer("2 1:", "3 1:", "1 1:", "2 1:").Replace(train.String())))
	code, stdout, stderr := runBinary(t, "eval", "--model", model)
	if code != 0 || !strings.Contains(stdout, fmt.Sprintf("\ntest loss %.6f ", want[len(want)-1].TestLoss)) {
		t.Errorf("eval after the training labels changed: exit %d, want test loss %.6f:\n%s%s", code, want[len(want)-1].TestLoss, stdout, stderr)
	}
	if code, _, stderr := runBinary(t, "eval", "--model", model, "--set", "train"); code != 1 || !strings.Contains(stderr, "has changed since it was trained") {
		t.Errorf("eval --set train of the changed training file: exit %d, %s", code, stderr)
	}
}

// TestSplicedCheckpointRefused (issue 35 item 10): the header line of one
// valid checkpoint and the state of another of the same data (another
// lambda) do not resume: the state's method is checked against the
// header's.
func TestSplicedCheckpointRefused(t *testing.T) {
	dir := t.TempDir()
	ck := func(lambda string) []byte {
		path := filepath.Join(dir, "ck-"+lambda)
		if code, _, errOut := runCLIWithin(t, time.Minute, "train", "--data", "synthetic", "--synthetic-words", "20", "--method", "bcfw",
			"--lambda", lambda, "--passes", "2", "--quiet", "--checkpoint", path); code != 0 {
			t.Fatalf("lambda %s: exit %d, %s", lambda, code, errOut)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b := ck("0.01"), ck("0.5")
	header := a[:bytes.IndexByte(a, '\n')+1]
	state := b[bytes.IndexByte(b, '\n')+1:]
	spliced := filepath.Join(dir, "spliced")
	if err := os.WriteFile(spliced, append(append([]byte{}, header...), state...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLIWithin(t, time.Minute, "train", "--resume", spliced, "--passes", "4", "--quiet")
	if code == 0 || !strings.Contains(errOut, "corrupt checkpoint: its header and its state describe other methods") {
		t.Errorf("spliced checkpoint: exit %d, %q", code, errOut)
	}
}
