package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// The regression tests of issue 22 (no false certificate, no clobbered
// file, every bad input a clear error) that concern the command: each runs
// the fwstruct binary (the test binary as main, see TestMain).

// runBinary runs fwstruct with args in a child process and returns its exit
// code and outputs.
func runBinary(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return code, out.String(), errOut.String()
}

// Item 1: an output named through a symbolic link replaces the link's
// target (the link stays a link), a character device is written, not
// replaced, and the temporary files a killed run left are removed by the
// next write.
func TestOutputsThroughLinksAndDevices(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	target := filepath.Join(other, "model.json")
	writeTestFile(t, target, []byte("stale"))
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	dev := "/dev/null"
	if os.Geteuid() == 0 { // a null device of our own: a regression replaces it, not the system's
		dev = filepath.Join(dir, "null")
		if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
			t.Skipf("mknod: %v", err)
		}
	}
	ck := filepath.Join(dir, "run.ckpt")
	stale := filepath.Join(dir, ".run.ckpt.12345.tmp") // what a SIGKILL during a checkpoint write leaves
	writeTestFile(t, stale, []byte("partial"))
	code, _, stderr := runBinary(t, "train", "--data", "synthetic", "--synthetic-words", "20", "--passes", "2", "--quiet",
		"--model", link, "--trace", dev, "--checkpoint", ck)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode().Type() != os.ModeSymlink {
		t.Errorf("--model link.json: the link became %v (%v)", fi.Mode(), err)
	}
	if _, err := readModel(target); err != nil {
		t.Errorf("the link's target was not written: %v", err)
	}
	if fi, err := os.Lstat(dev); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("--trace %s: the device became %v (%v)", dev, fi.Mode(), err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("the stale temporary file of the checkpoint is still there")
	}
	for _, d := range []string{dir, other} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".tmp") {
				t.Errorf("temporary file %s left in %s", e.Name(), d)
			}
		}
	}
}

// Item 6: a CSV file read with the wrong separator (one column) is
// refused at the line that shows it; a byte order mark is skipped.
func TestCSVWrongSeparator(t *testing.T) {
	dir := t.TempDir()
	semi := writeTestFile(t, filepath.Join(dir, "semi_train.csv"), []byte("a;b;y\n1;0;x\n0;1;y\n1;1;z\n"))
	writeTestFile(t, filepath.Join(dir, "semi_test.csv"), []byte("a;b;y\n1;0;x\n"))
	code, stdout, stderr := runBinary(t, "train", "--data", semi, "--passes", "1")
	want := `fwstruct train: csv: ` + semi + `:1: one column, but the row contains ";": is the field separator ";" rather than ","?`
	if code != 1 || stdout != "" || stderr != want+"\n" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and %q", code, stdout, stderr, want)
	}
	// Right separator: trains; with a byte order mark as Excel writes it.
	bom := writeTestFile(t, filepath.Join(dir, "bom_train.csv"), []byte("\ufeffa;b;y\n1;0;x\n0;1;y\n1;1;z\n"))
	writeTestFile(t, filepath.Join(dir, "bom_test.csv"), []byte("\ufeffa;b;y\n1;0;x\n"))
	code, stdout, stderr = runBinary(t, "train", "--data", bom, "--csv-comma", ";", "--passes", "1", "--quiet")
	if code != 0 || !strings.Contains(stdout, "3 training and 1 test examples, d = 9") {
		t.Errorf("with --csv-comma ';': exit %d\n%s%s", code, stdout, stderr)
	}
}

