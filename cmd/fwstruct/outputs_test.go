package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
)

// hookWriter calls fn with everything written so far after every write.
type hookWriter struct {
	buf bytes.Buffer
	fn  func(string)
}

func (h *hookWriter) Write(p []byte) (int, error) {
	n, err := h.buf.Write(p)
	h.fn(h.buf.String())
	return n, err
}

// TestOutputsCheckedBeforeTraining: an output that cannot be written fails
// the command before anything is loaded or trained, naming its flag.
func TestOutputsCheckedBeforeTraining(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "such", "folder", "x.json")
	same := filepath.Join(dir, "same.json")
	train := []string{"train", "--data", "synthetic", "--synthetic-words", "20", "--passes", "1"}
	cases := []struct {
		args []string
		want string
	}{
		{append(train, "--trace", missing), "--trace: cannot write " + missing},
		{append(train, "--model", dir), "--model: cannot write " + dir + ": it is a folder"},
		{append(train, "--checkpoint", missing), "--checkpoint: cannot write"},
		{append(train, "--trace", same, "--model", same), "--trace and --model name the same file"},
		{[]string{"path", "--data", "synthetic", "--out", missing}, "--out: cannot write"},
	}
	for _, tc := range cases {
		code, out, errOut := runCLI(t, tc.args...)
		if code != 1 || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", tc.args[len(tc.args)-2:], code, out, errOut, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

// TestModelWrittenWhenTraceCannotBe: the trace's folder disappears while
// training; the model is still written (whole: it parses), the error says
// which output failed, and no temporary file is left.
func TestModelWrittenWhenTraceCannotBe(t *testing.T) {
	dir := t.TempDir()
	traceDir := filepath.Join(dir, "traces")
	os.Mkdir(traceDir, 0o755)
	model, trace := filepath.Join(dir, "model.json"), filepath.Join(traceDir, "trace.json")
	stdout := &hookWriter{fn: func(s string) {
		if strings.Contains(s, "done (") {
			os.RemoveAll(traceDir)
		}
	}}
	var stderr bytes.Buffer
	code := execute(context.Background(), []string{"train", "--data", "synthetic", "--synthetic-words", "20", "--passes", "2", "--quiet",
		"--model", model, "--trace", trace}, stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "write trace") || strings.Contains(stderr.String(), "write model") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	if _, err := readModel(model); err != nil {
		t.Fatalf("model not written: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

// TestSummaryDescribesTheFinalIterate: whatever stops the run (a pass
// budget, with or without the cache, a time budget too short for a single
// step), the summary line, the last trace point and the model describe the
// same final iterate, with values that were computed: the primal equals an
// independent evaluation of the model's weights, the gap is primal minus
// dual, the test loss is what eval computes, and the passes never exceed
// the budget (the plain solver ends exactly at it).
func TestSummaryDescribesTheFinalIterate(t *testing.T) {
	train, test, err := datasets.SyntheticOCR(datasets.SyntheticConfig{TrainWords: 30, TestWords: 30, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		args   []string
		passes func(float64) bool
	}{
		{"passes-paper", []string{"--passes", "5", "--gap-every", "2", "--method", "bcfw"}, func(p float64) bool { return p == 5 }},
		{"passes-recommended", []string{"--passes", "7", "--gap-every", "3"}, func(p float64) bool { return p > 6 && p <= 7 }},
		{"passes-unaligned", []string{"--passes", "4.5", "--method", "bcfw"}, func(p float64) bool { return p == 4.5 }},
		{"time-1ns", []string{"--time", "1ns", "--passes", "0"}, func(p float64) bool { return p == 0 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			model, trace := filepath.Join(dir, "model.json"), filepath.Join(dir, "trace.json")
			args := append([]string{"train", "--data", "synthetic", "--synthetic-words", "30", "--lambda", "0.05",
				"--model", model, "--trace", trace}, tc.args...)
			code, out, errOut := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			m, err := readModel(model)
			if err != nil {
				t.Fatal(err)
			}
			points := readTraceFile(t, trace)
			last := points[len(points)-1]
			if !tc.passes(m.Passes) || last.Pass != m.Passes {
				t.Fatalf("model at %v passes, last trace point at %v", m.Passes, last.Pass)
			}
			primal := oraclestest.Primal(train, 0.05, m.Weights)
			if math.Abs(last.Primal-primal) > 1e-9 || math.Abs(last.Gap-(last.Primal-last.Dual)) > 1e-9 || m.Gap == nil || *m.Gap != last.Gap {
				t.Fatalf("last point %+v; independent primal %v; model gap %v", last, primal, m.Gap)
			}
			if testLoss := oracles.MeanLoss(test, m.Weights); math.Abs(last.TestLoss-testLoss) > 1e-12 {
				t.Fatalf("trace test loss %v, eval's %v", last.TestLoss, testLoss)
			}
			if m.AverageWeights != nil {
				if testLoss := oracles.MeanLoss(test, m.AverageWeights); math.Abs(last.TestLossAvg-testLoss) > 1e-12 {
					t.Fatalf("trace test loss of the average %v, its weights' %v", last.TestLossAvg, testLoss)
				}
			}
			_, evalOut, _ := runCLI(t, "eval", "--model", model)
			if want := fmt.Sprintf("\ntest loss %.6f ", usedTestLoss(last)); !strings.Contains(evalOut, want) {
				t.Fatalf("eval printed %q, want %q", evalOut, want)
			}
			summary := out[strings.Index(out, "done ("):]
			for _, want := range []string{"gap " + fmtFloat(last.Gap), "primal " + fmtFloat(last.Primal), "test loss " + fmtFloat(last.TestLoss)} {
				if !strings.Contains(summary, want) {
					t.Fatalf("summary %q does not say %q", summary, want)
				}
			}
		})
	}
}
