package dist

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/execution"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/tune"

	// The method families a unit can name register themselves.
	_ "github.com/fwstruct/fwstruct/solver"
	_ "github.com/fwstruct/fwstruct/solver/kernel"
	_ "github.com/fwstruct/fwstruct/solver/soft"
)

// TaskTrain is the task of TrainUnit: train one method on one dataset (or one
// fold of its training set) to a stop.
const TaskTrain = "train"

func init() { registerTask(TaskTrain, trainTask) }

// TrainUnit is the input of a train unit: a method, the data, the part of the
// training set to train on, and when to stop. Its JSON form is the records'
// of the core: the method as run.Encode writes it, the data as a
// datasets.Spec.
type TrainUnit struct {
	// Method is the method as run.Encode writes it (its lambda and seed
	// included).
	Method json.RawMessage `json:"method"`
	// Execution is the execution of its steps as execution.Encode writes it;
	// empty or null is sequential.
	Execution json.RawMessage `json:"execution,omitempty"`
	// Data is the dataset, loaded on the worker: its paths (the name when
	// it is a path, Options.Path, ...) are the worker's, and Options.Path
	// empty searches $FWSTRUCT_DATA on the worker for the named datasets.
	Data datasets.Spec `json:"data"`
	// Folds and Fold select the part of the training set: Folds zero trains
	// on the whole training set (and tests on the data's test set);
	// Folds = k >= 2 deals the examples into k folds as package tune does
	// (tune.Folds with Config.Seed = Seed), and trains on fold Fold's fitting examples
	// (and tests on its held-out ones) with the preprocessing fitted on them
	// alone (datasets.Data.Split), as tune trains that fold.
	Folds int `json:"folds,omitempty"`
	Fold  int `json:"fold,omitempty"`
	// Seed seeds the assignment of the examples to folds (the method keeps
	// its own seed).
	Seed uint64 `json:"seed,omitempty"`
	// Stop ends the training; at least one criterion must be set.
	Stop run.Stop `json:"stop"`
	// Test records the task loss on the test examples (the data's test set,
	// or the fold's held-out examples) at every trace point.
	Test bool `json:"test,omitempty"`
	// Workers is the number of goroutines of the solver's parallel parts
	// on the worker (0: one per CPU); the iterates do not depend on it.
	Workers int `json:"workers,omitempty"`
	// Weights returns the final weights in the result (they are always
	// summarized by their digest).
	Weights bool `json:"weights,omitempty"`
}

