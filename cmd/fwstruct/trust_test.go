package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
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
