package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	solverrun "github.com/fwstruct/fwstruct/solver/run"
)

// TestEvalNeedsOnlyTheModel: the model records the data options (scaling,
// bias, label column, separator, test file by a relative path, synthetic
// parameters...) and what the training file fixes (classes, features,
// scaler), so that eval, run from another folder with no data flag and
// without the training file, scores the test file as the run did: its
// test loss is the one the trace recorded (issue 35 item 5). --data names
// another file; the training data changed since is refused by --set train.
func TestEvalNeedsOnlyTheModel(t *testing.T) {
	isolateData(t)
	dir := t.TempDir()
	var rows strings.Builder
	rows.WriteString("f1;class;f2\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&rows, "%d;c%d;%g\n", 10*(i%4), i%3, float64(i%7)/3)
	}
	writeTestFile(t, filepath.Join(dir, "data", "mine.txt"), []byte(rows.String()))
	writeTestFile(t, filepath.Join(dir, "data", "held-out.txt"), []byte(strings.Join(strings.Split(rows.String(), "\n")[:20], "\n")+"\n"))
	cases := []struct {
		name string
		args []string
	}{
		{"csv", []string{"--data", "csv", "--data-path", "data/mine.txt", "--test-data", "data/held-out.txt", "--csv-comma", ";",
			"--label-column", "class", "--scale", "minmax", "--no-bias"}},
		{"synthetic", []string{"--data", "synthetic", "--synthetic-words", "25", "--synthetic-seed", "9", "--synthetic-noise", "0.2"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(dir)
			model, trace := filepath.Join(dir, tc.name+"-model.json"), filepath.Join(dir, tc.name+"-trace.json")
			code, _, errOut := runCLI(t, append([]string{"train", "--passes", "3", "--quiet", "--model", model, "--trace", trace}, tc.args...)...)
			if code != 0 {
				t.Fatal(errOut)
			}
			points := readTraceFile(t, trace)
			want := fmt.Sprintf("\ntest loss %.6f ", usedTestLoss(points[len(points)-1]))
			t.Chdir(t.TempDir())
			code, out, errOut := runCLI(t, "eval", "--model", model)
			if code != 0 || !strings.Contains(out, want) || errOut != "" {
				t.Fatalf("eval: exit %d, %q %s; want %q", code, out, errOut, want)
			}
		})
	}
	model := filepath.Join(dir, "csv-model.json")
	mine := filepath.Join(dir, "data", "mine.txt")
	// Another file given to eval: the training file as a test set.
	code, out, errOut := runCLI(t, "eval", "--model", model, "--data", mine)
	if code != 0 || !strings.Contains(out, "\ntest set: "+mine+" (csv, 40 examples)\n") {
		t.Errorf("eval --data: exit %d, %q %s", code, out, errOut)
	}
	// The training file is not needed to score the test file.
	if err := os.Rename(mine, mine+".away"); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCLI(t, "eval", "--model", model); code != 0 || !strings.Contains(out, "test loss") {
		t.Errorf("eval without the training file: exit %d, %q %s", code, out, errOut)
	}
	// The training data changed since: its set is refused.
	os.WriteFile(mine, []byte(strings.Replace(rows.String(), ";c0;", ";c1;", 1)), 0o644)
	code, _, errOut = runCLI(t, "eval", "--model", model, "--set", "train")
	if code != 1 || !strings.Contains(errOut, "has changed since it was trained") {
		t.Errorf("changed data: exit %d, %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "eval", "--model", model, "--set", "train", "--data", mine); code != 1 || !strings.Contains(errOut, "--set chooses one of the model's own files") {
		t.Errorf("--set with --data: exit %d, %s", code, errOut)
	}
}

// TestEvalNamesWhatItEvaluates, through the binary: eval says which model
// (and which of its weights, which method) it evaluates on which file, the test file
// beside a MULAN training file named as the data (not the training file),
// the training file with --set train, and labels each block of results
// by its prediction.
func TestEvalNamesWhatItEvaluates(t *testing.T) {
	isolateData(t)
	dir := t.TempDir()
	train := writeToyMULAN(t, dir)
	test := strings.Replace(train, "-train.arff", "-test.arff", 1)
	model := filepath.Join(dir, "model.json")
	if code, _, errOut := runBinary(t, "train", "--data", train, "--method", "soft", "--lambda", "0.05", "--passes", "2", "--quiet", "--model", model); code != 0 {
		t.Fatal(errOut)
	}
	code, out, errOut := runBinary(t, "eval", "--model", model)
	if code != 0 {
		t.Fatal(errOut)
	}
	lines := strings.Split(out, "\n")
	n := regexp.MustCompile(`\(mulan, (\d+) examples\)$`).FindStringSubmatch(lines[1])
	if len(lines) < 4 || lines[0] != "model:    "+model+" (weights)" || n == nil || lines[1] != "test set: "+test+" (mulan, "+n[1]+" examples)" {
		t.Fatalf("eval's header:\n%s", out)
	}
	// The method the model records, read from it.
	if !strings.HasPrefix(lines[2], "method:   soft (") || !strings.HasSuffix(lines[2], "), lambda 0.05, 2.0 passes") {
		t.Errorf("eval's method line %q", lines[2])
	}
	blocks := regexp.MustCompile(`(?m)^test loss [\d.]+ \((.*)\)$`).FindAllStringSubmatch(out, -1)
	if len(blocks) != 2 || blocks[0][1] != "exact MAP, mulan, "+n[1]+" examples" || blocks[1][1] != "LP + rounding, mulan, "+n[1]+" examples" {
		t.Fatalf("eval's blocks %q:\n%s", blocks, out)
	}
	if strings.Contains(out, train) {
		t.Errorf("eval of the test set names the training file:\n%s", out)
	}
	code, out, errOut = runBinary(t, "eval", "--model", model, "--set", "train")
	if code != 0 || !strings.Contains(out, "\ntrain set: "+train+" (mulan, ") || !strings.Contains(out, "\ntrain loss ") {
		t.Fatalf("eval --set train: exit %d, %s %s", code, out, errOut)
	}
	// Data without files of its own says so.
	synth := filepath.Join(dir, "synthetic.json")
	if code, _, errOut := runBinary(t, "train", "--data", "synthetic", "--synthetic-words", "20", "--passes", "1", "--quiet", "--model", synth); code != 0 {
		t.Fatal(errOut)
	}
	if code, out, _ := runBinary(t, "eval", "--model", synth); code != 0 || !strings.Contains(out, "\ntest set: synthetic, 20 examples (the dataset's test split, no file of its own)\n") {
		t.Fatalf("synthetic: exit %d, %s", code, out)
	}
}

// usedTestLoss is the test loss a trace point records of the weights eval
// and predict use by default: the averaged iterate's when the run kept
// one, else the iterate's.
func usedTestLoss(p solverrun.Point) float64 {
	if !math.IsNaN(p.TestLossAvg) {
		return p.TestLossAvg
	}
	return p.TestLoss
}