// TrainResult is the output of a train unit.
type TrainResult struct {
	// Key is the unit's.
	Key string `json:"key"`
	// Err is the error that ended the unit, empty when it ran through; a
	// failed unit's result has no other field but Key.
	Err string `json:"error,omitempty"`
	// Method is the method the solver ran, its defaults filled in
	// (run.Encode).
	Method json.RawMessage `json:"method,omitempty"`
	// N and D are the size and dimension of the training problem, and
	// Fingerprint its oracles.Fingerprint: what the worker loaded.
	N           int    `json:"n,omitempty"`
	D           int    `json:"d,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	// Status says why training stopped.
	Status string `json:"status,omitempty"`
	// Last is the final trace point, an exact evaluation of the final
	// iterate.
	Last run.Point `json:"last"`
	// Passes, Steps and OracleCalls are the solver's counters at the end,
	// Seconds its time (exact evaluations excluded).
	Passes      float64 `json:"passes"`
	Steps       int64   `json:"steps"`
	OracleCalls int64   `json:"oracle_calls"`
	Seconds     float64 `json:"seconds"`
	// WeightsSHA256 is the SHA-256 of the final weights' IEEE 754 bits
	// (little-endian, in order): equal digests are equal weights, bit for
	// bit. Empty for a model that is not a weight vector (kernel methods).
	WeightsSHA256 string `json:"weights_sha256,omitempty"`
	// Weights are the final weights when the unit asked for them (weights
	// that are not finite then fail the unit: JSON has no NaN).
	Weights []float64 `json:"weights,omitempty"`
}

// NewTrainUnit returns the unit that runs t under key.
func NewTrainUnit(key string, t TrainUnit) (Unit, error) {
	spec, err := json.Marshal(t)
	if err != nil {
		return Unit{}, fmt.Errorf("unit %q: %w", key, err)
	}
	return Unit{Task: TaskTrain, Key: key, Spec: spec}, nil
}

// Train runs train units on r and returns their results in the order of the
// units. The results hold every unit's record, its Err set when it failed;
// err is the run's error, or else reports the units that failed.
func Train(ctx context.Context, r Runner, units []Unit) ([]TrainResult, error) {
	for _, u := range units {
		if u.Task != TaskTrain {
			return nil, fmt.Errorf("unit %q is a %q unit, not a train unit", u.Key, u.Task)
		}
	}
	outs, err := r.Run(ctx, units)
	if err != nil {
		return nil, err
	}
	res := make([]TrainResult, len(outs))
	for i, o := range outs {
		if o.Err != "" {
			res[i] = TrainResult{Key: o.Key, Err: o.Err}
			continue
		}
		if err := json.Unmarshal(o.Body, &res[i]); err != nil {
			return nil, fmt.Errorf("unit %q: its result: %w", o.Key, err)
		}
		res[i].Key = o.Key
	}
	return res, errUnits(outs)
}

// trainTask is the train task: it decodes a TrainUnit, loads the data (or
// takes it from the worker's cache), trains and returns a TrainResult.
func trainTask(ctx context.Context, spec []byte) ([]byte, error) {
	var t TrainUnit
	dec := json.NewDecoder(bytes.NewReader(spec))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("the unit: %w", err)
	}
	res, err := train(ctx, t)
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

func train(ctx context.Context, t TrainUnit) (*TrainResult, error) {
	if t.Stop == (run.Stop{}) {
		return nil, errors.New("no stop criterion (stop: passes, gap, gap_estimate or duration)")
	}
	m, err := run.Decode(t.Method)
	if err != nil {
		return nil, fmt.Errorf("the method: %w", err)
	}
	var x run.Execution
	if len(t.Execution) > 0 {
		if x, err = execution.Decode(t.Execution); err != nil {
			return nil, fmt.Errorf("the execution: %w", err)
		}
	}
	d, err := loadData(t.Data)
	if err != nil {
		return nil, err
	}
	trainSet, testSet, err := t.split(d)
	if err != nil {
		return nil, err
	}
	opts := []run.Option{run.WithWorkers(t.Workers), run.WithExecution(x)}
	if t.Test && testSet != nil {
		opts = append(opts, run.WithTest(testSet))
	}
	s, err := m.New(trainSet, opts...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Name(), err)
	}
	r, err := s.Run(ctx, t.Stop)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Name(), err)
	}
	last := r.Last
	if !r.Current {
		if last, err = s.Current(); err != nil {
			return nil, fmt.Errorf("%s: the final evaluation: %w", m.Name(), err)
		}
	}
	method, err := run.Encode(s.Method())
	if err != nil {
		return nil, err
	}
	res := &TrainResult{
		Method:      method,
		N:           trainSet.Len(),
		D:           trainSet.Dim(),
		Fingerprint: oracles.FingerprintOf(trainSet, t.Workers).String(),
		Status:      r.Status.String(),
		Last:        last,
		Passes:      s.Passes(),
		Steps:       s.Steps(),
		OracleCalls: s.OracleCalls(),
		Seconds:     s.Elapsed().Seconds(),
	}
	if w := s.Weights(); w != nil {
		res.WeightsSHA256 = digest(w)
		if t.Weights {
			res.Weights = w
		}
	}
	return res, nil
}

// split returns the problems the unit trains and tests on.
func (t TrainUnit) split(d *datasets.Data) (trainSet, testSet oracles.Problem, err error) {
	if t.Folds == 0 {
		if t.Fold != 0 {
			return nil, nil, fmt.Errorf("fold %d without folds", t.Fold)
		}
		return d.Train, d.Test, nil
	}
	if t.Fold < 0 || t.Fold >= t.Folds {
		return nil, nil, fmt.Errorf("fold %d of %d folds (want 0 <= fold < folds)", t.Fold, t.Folds)
	}
	folds, err := tune.Folds(d.Train.Len(), tune.Config{Folds: t.Folds, Seed: t.Seed})
	if err != nil {
		return nil, nil, err
	}
	if trainSet, testSet, err = d.Split(folds[t.Fold].Fit, folds[t.Fold].Held); err != nil {
		return nil, nil, fmt.Errorf("fold %d of %d: %w", t.Fold, t.Folds, err)
	}
	return trainSet, testSet, nil
}

// digest returns the SHA-256 of the weights' bits, in hex.
func digest(w []float64) string {
	h := sha256.New()
	var b [8]byte
	for _, v := range w {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
		h.Write(b[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}
