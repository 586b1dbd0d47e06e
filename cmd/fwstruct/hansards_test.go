package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
)

// TestHansardsCommands trains the word-alignment model with fwstruct train
// on a synthetic corpus in the Hansards formats, found through
// $FWSTRUCT_DATA as the real data would be, and evaluates it with
// fwstruct eval, which prints AER, precision and recall; the intersected
// training set is named as such.
func TestHansardsCommands(t *testing.T) {
	root := isolateData(t)
	if err := datasets.WriteSyntheticHansards(filepath.Join(root, "hansards"), datasets.SyntheticHansardsConfig{Gold: 110, Unaligned: 5000, MaxWords: 4, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	model := filepath.Join(dir, "model.json")
	code, out, errOut := runCLI(t, "train", "--data", "hansards", "--lambda", "0.01", "--passes", "20", "--quiet", "--model", model)
	if code != 0 || !strings.Contains(out, "data hansards: 100 training and 10 test examples, d = 86") {
		t.Fatalf("train: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "eval", "--model", model)
	metrics := regexp.MustCompile(`(?m)^test loss [\d.]+ \(hansards, 10 examples\)\n  AER +([\d.]+)\n  precision +([\d.]+)\n  recall +([\d.]+)\n$`)
	m := metrics.FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("eval: exit %d\n%s%s", code, out, errOut)
	}
	if aer, _ := strconv.ParseFloat(m[1], 64); !(aer < 0.3) { // 20 passes on the synthetic corpus align most words
		t.Errorf("AER %s after 20 passes on the synthetic corpus", m[1])
	}
	code, out, errOut = runCLI(t, "train", "--data", "hansards-intersected", "--lambda", "0.01", "--passes", "2", "--quiet")
	if code != 0 || !strings.Contains(out, "data hansards-intersected: 5000 training and 10 test examples, d = 86") {
		t.Fatalf("train intersected: exit %d\n%s%s", code, out, errOut)
	}
	// A path names the folder, used as given.
	code, out, errOut = runCLI(t, "train", "--data", filepath.Join(root, "hansards"), "--passes", "1", "--quiet")
	if code != 0 || !strings.Contains(out, ": 100 training and 10 test examples, d = 86") {
		t.Fatalf("train by path: exit %d\n%s%s", code, out, errOut)
	}
	code, _, errOut = runCLI(t, "train", "--data", "hansards", "--data-path", dir, "--passes", "1", "--quiet")
	if code != 1 || !strings.Contains(errOut, dir) || !strings.Contains(errOut, "holds neither test.e") {
		t.Fatalf("a folder without the data: exit %d, %s", code, errOut)
	}
}
