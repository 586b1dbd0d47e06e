package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/internal/gendata"
)

// TestRun runs every experiment on a small generated multi-label problem
// and checks that the figures, traces and tables are written.
func TestRun(t *testing.T) {
	train, err := gendata.MultiLabel(12, 4, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	test, err := gendata.MultiLabel(8, 4, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	o := options{lambda: 0.05, out: dir, exps: []string{"ref", "fig1", "rho", "fig2"}, softPasses: 6, hardPasses: 4, refPasses: 5, trace: 1, sampling: "uniform",
		sweep: []float64{0.1, 1}, budgets: []float64{2, 4}}
	var out bytes.Buffer
	if err := experiments(context.Background(), train, test, o, &out); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"fig1-left.png", "fig1-right.png", "fig2-objective.png", "fig2-accuracy.png", "lp-hard-bcfw.json", "exact-bcfw.json", "soft-rho1.json"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Fatalf("%s: %v", f, err)
		}
	}
	for _, want := range []string{"hamming_loss", "example_f1", "within 1%", "soft rho=10", "its own objective", "g* in ["} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("output lacks %q:\n%s", want, out.String())
		}
	}
	if err := experiments(context.Background(), train, test, options{out: dir, sampling: "nope"}, &out); err == nil {
		t.Fatal("unknown sampling accepted")
	}
	data := &datasets.MultiLabelData{Features: []string{"a", "b", "c"}, Labels: []string{"p", "q", "r", "s"}}
	for m := 0; m < train.Len(); m++ {
		data.X = append(data.X, train.Inputs(m)[0])
		data.Y = append(data.Y, train.Truth(m))
	}
	out.Reset()
	if err := crossValidate(context.Background(), data, []float64{0.01, 0.1}, 3, 2, &out); err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.String(), "Hamming loss") != 2 {
		t.Fatalf("cross-validation output:\n%s", out.String())
	}
}