// Item 7: a label only the test file has is no class: d and the trained
// weights are those of the same training file with a test file without
// it, and its examples are counted as errors and reported.
func TestTestOnlyLabel(t *testing.T) {
	dir := t.TempDir()
	rows := "1 1:1 2:0.5\n2 2:1\n1 1:0.8\n2 1:0.1 2:0.9\n"
	train := writeTestFile(t, filepath.Join(dir, "a.svm"), []byte(rows))
	plain := writeTestFile(t, filepath.Join(dir, "plain.t"), []byte("1 1:1\n2 2:1\n"))
	extra := writeTestFile(t, filepath.Join(dir, "extra.t"), []byte("1 1:1\n2 2:1\n3 1:1 2:1\n7 2:2\n"))
	var models [2]*modelFile
	for k, test := range []string{plain, extra} {
		model := filepath.Join(dir, "model.json")
		code, stdout, stderr := runBinary(t, "train", "--data", train, "--test-data", test, "--passes", "5", "--quiet", "--model", model)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if !strings.Contains(stdout, ", d = 6\n") {
			t.Errorf("test file %s: d is not 3 features x 2 classes:\n%s", test, stdout)
		}
		note := "\ntest file " + test + ": 2 examples with a label the training data does not have (3, 7), counted as errors\n"
		if (k == 1) != strings.Contains(stdout, note) {
			t.Errorf("test file %s: the data line does not say %q as it should:\n%s", test, note, stdout)
		}
		var err error
		if models[k], err = readModel(model); err != nil {
			t.Fatal(err)
		}
		code, stdout, _ = runBinary(t, "eval", "--model", model)
		if k == 1 && (code != 0 || strings.Count(stdout, "2 examples with a label the training data does not have (3, 7), counted as errors") != 1) {
			t.Errorf("eval: exit %d, %s", code, stdout)
		}
	}
	if !slices.Equal(models[0].Weights, models[1].Weights) {
		t.Errorf("a test-only label changed the trained weights:\n%v\n%v", models[0].Weights, models[1].Weights)
	}
}

// Item 2: a checkpoint resumes only on the data it was taken on. The same
// svmlight path with every feature multiplied by -3 (same n, d and labels)
// resumed and printed a negative gap; now it is refused naming what
// differs, and eval refuses a model whose training file changed so.
func TestResumeRefusesScaledFeatures(t *testing.T) {
	dir := t.TempDir()
	rows := [][3]float64{{1, 1, 0.5}, {2, 0.2, 1}, {1, 0.8, 0.1}, {2, 0.1, 0.9}, {3, 0.7, 0.7}, {3, 0.6, 0.9}}
	write := func(scale float64) string {
		var b strings.Builder
		for _, r := range rows {
			fmt.Fprintf(&b, "%g 1:%g 2:%g\n", r[0], scale*r[1], scale*r[2])
		}
		writeTestFile(t, filepath.Join(dir, "toy.t"), []byte(b.String()))
		return writeTestFile(t, filepath.Join(dir, "toy"), []byte(b.String()))
	}
	train := write(1)
	ck, model := filepath.Join(dir, "run.ckpt"), filepath.Join(dir, "model.json")
	if code, _, stderr := runBinary(t, "train", "--data", train, "--passes", "3", "--quiet", "--checkpoint", ck, "--model", model); code != 0 {
		t.Fatal(stderr)
	}
	write(-3)
	code, stdout, stderr := runBinary(t, "train", "--resume", ck, "--passes", "6")
	want := "the checkpoint was taken on other data: this problem has the same size and labels but other features or losses"
	if code != 1 || !strings.Contains(stderr, want) || strings.Count(stderr, "\n") != 1 || strings.Contains(stdout, "gap") {
		t.Errorf("resume on scaled features: exit %d, stdout %q, stderr %q; want one line saying %q", code, stdout, stderr, want)
	}
	code, _, stderr = runBinary(t, "eval", "--model", model, "--set", "train")
	if code != 1 || !strings.Contains(stderr, "has changed since it was trained: it now has the same size and labels but other features") {
		t.Errorf("eval on scaled features: exit %d, stderr %q", code, stderr)
	}
	// The test file (changed alike) is scored, with a warning.
	code, _, stderr = runBinary(t, "eval", "--model", model)
	if code != 0 || !strings.Contains(stderr, "warning: the test set "+train+".t has changed since the model was trained") {
		t.Errorf("eval of the changed test file: exit %d, stderr %q", code, stderr)
	}
	write(1)
	if code, _, stderr := runBinary(t, "train", "--resume", ck, "--passes", "6", "--quiet"); code != 0 {
		t.Errorf("resume on the original data: exit %d, %s", code, stderr)
	}
}

