package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/internal/realdata"
	solverrun "github.com/fwstruct/fwstruct/solver/run"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = execute(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestTrainWritesTraceAndModel trains on synthetic data and checks the trace
// file (field names of the trace format, test loss present, certificate) and the
// model, which eval then reads back.
func TestTrainWritesTraceAndModel(t *testing.T) {
	dir := t.TempDir()
	trace, model := filepath.Join(dir, "trace.json"), filepath.Join(dir, "model.json")
	code, out, errOut := runCLI(t, "train", "--data", "synthetic", "--synthetic-words", "60", "--passes", "6",
		"--gap-every", "2", "--average", "wavg", "--trace", trace, "--model", model, "--seed", "3", "--method", "bcfw")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// Gap passes every 2 passes of block steps, each counted as a pass of
	// oracle calls (a point counts its own gap pass): evaluations at 0, 3 and
	// 6 effective passes.
	if got := strings.Count(out, "\npass "); got != 3 {
		t.Fatalf("want 3 evaluation lines (passes 0, 3, 6), got %d:\n%s", got, out)
	}
	raw, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var fields []map[string]any
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"pass", "oracle_calls", "seconds", "primal", "dual", "gap", "gap_estimate", "test_loss"} {
		if _, ok := fields[len(fields)-1][key]; !ok {
			t.Fatalf("trace point lacks %q: %v", key, fields[len(fields)-1])
		}
	}
	var points []solverrun.Point
	if err := json.Unmarshal(raw, &points); err != nil {
		t.Fatal(err)
	}
	last := points[len(points)-1]
	if last.Pass != 6 || last.Gap <= 0 || last.Gap >= points[0].Gap || last.Primal-last.Dual-last.Gap > 1e-9 {
		t.Fatalf("bad last point %+v", last)
	}
	// eval uses the averaged weights the run kept unless told otherwise:
	// each test loss is the trace's of those weights.
	for _, c := range []struct {
		args []string
		want float64
		says string
	}{
		{nil, last.TestLossAvg, "(averaged weights)"},
		{[]string{"--weights", "iterate"}, last.TestLoss, "(weights)"},
	} {
		code, out, errOut = runCLI(t, append([]string{"eval", "--model", model}, c.args...)...)
		if want := fmt.Sprintf("\ntest loss %.6f", c.want); code != 0 || !strings.Contains(out, want) || !strings.Contains(out, c.says) {
			t.Fatalf("eval %q: exit %d, want %q and %q: %s %s", c.args, code, want, c.says, out, errOut)
		}
	}
	if last.TestLoss == last.TestLossAvg {
		t.Fatalf("the iterate and the average have one test loss %v: the test cannot tell which eval used", last.TestLoss)
	}
	code, out, _ = runCLI(t, "eval", "--model", model, "--weights", "average", "--set", "train")
	if code != 0 || !strings.Contains(out, "(averaged weights)\ntrain set: ") || !strings.Contains(out, "\ntrain loss ") {
		t.Fatalf("eval --weights average exit %d: %s", code, out)
	}
	// A model without averaged weights has none to give.
	plain := filepath.Join(dir, "plain.json")
	if code, _, errOut := runCLI(t, "train", "--data", "synthetic", "--synthetic-words", "60", "--passes", "1", "--method", "bcfw", "--quiet", "--model", plain); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "eval", "--model", plain, "--weights", "average"); code != 1 || !strings.Contains(errOut, "has no averaged weights") {
		t.Fatalf("eval --weights average of a model without: exit %d, %s", code, errOut)
	}
}

