package papers

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/fwstruct/fwstruct/solver/run"
)

// TestWriteTracesLeavesOutWhatWasNotComputed: the test metric is written
// under the key asked for, and NaN or infinite values are left out of
// their point instead of being written as 0.
func TestWriteTracesLeavesOutWhatWasNotComputed(t *testing.T) {
	nan := math.NaN()
	p := &Figure1Panel{Lambda: 0.01, BestDual: 0.3, Methods: []Figure1Method{{
		Name: "SSG",
		Traces: [][]run.Point{{
			{Pass: 1, Seconds: 0.5, Primal: 0.9, Dual: nan, Gap: nan, TestLoss: 0.2},
			{Pass: 2, Seconds: 1, Primal: math.Inf(1), Dual: nan, Gap: nan, TestLoss: nan},
		}},
	}}}
	path := filepath.Join(t.TempDir(), "traces.json")
	if err := p.WriteTraces(path, "test_aer"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Lambda   float64                           `json:"lambda"`
		BestDual float64                           `json:"best_dual"`
		Runs     map[string][][]map[string]float64 `json:"runs"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Lambda != 0.01 || got.BestDual != 0.3 || len(got.Runs["SSG"]) != 1 || len(got.Runs["SSG"][0]) != 2 {
		t.Fatalf("unexpected file: %s", b)
	}
	first, second := got.Runs["SSG"][0][0], got.Runs["SSG"][0][1]
	if first["primal"] != 0.9 || first["test_aer"] != 0.2 || first["pass"] != 1 {
		t.Errorf("first point %v", first)
	}
	for _, k := range []string{"dual", "gap"} {
		if _, ok := first[k]; ok {
			t.Errorf("first point has %s, which was never computed: %v", k, first)
		}
	}
	for _, k := range []string{"primal", "dual", "gap", "test_aer"} {
		if _, ok := second[k]; ok {
			t.Errorf("second point has %s, which is NaN or infinite: %v", k, second)
		}
	}
}
