package main

import (
	"bytes"
	"errors"
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
		note := "4 test examples (2 with a label the training data does not have, counted as errors)"
		if (k == 1) != strings.Contains(stdout, note) {
			t.Errorf("test file %s: the data line does not say %q as it should:\n%s", test, note, stdout)
		}
		var err error
		if models[k], err = readModel(model); err != nil {
			t.Fatal(err)
		}
		code, stdout, _ = runBinary(t, "eval", "--model", model)
		if k == 1 && (code != 0 || !strings.Contains(stdout, "(2 with a label the training data does not have, counted as errors)")) {
			t.Errorf("eval: exit %d, %s", code, stdout)
		}
	}
	if !slices.Equal(models[0].Weights, models[1].Weights) {
		t.Errorf("a test-only label changed the trained weights:\n%v\n%v", models[0].Weights, models[1].Weights)
	}
}