// TestTrainMultiPlane trains with multi-plane BCFW and the cost rule: the
// method line shows the settings, the trace the multi-plane fields, and the
// run is reproducible.
func TestTrainMultiPlane(t *testing.T) {
	dir := t.TempDir()
	var traces [2][]map[string]any
	for k := range traces {
		trace := filepath.Join(dir, "trace.json")
		code, out, errOut := runCLI(t, "train", "--data", "synthetic", "--synthetic-words", "40", "--passes", "4", "--gap-every", "2",
			"--method", "mp-bcfw", "--mp-t", "5", "--mp-rule", "cost", "--mp-cost-ratio", "30", "--trace", trace, "--progress", "off")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if !strings.Contains(out, "method mp-bcfw (cost (ratio 30), gap_every 2, m 1000, n 1000, seed 0, step fw, t 5)") {
			t.Fatalf("header: %s", out)
		}
		raw, err := os.ReadFile(trace)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &traces[k]); err != nil {
			t.Fatal(err)
		}
		last := traces[k][len(traces[k])-1]
		for _, key := range []string{"approx_passes", "approx_passes_last", "working_set_mean"} {
			if _, ok := last[key]; !ok {
				t.Fatalf("trace point lacks %q: %v", key, last)
			}
		}
	}
	if len(traces[0]) != len(traces[1]) || traces[0][len(traces[0])-1]["dual"] != traces[1][len(traces[1])-1]["dual"] {
		t.Fatal("two runs with the cost rule differ")
	}
}

func TestCommandLineErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"format":"other"}`), 0o644)
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{nil, 2, "Usage"},
		{[]string{"frobnicate"}, 2, "unknown command"},
		{[]string{"train", "--data", "synthetic", "--lambda", "0"}, 1, "lambda"},
		{[]string{"train", "--data", "synthetic", "--method", "cg"}, 1, `--method "cg": unknown method (want auto, recommended, bcfw, `},
		{[]string{"train", "--data", "synthetic", "--sampling", "gap", "--method", "fw"}, 1, "--sampling does not apply to --method fw (a flag of --method recommended, bcfw, "},
		{[]string{"train", "--data", "synthetic", "--sampling", "gap", "--method", "ssg"}, 1, "--sampling does not apply to --method ssg"},
		{[]string{"train", "--data", "synthetic", "--passes", "0"}, 1, "at least one of"},
		{[]string{"train", "--data", "synthetic", "--method", "recommended", "--box-lower", "5000=0"}, 1, "coordinates"},
		{[]string{"train", "--data", "synthetic", "--split", "medium"}, 2, `--split "medium": want small or large`},
		{[]string{"train", "--data", "nowhere/letters.txt"}, 1, "not a readable path"},
		{[]string{"train", "--no-such-flag"}, 2, "unknown flag --no-such-flag"},
		{[]string{"eval"}, 2, "--model"},
		{[]string{"eval", "--model", bad}, 1, "format"},
		{[]string{"train", "--data", "synthetic", "--method", "mp-bcfw", "--sampling", "uniform"}, 1, "--sampling does not apply to --method mp-bcfw"},
		{[]string{"train", "--data", "synthetic", "--method", "mp-bcfw", "--mp-rule", "cost"}, 1, "--mp-cost-ratio must be positive and finite, got 0"},
		{[]string{"train", "--data", "synthetic", "--method", "mp-bcfw", "--mp-rule", "slope"}, 2, `--mp-rule "slope": want time or cost`},
		{[]string{"train", "--data", "synthetic", "--method", "mp-bcfw", "--cache"}, 1, "--cache does not apply to --method mp-bcfw"},
		{[]string{"download"}, 2, "download needs the name of a dataset"},
		{[]string{"download", "mnist"}, 1, "unknown dataset"},
	}
	for _, tc := range cases {
		code, out, errOut := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(out+errOut, tc.msg) {
			t.Errorf("%v: exit %d (want %d), output %q (want %q)", tc.args, code, tc.code, out+errOut, tc.msg)
		}
	}
}

func TestParseBounds(t *testing.T) {
	b, err := parseBounds("*=-1, 2-3=0,5=2.5", 6, 99)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{-1, -1, 0, 0, -1, 2.5}
	for j := range want {
		if b[j] != want[j] {
			t.Fatalf("bounds %v, want %v", b, want)
		}
	}
	for _, spec := range []string{"1", "a=1", "1=x", "3-1=0", "-1=0", "0-6=1", "1=NaN"} {
		if _, err := parseBounds(spec, 6, 0); err == nil {
			t.Errorf("parseBounds(%q) accepted", spec)
		}
	}
}

// TestDownloadFromMirror fetches OCR from a local server standing in for
// the public address.
func TestDownloadFromMirror(t *testing.T) {
	src := realdata.File(t, "ocr/letter.data.gz")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(data) }))
	defer srv.Close()
	dir := t.TempDir()
	code, out, errOut := runCLI(t, "download", "--dir", dir, "--base-url", srv.URL, "ocr")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "ocr", "letter.data.gz")); err != nil || !strings.Contains(out, "ready") {
		t.Fatalf("file not downloaded: %v %s", err, out)
	}
	t.Setenv("FWSTRUCT_DATA", "")
	code, out, errOut = runCLI(t, "train", "--data", "ocr", "--data-path", dir, "--passes", "1", "--gap-every", "1", "--quiet", "--no-test-loss")
	if code != 0 || !strings.Contains(out, "626 training") {
		t.Fatalf("training on the downloaded data: exit %d %s %s", code, out, errOut)
	}
}

func TestPathCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "path.json")
	code, stdout, errOut := runCLI(t, "path", "--data", "synthetic", "--synthetic-words", "30", "--epsilon", "0.3",
		"--lambda-min", "0.05", "--step", "pairwise", "--grid", "--weights", "--out", out, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(stdout, "breakpoints from lambda_inf") || !strings.Contains(stdout, "grid search (warm)") {
		t.Fatalf("unexpected output:\n%s", stdout)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res pathOutput
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	bps := res.Breakpoints
	if len(bps) < 2 || len(res.Grid["cold"]) == 0 || len(res.Grid["warm"]) != len(res.Grid["cold"]) {
		t.Fatalf("path JSON: %d breakpoints, grid %v", len(bps), len(res.Grid))
	}
	for j := 1; j < len(bps); j++ {
		if !(bps[j].Lambda < bps[j-1].Lambda) || bps[j].Passes < bps[j-1].Passes || bps[j].TrueGap == nil || *bps[j].TrueGap > 0.9*0.3 || len(bps[j].Weights) != 4082 {
			t.Fatalf("breakpoint %d: %+v", j, bps[j])
		}
	}
}

// TestReport draws the figures of two traces written by train.
func TestReport(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	for _, args := range [][]string{
		{"--trace", a, "--method", "bcfw"},
		{"--trace", b, "--method", "recommended", "--sampling", "gap", "--cache"},
	} {
		base := []string{"train", "--data", "synthetic", "--synthetic-words", "40", "--passes", "6", "--gap-every", "2", "--quiet"}
		if code, _, errOut := runCLI(t, append(base, args...)...); code != 0 {
			t.Fatal(errOut)
		}
	}
	out := filepath.Join(dir, "report")
	code, stdout, errOut := runCLI(t, "report", "--out", out, "--formats", "png,svg,html", a, "gap+cache="+b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got := strings.Count(stdout, "\n"); got != 18 {
		t.Fatalf("%d files written:\n%s", got, stdout)
	}
	html, err := os.ReadFile(filepath.Join(out, "gap-passes.html"))
	if err != nil || !strings.Contains(string(html), "gap+cache") {
		t.Fatalf("interactive figure missing the run name: %v", err)
	}
	// A run without a cache gets no (empty) cache-hit chart, and is told so.
	solo := filepath.Join(dir, "solo")
	code, stdout, errOut = runCLI(t, "report", "--out", solo, "--formats", "png", a)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(stdout, "cache-hits") || !strings.Contains(errOut, "cache-hits not drawn: not shown: a (no cache)") {
		t.Fatalf("report of a run without a cache:\nstdout %s\nstderr %s", stdout, errOut)
	}
	if _, err := os.Stat(filepath.Join(solo, "cache-hits.png")); err == nil {
		t.Fatal("an empty cache-hit chart was written")
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"not":"a trace"}`), 0o644)
	for _, args := range [][]string{{"report"}, {"report", bad}, {"report", "--formats", "gif", a}, {"report", filepath.Join(dir, "missing.json")}} {
		if code, _, _ := runCLI(t, args...); code == 0 {
			t.Errorf("%v succeeded", args)
		}
	}
}

