package model

import (
	"errors"
	"fmt"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/kernel"
)

// Open reads the file (or folder) path as a set of the model's problem:
// with the schema alone (datasets.Schema.Read) for every format but the
// horses and the Hansards, whose features are computed from statistics of
// the training data: for those, the data the model records is loaded
// again (and must still be the training data, see TrainSet) and reads the
// path (datasets.Data.Read: a folder of sentence pairs for word alignment;
// the horses cannot read new images).
func (m *Model) Open(path string) (*datasets.Set, error) {
	switch {
	case m.Schema.Readable():
		return m.Schema.Read(path, m.Data.Options)
	case m.Schema.Format == "horses":
		return nil, errors.New("horses: the features of new images need the texture codebook learned on the training images, which the model does not keep: predict the test images of the data it records (its TestSet)")
	}
	d, err := m.loadData()
	if err != nil {
		return nil, err
	}
	return d.Read(path)
}

// TestSet returns the model's own test set: its test file read with the
// schema, or for the data without files of their own (OCR folds,
// synthetic words, the horses' and Hansards' splits) the test split of the
// data it records, loaded again (the training split must still be the
// one trained on). It is an error when the run had no test set. The file
// may have changed since the run: CheckTest tells.
func (m *Model) TestSet() (*datasets.Set, error) {
	if m.TestFingerprint == "" {
		return nil, errors.New("the model was trained without a test set: name the file to score")
	}
	if m.TestFile != "" && m.Schema.Readable() {
		return m.Schema.Read(m.TestFile, m.Data.Options)
	}
	d, err := m.loadData()
	if err != nil {
		return nil, err
	}
	if d.Test == nil {
		return nil, fmt.Errorf("the data the model records (%s) has no test set now", m.Data.Name)
	}
	return d.TestSet(), nil
}

// TrainSet returns the model's training set, read again as TestSet reads
// the test set; it is an error when it is no longer the data the model was
// trained on (its fingerprint differs).
func (m *Model) TrainSet() (*datasets.Set, error) {
	var set *datasets.Set
	if m.TrainFile != "" && m.Schema.Readable() {
		var err error
		if set, err = m.Schema.Read(m.TrainFile, m.Data.Options); err != nil {
			return nil, err
		}
		if err := m.checkTrain(set.Problem); err != nil {
			return nil, err
		}
		return set, nil
	}
	d, err := m.loadData()
	if err != nil {
		return nil, err
	}
	return d.TrainSet(), nil
}

// loadData loads the data the model records and checks that its training
// split is the one the model was trained on.
func (m *Model) loadData() (*datasets.Data, error) {
	spec := m.Data
	spec.Options.TestOptional = true
	d, err := spec.Load()
	if err != nil {
		return nil, err
	}
	if err := m.checkTrain(d.Train); err != nil {
		return nil, err
	}
	return d, nil
}

// checkTrain returns an error when p is not the training problem the
// model's fingerprint records.
func (m *Model) checkTrain(p oracles.Problem) error {
	if err := check(m.TrainFingerprint, p); err != nil {
		return fmt.Errorf("the training data the model records (%s) has changed since it was trained: it now has %w", m.Data.Name, err)
	}
	return nil
}

// CheckTest returns nil when set is the test set of the run that made the
// model (same fingerprint), else an error saying what differs: the test
// file changed since, or another file.
func (m *Model) CheckTest(set *datasets.Set) error {
	if m.TestFingerprint == "" {
		return errors.New("the model was trained without a test set")
	}
	return check(m.TestFingerprint, set.Problem)
}

// check compares the fingerprint of p with a recorded one.
func check(recorded string, p oracles.Problem) error {
	want, _, err := oracles.ParseFingerprint(recorded)
	if err != nil {
		return err
	}
	return want.Check(oracles.FingerprintOf(p, 0))
}

// Predict returns the labelings the model predicts for every example of
// set: with its weights (the average weights when average), or its kernel
// expansion (the averaged one when average) for a kernel method.
func (m *Model) Predict(set *datasets.Set, average bool) ([][]int32, error) {
	p := set.Problem
	pred := make([][]int32, p.Len())
	if km := m.Kernel; km != nil {
		if average {
			if km = m.AverageKernel; km == nil {
				return nil, errors.New("the model has no average kernel model (train with averaging)")
			}
		}
		mp, ok := p.(*oracles.Multiclass)
		if !ok {
			return nil, fmt.Errorf("a kernel model predicts multiclass data, not %s", set.Format)
		}
		if err := fits(km, mp); err != nil {
			return nil, err
		}
		for i := range pred {
			pred[i] = []int32{km.Predict(mp.Input(i))}
		}
		return pred, nil
	}
	w, err := m.weights(average)
	if err != nil {
		return nil, err
	}
	if p.Dim() != len(w) {
		return nil, fmt.Errorf("the model has dimension %d, the data %d", len(w), p.Dim())
	}
	for i := range pred {
		pred[i] = p.Predict(i, w, nil)
	}
	return pred, nil
}

// weights returns the weights or the average weights of a linear model.
func (m *Model) weights(average bool) ([]float64, error) {
	if !average {
		return m.Weights, nil
	}
	if m.AverageWeights == nil {
		return nil, errors.New("the model has no average weights (train with averaging)")
	}
	return m.AverageWeights, nil
}

// fits checks that a kernel model applies to a multiclass problem.
func fits(km *kernel.Model, p *oracles.Multiclass) error {
	if km.Classes != p.NumClasses() || km.Features != p.NumFeatures() {
		return fmt.Errorf("a kernel model of %d classes and %d features for data of %d classes and %d features", km.Classes, km.Features, p.NumClasses(), p.NumFeatures())
	}
	return nil
}
