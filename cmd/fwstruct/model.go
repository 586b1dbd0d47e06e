package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/execution"
	"github.com/fwstruct/fwstruct/solver/kernel"
	"github.com/fwstruct/fwstruct/solver/run"
)

// runRecord is what a model file and a checkpoint record of the run that
// made them, in one format: the method with its settings (run.Encode), the
// execution of its steps (execution.Encode, null for sequential steps), the
// data (datasets.Spec: the dataset's name resolved, its options typed,
// paths absolute) and the accuracy of an approximate max oracle.
type runRecord struct {
	Method    json.RawMessage `json:"method"`
	Execution json.RawMessage `json:"execution"`
	Data      datasets.Spec   `json:"data"`
	// OracleAccuracy is nu < 1 of a run whose max oracle answered
	// nu-approximately (train --oracle-accuracy), 0 for the exact oracle.
	OracleAccuracy float64 `json:"oracle_accuracy,omitempty"`
}

// newRecord returns the record of a run of m, executed by x, on data.
func newRecord(m run.Method, x run.Execution, data datasets.Spec, accuracy float64) (runRecord, error) {
	mb, err := run.Encode(m)
	if err != nil {
		return runRecord{}, err
	}
	xb, err := execution.Encode(x)
	if err != nil {
		return runRecord{}, err
	}
	if accuracy == 1 {
		accuracy = 0
	}
	return runRecord{Method: mb, Execution: xb, Data: data, OracleAccuracy: accuracy}, nil
}

// decode returns the method and the execution of the record, checking
// the rest.
func (r runRecord) decode() (run.Method, run.Execution, error) {
	m, err := run.Decode(r.Method)
	if err != nil {
		return nil, nil, err
	}
	var x run.Execution
	if len(r.Execution) > 0 && string(r.Execution) != "null" {
		if x, err = execution.Decode(r.Execution); err != nil {
			return nil, nil, err
		}
	}
	if a := r.OracleAccuracy; a != 0 && !(a > 0 && a < 1) {
		return nil, nil, fmt.Errorf("oracle accuracy %v, want a number in (0, 1)", a)
	}
	if r.Data.Name == "" {
		return nil, nil, errors.New("no data")
	}
	return m, x, nil
}

// accuracy returns nu of the record's max oracle (1: exact).
func (r runRecord) accuracy() float64 {
	if r.OracleAccuracy == 0 {
		return 1
	}
	return r.OracleAccuracy
}

// modelFormat is the format of the model files train and tune write;
// older files (fwstruct-model/1 and /2, fwstruct-kernel-model/1 and /2,
// which recorded flag strings) are refused.
const modelFormat = "fwstruct-model/3"

// errOlder is the error of a file written by an older fwstruct.
var errOlder = errors.New("made by an older fwstruct: train again")

// modelFile is the JSON model written by train and tune and read by eval:
// the run that made it, the fingerprint of its training data, and the
// weights (with the average weights of a run that averages), or for a
// kernel method its kernel expansion (support vectors and coefficients),
// with the feature scaling fitted on the training file.
type modelFile struct {
	Format string `json:"format"`
	runRecord
	// TrainFingerprint identifies the training problem
	// (oracles.Fingerprint.String): eval refuses data that no longer
	// matches it.
	TrainFingerprint string   `json:"train_fingerprint"`
	Passes           float64  `json:"passes"`
	Gap              *float64 `json:"gap"`
	// Dim, Weights and AverageWeights are the weights of a linear model.
	Dim            int       `json:"dim,omitempty"`
	Weights        []float64 `json:"weights,omitempty"`
	AverageWeights []float64 `json:"average_weights,omitempty"`
	// Kernel and AverageKernel are the model of a kernel method.
	Kernel        *kernel.Model `json:"kernel_model,omitempty"`
	AverageKernel *kernel.Model `json:"average_kernel_model,omitempty"`
	// Scaler is the feature scaling fitted on the training file (--scale),
	// which eval applies to the data it evaluates; absent without scaling.
	Scaler *datasets.Scaler `json:"scaler,omitempty"`
}

// newModel returns the model file of the run s on data (the training
// problem's fingerprint fp, the scaling fitted on its training file) at
// its last trace point last.
func newModel(s run.Solver, data datasets.Spec, accuracy float64, fp string, d *datasets.Data, last run.Point) (*modelFile, error) {
	rec, err := newRecord(s.Method(), s.Execution(), data, accuracy)
	if err != nil {
		return nil, err
	}
	m := &modelFile{runRecord: rec, TrainFingerprint: fp, Passes: s.Passes(), Gap: finiteOrNil(last.Gap), Scaler: d.Scaler}
	switch s := s.(type) {
	case *kernel.Solver:
		m.Kernel, m.AverageKernel = s.Model(), s.AverageModel()
	case interface{ AverageWeights() []float64 }:
		m.AverageWeights = s.AverageWeights()
	}
	if m.Kernel == nil {
		m.Weights = s.Weights()
		m.Dim = len(m.Weights)
	}
	return m, nil
}

