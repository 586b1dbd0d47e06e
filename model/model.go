// Package model holds trained models as files: the one format in which the
// command line (fwstruct train, tune) and the notebook layer (ssvmnb) save
// a run, and from which fwstruct eval, fwstruct predict and ssvmnb read it
// back to score or predict new data.
//
// A Model records everything it needs to be applied without the training
// file: the run that made it (Record: the method with its settings, the
// execution, the data as a datasets.Spec, the accuracy of an approximate
// oracle), the datasets.Schema of its training data (the classes, labels or
// tags by name, the feature map, the scaling fitted on the training file),
// the fingerprints of its training and test data, and the weights (with the
// average weights of a run that averages), or for a kernel method its kernel
// expansion. Open reads a file with the schema into a datasets.Set, Predict
// predicts its examples, and the set writes the predictions in the task's
// own output format (datasets.Set.WritePredictions, WriteMasks).
//
// The file is one line of JSON, {"format":"fwstruct-model/4",...}, written
// atomically (Save). Read checks it before use: the format (older formats
// are refused with ErrOlder), no field it does not know, no null in an
// array, a method, execution, data and schema it can read, whole
// fingerprints, weights of the recorded dimension (or a valid kernel
// model), every number finite.
package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/execution"
	"github.com/fwstruct/fwstruct/solver/kernel"
	"github.com/fwstruct/fwstruct/solver/run"
)

// Format is the format of the model files Write writes. Older formats
// (fwstruct-model/1 to /3, fwstruct-kernel-model/1 and /2) are refused
// with ErrOlder.
const Format = "fwstruct-model/4"

// ErrOlder is the error of a file written by an older fwstruct.
var ErrOlder = errors.New("made by an older fwstruct: train again")

// Record is the run that made a model (or a checkpoint of the command
// line, which records it alike): the method with its settings
// (run.Encode), the execution of its steps (execution.Encode, null for
// sequential steps), the data (datasets.Spec: the dataset's name, its
// options typed, paths absolute) and the accuracy of an approximate max
// oracle.
type Record struct {
	Method    json.RawMessage `json:"method"`
	Execution json.RawMessage `json:"execution"`
	Data      datasets.Spec   `json:"data"`
	// OracleAccuracy is nu < 1 of a run whose max oracle answered
	// nu-approximately, 0 for the exact oracle.
	OracleAccuracy float64 `json:"oracle_accuracy,omitempty"`
}

// NewRecord returns the record of a run of m, executed by x, on data,
// with an oracle of accuracy nu (1: exact).
func NewRecord(m run.Method, x run.Execution, data datasets.Spec, nu float64) (Record, error) {
	mb, err := run.Encode(m)
	if err != nil {
		return Record{}, err
	}
	xb, err := execution.Encode(x)
	if err != nil {
		return Record{}, err
	}
	if nu == 1 {
		nu = 0
	}
	return Record{Method: mb, Execution: xb, Data: data, OracleAccuracy: nu}, nil
}

// Decode returns the method and the execution of the record, checking the
// rest (an oracle accuracy in (0, 1), a dataset).
func (r Record) Decode() (run.Method, run.Execution, error) {
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

// Accuracy returns nu of the record's max oracle (1: exact).
func (r Record) Accuracy() float64 {
	if r.OracleAccuracy == 0 {
		return 1
	}
	return r.OracleAccuracy
}

// Model is a trained model: the run that made it, what its data fixes,
// and its weights or kernel expansion. New makes one of a run; Read and
// Load read one from a file.
type Model struct {
	Record
	// Schema is what the training data fixes of the problem (classes,
	// labels or tags by name, feature map, scaling): Open reads other files
	// with it.
	Schema *datasets.Schema `json:"schema"`
	// TrainFile and TestFile are the files the training and test sets
	// were read from (datasets.Data.TrainPath and TestPath), empty for the
	// data without files of their own (OCR folds, synthetic words, the
	// horses' and Hansards' splits) and TestFile for a run without test
	// set.
	TrainFile string `json:"train_file,omitempty"`
	TestFile  string `json:"test_file,omitempty"`
	// TrainFingerprint identifies the training problem
	// (oracles.Fingerprint.String), TestFingerprint the test problem
	// (empty without one): TrainSet refuses training data that no longer
	// matches, CheckTest tells whether a test set is the one of the run.
	TrainFingerprint string `json:"train_fingerprint"`
	TestFingerprint  string `json:"test_fingerprint,omitempty"`
	// Passes are the effective passes of the run; Gap is the duality gap
	// of its final iterate, nil when the run did not end with an exact
	// evaluation of it.
	Passes float64  `json:"passes"`
	Gap    *float64 `json:"gap"`
	// Dim, Weights and AverageWeights are the weights of a linear model.
	Dim            int       `json:"dim,omitempty"`
	Weights        []float64 `json:"weights,omitempty"`
	AverageWeights []float64 `json:"average_weights,omitempty"`
	// Kernel and AverageKernel are the model of a kernel method.
	Kernel        *kernel.Model `json:"kernel_model,omitempty"`
	AverageKernel *kernel.Model `json:"average_kernel_model,omitempty"`

	method    run.Method
	execution run.Execution
}

// Options are what New records of a run beyond its solver and data.
type Options struct {
	// OracleAccuracy is nu of an approximate max oracle; 0 and 1 mean the
	// exact oracle.
	OracleAccuracy float64
	// Workers are the goroutines computing the fingerprints (0: one per
	// CPU).
	Workers int
}

// New returns the model of the run s trained on d, the data loaded from
// spec (d.Train the problem s trained on, before any approximate-oracle
// wrapper): its method and execution as s has them now, the schema and
// fingerprints of d, the weights (and average weights) or the kernel
// expansion of s. The gap is that of the last trace point when it
// describes the current iterate (call s.Current first), else none.
func New(s run.Solver, d *datasets.Data, spec datasets.Spec, o Options) (*Model, error) {
	nu := o.OracleAccuracy
	if nu == 0 {
		nu = 1
	}
	rec, err := NewRecord(s.Method(), s.Execution(), spec, nu)
	if err != nil {
		return nil, err
	}
	m := &Model{Record: rec, Schema: d.Schema(), TrainFile: d.TrainPath, TestFile: d.TestPath,
		TrainFingerprint: oracles.FingerprintOf(d.Train, o.Workers).String(), Passes: s.Passes(),
		method: s.Method(), execution: s.Execution()}
	if d.Test != nil {
		m.TestFingerprint = oracles.FingerprintOf(d.Test, o.Workers).String()
	} else {
		m.TestFile = ""
	}
	if last, ok := s.Last(); ok && last.Pass == s.Passes() && !math.IsNaN(last.Gap) && !math.IsInf(last.Gap, 0) {
		gap := last.Gap
		m.Gap = &gap
	}
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
	if err := m.check(); err != nil {
		return nil, err
	}
	return m, nil
}

// Method returns the method the model records, with its settings and
// lambda.
func (m *Model) Method() run.Method { return m.method }

// Execution returns the execution of the run's steps (nil: sequential).
func (m *Model) Execution() run.Execution { return m.execution }

// Lambda returns the regularization parameter of the model's method.
func (m *Model) Lambda() float64 {
	var v struct {
		Lambda float64 `json:"lambda"`
	}
	_ = json.Unmarshal(m.Record.Method, &v) // checked by Decode
	return v.Lambda
}