// Item 3: single-bit flips anywhere in a checkpoint (its header line or
// the solver's state) are refused; 14 of 20 resumed before, 7 with other
// weights.
func TestResumeRefusesBitFlips(t *testing.T) {
	dir := t.TempDir()
	train := writeTestFile(t, filepath.Join(dir, "toy"), []byte("1 1:1 2:0.5\n2 1:0.2 2:1\n1 1:0.8 2:0.1\n3 1:0.7 2:0.7\n"))
	writeTestFile(t, filepath.Join(dir, "toy.t"), []byte("1 1:1\n2 2:1\n"))
	ck := filepath.Join(dir, "run.ckpt")
	if code, _, stderr := runBinary(t, "train", "--data", train, "--passes", "3", "--quiet", "--checkpoint", ck); code != 0 {
		t.Fatal(stderr)
	}
	saved, err := os.ReadFile(ck)
	if err != nil {
		t.Fatal(err)
	}
	header := bytes.IndexByte(saved, '\n')
	flipped := filepath.Join(dir, "flipped.ckpt")
	for k := 0; k < 24; k++ {
		pos := k * header / 12 // half in the header line, half in the state
		if k >= 12 {
			pos = header + 1 + (k-12)*(len(saved)-header-1)/12
		}
		b := slices.Clone(saved)
		b[pos] ^= 1 << (k % 8)
		writeTestFile(t, flipped, b)
		code, stdout, stderr := runBinary(t, "train", "--resume", flipped, "--passes", "5", "--quiet")
		if code == 0 || strings.Count(stderr, "\n") != 1 {
			t.Errorf("byte %d of %d, bit %d flipped: exit %d, stdout %q, stderr %q", pos, len(saved), k%8, code, stdout, stderr)
		}
	}
}

// fullDevice returns a character device on which every write fails with
// "no space left on device": a device of our own when root, else /dev/full.
func fullDevice(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		if _, err := os.Stat("/dev/full"); err != nil {
			t.Skip("no /dev/full")
		}
		return "/dev/full"
	}
	dev := filepath.Join(t.TempDir(), "full")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|7); err != nil {
		t.Skipf("mknod: %v", err)
	}
	return dev
}

// Item 8: a run stopped by a failed checkpoint write says so in its
// summary (not "done (passes) ... did not fit"), still writes its model
// and exits with the write error.
func TestCheckpointWriteErrorStopReason(t *testing.T) {
	model := filepath.Join(t.TempDir(), "model.json")
	code, stdout, stderr := runBinary(t, "train", "--data", "synthetic", "--synthetic-words", "20", "--passes", "5", "--quiet",
		"--checkpoint", fullDevice(t), "--checkpoint-every", "1", "--model", model)
	if code != 1 || !strings.Contains(stdout, "stopped on the checkpoint write error after 1.0 passes") ||
		strings.Contains(stdout, "done (") || !strings.Contains(stderr, "no space left on device") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr: %s", code, stdout, stderr)
	}
	if m, err := readModel(model); err != nil || m.Passes != 1 {
		t.Errorf("model of the stopped run: %v", err)
	}
}