func writeModel(path string, m *modelFile) error {
	m.Format = modelFormat
	return writeCompactJSON(path, m)
}

// writeCompactJSON writes v as one line of JSON to path, atomically.
func writeCompactJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return writeFile(path, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

func readModel(path string) (*modelFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := parseModel(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// parseModel reads and checks a model file: the current format, no field
// it does not know, a method, execution and data it can read, a
// fingerprint, and weights of the recorded dimension (or a valid kernel
// model), every number finite.
func parseModel(b []byte) (*modelFile, error) {
	var head struct {
		Format string `json:"format"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("not a model file: %w", jsonError(err))
	}
	switch head.Format {
	case modelFormat:
	case "fwstruct-model/1", "fwstruct-model/2", "fwstruct-kernel-model/1", "fwstruct-kernel-model/2":
		return nil, fmt.Errorf("a model of format %s, %w", quote(head.Format), errOlder)
	default:
		return nil, fmt.Errorf("format %s, want %s (a model written by fwstruct train --model)", quote(head.Format), quote(modelFormat))
	}
	var m modelFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("not a model file: %w", jsonError(err))
	}
	if _, _, err := m.decode(); err != nil {
		return nil, err
	}
	if _, full, err := oracles.ParseFingerprint(m.TrainFingerprint); err != nil || !full {
		return nil, fmt.Errorf("train_fingerprint %s: want n=N d=D labels=HEX data=HEX", quote(m.TrainFingerprint))
	}
	if m.Kernel != nil {
		if m.Weights != nil || m.AverageWeights != nil || m.Dim != 0 {
			return nil, errors.New("both weights and a kernel model")
		}
		for _, km := range []*kernel.Model{m.Kernel, m.AverageKernel} {
			if km != nil {
				if err := km.Validate(); err != nil {
					return nil, err
				}
			}
		}
	} else {
		if m.AverageKernel != nil {
			return nil, errors.New("an average kernel model without a kernel model")
		}
		if m.Dim < 1 || len(m.Weights) != m.Dim {
			return nil, fmt.Errorf("%d weights for dimension %d", len(m.Weights), m.Dim)
		}
		if m.AverageWeights != nil && len(m.AverageWeights) != m.Dim {
			return nil, fmt.Errorf("%d average weights for dimension %d", len(m.AverageWeights), m.Dim)
		}
		for _, ws := range [][]float64{m.Weights, m.AverageWeights} {
			for j, v := range ws {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("non-finite weight at coordinate %d", j)
				}
			}
		}
	}
	if m.Scaler != nil {
		if err := m.Scaler.Validate(); err != nil {
			return nil, err
		}
	}
	if m.Gap != nil && (math.IsNaN(*m.Gap) || math.IsInf(*m.Gap, 0)) {
		return nil, errors.New("a non-finite gap")
	}
	return &m, nil
}

// writeJSON writes v as indented JSON to path atomically.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	return writeFile(path, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

func finiteOrNil(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// describeMethod renders a method (defaults filled in, as run.Solver.Method
// returns it) as the lines of train and tune show it, its settings but
// lambda under the names of its JSON form, e.g. "bcfw (average none, cache
// (f 0.25, max_size 10, nu 0.01), gap_every 10, sampling gap, seed 0, step
// pairwise)".
func describeMethod(m run.Method) string {
	b, err := run.Encode(m)
	var fields map[string]any
	if err == nil {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		err = dec.Decode(&fields)
	}
	if err != nil {
		return m.Name()
	}
	delete(fields, "method")
	delete(fields, "lambda")
	return m.Name() + " " + describeValue(fields)
}

// describeValue renders a decoded JSON value: objects as (key value, ...)
// in key order, long arrays by their length.
func describeValue(v any) string {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + " " + describeValue(v[k])
		}
		return "(" + strings.Join(parts, ", ") + ")"
	case []any:
		if len(v) > 4 {
			return fmt.Sprintf("[%d values]", len(v))
		}
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = describeValue(x)
		}
		return "[" + strings.Join(parts, " ") + "]"
	case nil:
		return "none"
	}
	return fmt.Sprint(v)
}
