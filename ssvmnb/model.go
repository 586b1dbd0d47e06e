package ssvmnb

import (
	"fmt"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/model"
	"github.com/fwstruct/fwstruct/oracles"
)

// SaveModel writes the trainer's model to path in the one model format of
// fwstruct (package model: the method, the data as Load was asked for it,
// what the training data fixes (classes, labels or tags by name, feature
// map, scaling), the fingerprints of the training and test data, the
// weights or kernel expansion), which fwstruct eval and fwstruct predict
// read and LoadModel loads back. The data must come from Load, so that the
// file can say how to load it again: it is loaded again here, to take
// what its training file fixes, and must still be the data the run trained
// on. The model describes the run as it stands: run it (Run ends with an
// exact evaluation, whose gap the model records) before saving.
func (t *Trainer) SaveModel(path string) error {
	if t.data == nil {
		return fmt.Errorf("ssvmnb: %s: a model file records how to load its data, and this data was built by hand (NewData): load it with ssvmnb.Load", t.Name)
	}
	spec, err := datasets.Spec{Name: t.data.Name, Options: t.data.Options}.Abs()
	if err != nil {
		return fmt.Errorf("ssvmnb: %s: %w", t.Name, err)
	}
	spec.Options.TestOptional = true
	d, err := spec.Load()
	if err != nil {
		return fmt.Errorf("ssvmnb: %s: loading the data again for its model: %w", t.Name, err)
	}
	m, err := model.New(t.s, d, spec, model.Options{Workers: t.Workers})
	if err != nil {
		return fmt.Errorf("ssvmnb: %s: %w", t.Name, err)
	}
	if got := oracles.FingerprintOf(t.on.Train, t.Workers).String(); got != m.TrainFingerprint {
		return fmt.Errorf("ssvmnb: %s: the data %s loads now is not the data the run trained on (fingerprint %s, the run's %s): load it again and train", t.Name, spec.Name, m.TrainFingerprint, got)
	}
	if err := m.Save(path); err != nil {
		return fmt.Errorf("ssvmnb: %s: %w", t.Name, err)
	}
	return nil
}

// Model is a trained model read from a model file (SaveModel, fwstruct
// train --model, fwstruct tune --model) with its test set: the file's
// model (package model: Method, Weights, Schema with the label names,
// Open and Predict for other files) and the examples it is tested on.
type Model struct {
	*model.Model
	// Test is the model's test set, nil when the run had none; the
	// predictions of the model on it show with ShowPredictions(m.Test,
	// m.Weights, 0, 1, 2), or m.AverageWeights of a run that kept an
	// average, what fwstruct eval and predict use by default (the label
	// names, images and words of its task included).
	Test oracles.Problem
}

// LoadModel reads a model file and its test set: the test file read with
// the model's schema, without its training file (the data of the horses
// and the Hansards, whose features need their training data, is loaded
// again). A test file that changed since the model was trained is read as
// it is now, with a note saying so.
func LoadModel(path string) (*Model, error) {
	m, err := model.Load(path)
	if err != nil {
		return nil, fmt.Errorf("ssvmnb: %w", err)
	}
	out := &Model{Model: m}
	if m.TestFingerprint == "" {
		return out, nil
	}
	set, err := m.TestSet()
	if err != nil {
		return nil, fmt.Errorf("ssvmnb: %s: %w", path, err)
	}
	if err := m.CheckTest(set); err != nil {
		note(fmt.Sprintf("%s: the test set has changed since the model was trained (it now has %v)", path, err))
	}
	out.Test = set.Problem
	registerSet(set)
	return out, nil
}

// registerSet registers how ShowPredictions shows the examples of a set
// read from a model: with its label names, or over its images.
func registerSet(set *datasets.Set) {
	switch set.Format {
	case "yeast", "mulan":
		register(set.Problem, labelSetView(set.Labels))
	case "svmlight", "csv":
		register(set.Problem, classView(set.Labels))
	case "horses":
		register(set.Problem, horseView(set.Images()))
	}
}