// Items 10 and 12: every flag given explicitly that the run does not use
// is refused, in one line naming it and what it applies to (a flag of
// another method: the method given and those that have it); the messages
// name the real conflict (not an unknown method, not sampling).
func TestUnusedFlagsRefused(t *testing.T) {
	dir := t.TempDir()
	csv := writeTestFile(t, filepath.Join(dir, "toy_train.csv"), []byte("a,b,y\n1,0,x\n0,1,y\n1,1,x\n"))
	writeTestFile(t, filepath.Join(dir, "toy_test.csv"), []byte("a,b,y\n1,0,x\n"))
	syn := []string{"train", "--data", "synthetic", "--synthetic-words", "10", "--passes", "1", "--quiet"}
	cases := []struct {
		args []string
		want string
	}{
		{append(syn, "--method", "recommended", "--rho", "2"), "--rho does not apply to --method recommended (a flag of --method auto or soft)"},
		{append(syn, "--lambda", "1", "--rho", "2"), "auto: soft constraints (rho 2) need factor-graph data"},
		{append(syn, "--method", "recommended", "--gamma", "1"), "--gamma does not apply to --method recommended (a flag of --method auto, kernel, kernel-fw or kernel-exact)"},
		{[]string{"train", "--data", csv, "--method", "kernel", "--kernel", "linear", "--gamma", "1"}, "--gamma applies to --kernel rbf and poly only"},
		{[]string{"train", "--data", csv, "--method", "kernel", "--kernel", "rbf", "--gamma", "1", "--mp-n", "5"}, "--mp-n does not apply to --method kernel (a flag of --method mp-bcfw)"},
		{append(syn, "--method", "soft", "--mp-t", "3"), "--mp-t does not apply to --method soft (a flag of --method mp-bcfw)"},
		{append(syn, "--method", "soft", "--kernel", "rbf"), "--kernel does not apply to --method soft (a flag of --method auto, kernel, kernel-fw or kernel-exact)"},
		{append(syn, "--method", "cp", "--mp-m", "3"), "--mp-m does not apply to --method cp"},
		{append(syn, "--method", "fw", "--seed", "3"), "--seed does not apply to --method fw"},
		{append(syn, "--method", "fw", "--cache"), "--cache does not apply to --method fw (a flag of --method recommended, bcfw or lp-hard)"},
		{append(syn, "--method", "ssg", "--step-size", "line"), "--step-size does not apply to --method ssg (a flag of --method fw, kernel or kernel-fw)"},
		{append(syn, "--method", "bcfw", "--cache-size", "3"), "--cache-size needs the cache (--cache)"},
		{append(syn, "--method", "mp-bcfw", "--average", "wavg"), "--average does not apply to --method mp-bcfw"},
		{append(syn, "--method", "mp-bcfw", "--mp-cost-ratio", "5"), "--mp-cost-ratio needs --mp-rule cost"},
		{append(syn, "--cp-tol", "0.1"), "--cp-tol does not apply to --method auto (a flag of --method cp)"},
		{append(syn, "--kernel-cache", "10"), "--kernel-cache does not apply to --method auto (a flag of --method kernel or kernel-exact)"},
		{append(syn, "--split", "large"), "--split applies to ocr data only, not synthetic"},
		{append(syn, "--csv-comma", ";"), "--csv-comma applies to csv data only, not synthetic"},
		{[]string{"train", "--data", csv, "--synthetic-seed", "4"}, "--synthetic-seed applies to synthetic data only, not csv"},
		{[]string{"train", "--data", csv, "--index-base", "1"}, "--index-base applies to svmlight data only, not csv"},
		{append(syn, "--early-check", "0.5"), "--early-check needs --gap-tol"},
		{[]string{"path", "--data", "synthetic", "--method", "soft"}, "--method soft: path runs recommended, bcfw, mp-bcfw or exact only"},
		{[]string{"path", "--data", "synthetic", "--method", "exact", "--cache"}, "--cache does not apply to --method exact (a flag of --method recommended or bcfw)"},
		{[]string{"path", "--data", "synthetic", "--lambda", "0.1"}, "--lambda applies to train only"},
		{[]string{"path", "--data", "synthetic", "--oracle-accuracy", "0.5"}, "--oracle-accuracy applies to train only"},
		{[]string{"path", "--data", "synthetic", "--true-gaps"}, "--true-gaps needs --heuristic"},
		{[]string{"path", "--data", "synthetic", "--batch", "2"}, "--batch applies to train only (the steps here are sequential"},
		{[]string{"path", "--data", "synthetic", "--weights"}, "--weights needs --out FILE"},
	}
	for _, tc := range cases {
		code, stdout, stderr := runBinary(t, tc.args...)
		if code != 1 || stdout != "" || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want one line saying %q", tc.args[len(tc.args)-2:], code, stdout, stderr, tc.want)
		}
	}
	// eval reads the data as the model says: it has no data flags.
	model := filepath.Join(dir, "m.json")
	if code, _, stderr := runBinary(t, "train", "--data", csv, "--passes", "1", "--quiet", "--model", model); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := runBinary(t, "eval", "--model", model, "--split", "large"); code != 2 || !strings.Contains(stderr, "unknown flag --split") {
		t.Errorf("eval --split on csv data: exit %d, %s", code, stderr)
	}
}

