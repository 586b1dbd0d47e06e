package figtool

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/ssvmnb/papers"
)

func TestParseList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []uint64
		ok   bool
	}{
		{"1", []uint64{1}, true},
		{"1,2, 3", []uint64{1, 2, 3}, true},
		{" 7 ,8 ", []uint64{7, 8}, true},
		{"1,,2", nil, false},
		{"", nil, false},
		{"1,x", nil, false},
		{"-1", nil, false},
	} {
		got, err := ParseSeeds(tc.in)
		if (err == nil) != tc.ok || !slices.Equal(got, tc.want) {
			t.Errorf("ParseSeeds(%q) = %v, %v; want %v (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
	}
	got, err := ParseList("0.5, 1e-3", func(s string) (float64, error) { return strconv.ParseFloat(s, 64) })
	if err != nil || !slices.Equal(got, []float64{0.5, 1e-3}) {
		t.Errorf("ParseList of floats: %v, %v", got, err)
	}
}

func TestBudgetsAndMedian(t *testing.T) {
	if got := Budgets([]float64{1, 2, 5, 10}, 5); !slices.Equal(got, []float64{1, 2, 5}) {
		t.Errorf("Budgets = %v", got)
	}
	if got := Budgets([]float64{1, 2}, 0.5); got != nil {
		t.Errorf("Budgets below the first = %v", got)
	}
	v := []float64{3, 1, 2, 10}
	for _, tc := range []struct {
		v    []float64
		want float64
	}{{v, 2.5}, {[]float64{4, 1, 3}, 3}, {[]float64{2}, 2}} {
		if got := Median(tc.v); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.v, got, tc.want)
		}
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("Median(nil) is not NaN")
	}
	if !slices.Equal(v, []float64{3, 1, 2, 10}) {
		t.Errorf("Median sorted its argument: %v", v)
	}
}

// trace returns a trace with the given primal values and test losses at
// the given passes.
func trace(pass, primal, loss []float64) []run.Point {
	var tr []run.Point
	for k := range pass {
		p := run.Blank()
		p.Pass, p.Primal, p.Dual, p.TestLoss = pass[k], primal[k], primal[k]-1, loss[k]
		tr = append(tr, p)
	}
	return tr
}

func panel() *papers.Figure1Panel {
	return &papers.Figure1Panel{Lambda: 0.001234, BestDual: 1, Methods: []papers.Figure1Method{
		{Name: "BCFW", Traces: [][]run.Point{
			trace([]float64{0.5, 1, 2}, []float64{3, 2, 1.5}, []float64{0.4, 0.3, 0.2}),
			trace([]float64{0.5, 1, 2}, []float64{5, 4, 1.7}, []float64{0.6, 0.5, 0.4}),
		}},
		{Name: "cutting plane", Traces: [][]run.Point{trace([]float64{2}, []float64{9}, []float64{0.9})}},
	}}
}

func TestPrintBudgets(t *testing.T) {
	var b bytes.Buffer
	PrintBudgets(&b, panel(), []float64{1, 2}, "test AER")
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	if !strings.HasPrefix(lines[0], "lambda = 0.00123: primal suboptimality (primal - best dual 1) / test AER,") {
		t.Errorf("caption %q", lines[0])
	}
	// Within 1 pass: the BCFW runs at suboptimality 1 and 3 (median 2),
	// test AER 0.3 and 0.5; the cutting plane has no point yet. Within
	// 2 passes: 0.5 and 0.7, 0.2 and 0.4.
	for k, want := range [][]string{{"method", "P = 1", "P = 2"}, {"BCFW", "2 / 0.4000", "0.6 / 0.3000"}, {"cutting plane", "-", "8 / 0.9000"}} {
		got := lines[k+1]
		if !strings.HasPrefix(got, "  "+want[0]+" ") {
			t.Errorf("line %d = %q, want it to start with %q", k+1, got, want[0])
		}
		for _, cell := range want[1:] {
			if !strings.Contains(got, " "+cell) {
				t.Errorf("line %d = %q lacks %q", k+1, got, cell)
			}
		}
		// The columns line up: every row as long as the header.
		if len(got) != len(lines[1]) {
			t.Errorf("line %d is %d long, the header %d:\n%s", k+1, len(got), len(lines[1]), b.String())
		}
	}
}

func TestWritePanel(t *testing.T) {
	p := panel()
	dir := t.TempDir()
	if err := WritePanel(dir, "fig9", p, p.Objective(), p.TestError(), "aer", "test_aer"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"fig9-objective-0.00123.png", "fig9-aer-0.00123.png", "fig9-traces-0.00123.json"} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "fig9-traces-0.00123.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(data) || !bytes.Contains(data, []byte(`"test_aer"`)) {
		t.Errorf("traces without test_aer: %.300s", data)
	}
	if err := WritePanel(filepath.Join(dir, "missing"), "fig9", p, p.Objective(), p.TestError(), "aer", "test_aer"); err == nil {
		t.Error("no error writing into a missing folder")
	}
}