// TestTrainSuffixAverage: --average tavg turns averaging on and the trace
// reports the suffix average's primal, dual and gap (a certificate);
// --average with the soft method or an unknown kind is refused.
func TestTrainSuffixAverage(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace.json")
	code, _, errOut := runCLI(t, "train", "--data", "synthetic", "--synthetic-words", "40", "--passes", "4",
		"--gap-every", "1", "--average", "tavg", "--trace", trace, "--method", "bcfw")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	raw, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var points []solverrun.Point
	if err := json.Unmarshal(raw, &points); err != nil {
		t.Fatal(err)
	}
	for k, p := range points {
		if math.IsNaN(p.GapAvg) || math.Abs(p.PrimalAvg-p.DualAvg-p.GapAvg) > 1e-9*(1+p.PrimalAvg) {
			t.Fatalf("point %d: averaged primal %v dual %v gap %v", k, p.PrimalAvg, p.DualAvg, p.GapAvg)
		}
	}
	for _, c := range []struct{ args []string }{
		{[]string{"train", "--data", "synthetic", "--average", "median"}},
		{[]string{"train", "--data", "synthetic", "--method", "soft", "--average", "tavg"}},
	} {
		if code, _, errOut := runCLI(t, c.args...); code == 0 || !strings.Contains(errOut, "--average") {
			t.Errorf("%v: exit %d, %q", c.args, code, errOut)
		}
	}
}

// TestHelpShowsWhatApplies: train --help lists the common flags under
// their headings and the methods, not a method's flags; train --method
// NAME --help the common flags and NAME's only (the executions NAME takes).
func TestHelpShowsWhatApplies(t *testing.T) {
	flags := func(help string) []string {
		var out []string
		for _, line := range strings.Split(help, "\n") {
			if strings.HasPrefix(line, "  --") {
				out = append(out, strings.Fields(line)[0])
			}
		}
		return out
	}
	_, _, all := runCLI(t, "train", "--help")
	for _, want := range []string{"\nMethod:\n", "\nData:\n", "\nStopping:\n", "\nOutput:\n", "\nExecution:\n", "\nMethods (", "\n  kernel-exact "} {
		if !strings.Contains(all, want) {
			t.Errorf("train --help does not show %q", want)
		}
	}
	common := flags(all)
	if len(common) != 34 || strings.Contains(all, "--sampling") || strings.Contains(all, "\nMethod recommended:") {
		t.Errorf("train --help lists %d flags (want the 34 common ones, no method's): %v", len(common), common)
	}
	_, _, exact := runCLI(t, "train", "--method", "exact", "--help")
	got := flags(exact)
	for _, name := range []string{"--sampling", "--shrinking", "--workers", "--passes"} {
		if !slices.Contains(got, name) {
			t.Errorf("train --method exact --help lacks %s", name)
		}
	}
	for _, name := range []string{"--batch", "--async", "--cache", "--step", "--kernel", "--oracle-accuracy"} {
		if slices.Contains(got, name) {
			t.Errorf("train --method exact --help lists %s, which exact does not have", name)
		}
	}
	if !strings.Contains(exact, "\nMethod exact:\n") || strings.Contains(exact, "\nMethods (") || len(got) != 35 {
		t.Errorf("train --method exact --help: %d flags %v", len(got), got)
	}
}