// Item 11: a flag error is one line: the flag, the value, what it wants
// and a hint to --help (not the whole usage); exit status 2.
func TestFlagErrorsOneLine(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"train", "--passes", "ten"}, `fwstruct train: --passes "ten": want a decimal number (fwstruct train --help lists the flags)`},
		{[]string{"train", "--pases", "3"}, `fwstruct train: unknown flag --pases; did you mean --passes? (fwstruct train --help lists the flags)`},
		{[]string{"train", "--time", "5"}, `fwstruct train: --time "5": want a duration such as 30s, 5m or 1h30m`},
		{[]string{"train", "--seed", "-1"}, `fwstruct train: --seed "-1": want a non-negative decimal integer`},
		{[]string{"train", "--workers", "2.5"}, `fwstruct train: --workers "2.5": want a decimal integer`},
		{[]string{"train", "--method", "recommended", "--cache=maybe"}, `fwstruct train: --cache "maybe": want true or false`},
		{[]string{"train", "--method", "exact", "--sampling", "gap-in-order"}, `fwstruct train: --sampling "gap-in-order": want uniform, perm or gap`},
		{[]string{"train", "--passes"}, `fwstruct train: --passes needs a value: a decimal number`},
		{[]string{"eval", "--model"}, `fwstruct eval: --model needs a value: FILE`},
		{[]string{"train", "extra"}, `fwstruct train: unexpected argument "extra": flags start with --`},
		{[]string{"path", "--epsilon", "x"}, `fwstruct path: --epsilon "x": want a decimal number (fwstruct path --help lists the flags)`},
		{[]string{"report", "--width", "wide", "t.json"}, `fwstruct report: --width "wide": want a decimal integer`},
		{[]string{"download", "--timeout", "soon", "ocr"}, `fwstruct download: --timeout "soon": want a duration`},
	}
	for _, tc := range cases {
		code, stdout, stderr := runBinary(t, tc.args...)
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line starting %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
	// -h still prints the whole usage, on stderr, with status 0.
	if code, _, stderr := runBinary(t, "train", "-h"); code != 0 || !strings.Contains(stderr, "Usage: fwstruct train") || strings.Count(stderr, "\n") < 50 {
		t.Errorf("train -h: exit %d, %d lines", code, strings.Count(stderr, "\n"))
	}
}

// Item 12: resuming with the value a flag took from the default method
// (auto's multi-plane BCFW for a chain) is no difference; another value is.
func TestResumeWithPresetValues(t *testing.T) {
	ck := filepath.Join(t.TempDir(), "run.ckpt")
	if code, _, stderr := runBinary(t, "train", "--data", "synthetic", "--synthetic-words", "20", "--passes", "2", "--quiet", "--checkpoint", ck); code != 0 {
		t.Fatal(stderr)
	}
	// The chosen method's values: pairwise steps, the cost rule with the
	// ratio counted for the chain (16 for the synthetic words).
	if code, stdout, stderr := runBinary(t, "train", "--resume", ck, "--passes", "3", "--quiet", "--step", "pairwise", "--mp-rule", "cost", "--mp-cost-ratio", "16"); code != 0 {
		t.Errorf("the chosen method's own values refused: exit %d %s%s", code, stdout, stderr)
	}
	code, _, stderr := runBinary(t, "train", "--resume", ck, "--passes", "4", "--quiet", "--step", "fw")
	if want := `--step "fw" differs from the checkpoint's "pairwise"`; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("another step: exit %d, %q; want %q", code, stderr, want)
	}
}

// Item 13: training data of one class is refused (it would train to
// "converged, gap 0" and predict that class always).
func TestOneClassRefused(t *testing.T) {
	dir := t.TempDir()
	train := writeTestFile(t, filepath.Join(dir, "one_train.csv"), []byte("a,b,y\n1,0,x\n0,1,x\n"))
	writeTestFile(t, filepath.Join(dir, "one_test.csv"), []byte("a,b,y\n1,0,x\n0,1,z\n"))
	code, stdout, stderr := runBinary(t, "train", "--data", train, "--passes", "1")
	if want := `every training example has label "x": one class, nothing to learn`; code != 1 || stdout != "" || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stdout %q, stderr %q; want %q", code, stdout, stderr, want)
	}
}
