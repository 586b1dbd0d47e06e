package model

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/execution"
)

// FuzzRead: the model reader returns an error of one line or a model whose
// weights match its dimension (or a valid kernel model), are finite, and
// whose method, execution, data and schema decode; what it accepts, written
// again, it accepts again.
func FuzzRead(f *testing.F) {
	gap := 0.25
	rec, err := NewRecord(solver.Recommended(0.01), execution.MiniBatch{Batch: 2}, datasets.Spec{Name: "csv",
		Options: datasets.Options{Path: "/x/train.csv", Scaling: datasets.ScaleMinMax}}, 1)
	if err != nil {
		f.Fatal(err)
	}
	fp := oracles.Fingerprint{N: 2, D: 6, Labels: 1, Data: 2}.String()
	good := &Model{Record: rec, Schema: &datasets.Schema{Format: "csv", Labels: []string{"a", "b"}, Features: 2, Bias: true},
		TrainFingerprint: fp, Dim: 6, Passes: 4, Gap: &gap,
		Weights: []float64{1, -2, 0.5, 0, 0, 1}, AverageWeights: []float64{0, 0, 1, 0, 0, 0}}
	var buf bytes.Buffer
	if err := good.Write(&buf); err != nil {
		f.Fatal(err)
	}
	if _, err := Read(bytes.NewReader(buf.Bytes())); err != nil {
		f.Fatalf("the seed model: %v", err)
	}
	f.Add(buf.Bytes())
	f.Add(bytes.Replace(buf.Bytes(), []byte(`,0,0,1]`), []byte(`,null,0,1]`), 1))
	f.Add([]byte(`{"format":"fwstruct-model/3","data":"synthetic","dim":2,"weights":[1,2],"gap":null}`))
	f.Add([]byte(`{"format":"fwstruct-model/4","dim":2,"weights":[1e308,2],"method":{"method":"bcfw","lambda":1},"data":{"name":"ocr","options":{"bogus":1}}}`))
	f.Add([]byte(`[1,2`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Read(bytes.NewReader(b))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of several lines: %q", err)
			}
			return
		}
		if m.Kernel == nil && (m.Dim < 1 || len(m.Weights) != m.Dim || (m.AverageWeights != nil && len(m.AverageWeights) != m.Dim)) {
			t.Fatalf("accepted dimension %d with %d weights", m.Dim, len(m.Weights))
		}
		for _, v := range append(append([]float64(nil), m.Weights...), m.AverageWeights...) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("accepted weight %v", v)
			}
		}
		if m.Method() == nil || m.Schema == nil {
			t.Fatalf("accepted a model without method or schema")
		}
		var again bytes.Buffer
		if err := m.Write(&again); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(&again); err != nil {
			t.Fatalf("a model written again is refused: %v", err)
		}
	})
}
