package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/fwstruct/fwstruct/internal/atomicfile"
	"github.com/fwstruct/fwstruct/internal/jsonerr"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/kernel"
)

// olderFormats are the formats of the model files of earlier versions.
var olderFormats = []string{"fwstruct-model/1", "fwstruct-model/2", "fwstruct-model/3", "fwstruct-kernel-model/1", "fwstruct-kernel-model/2"}

// file is the JSON form of a model file: its format, then the model.
type file struct {
	Format string `json:"format"`
	*Model
}

// Write writes the model as one line of JSON.
func (m *Model) Write(w io.Writer) error {
	b, err := json.Marshal(file{Format: Format, Model: m})
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Save writes the model to path atomically (a reader sees the old file or
// the whole new one; see internal/atomicfile for links, devices and
// pipes).
func (m *Model) Save(path string) error {
	return atomicfile.WriteFile(path, 0o644, m.Write)
}

// Load reads the model file at path (see Read); errors name the file.
func Load(path string) (*Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// maxFile bounds the model files Read accepts (a CoNLL model, 1.6 million
// weights and its attribute dictionary, takes about 40 MB).
const maxFile = 4 << 30

// Read reads a model written by Write and checks it (see the package
// documentation).
func Read(r io.Reader) (*Model, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxFile {
		return nil, fmt.Errorf("not a model file: more than %d bytes", maxFile)
	}
	return parse(b)
}

// parse reads and checks the bytes of a model file.
func parse(b []byte) (*Model, error) {
	var head struct {
		Format string `json:"format"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("not a model file: %w", jsonerr.Restate(err))
	}
	switch {
	case head.Format == Format:
	case slices.Contains(olderFormats, head.Format):
		return nil, fmt.Errorf("a model of format %q, %w", head.Format, ErrOlder)
	default:
		return nil, fmt.Errorf("format %s, want %q (a model written by fwstruct train --model, tune --model or ssvmnb's SaveModel)", quoted(head.Format), Format)
	}
	if err := noNullInArrays(b); err != nil {
		return nil, err
	}
	m := &Model{}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&file{Model: m}); err != nil {
		return nil, fmt.Errorf("not a model file: %w", jsonerr.Restate(err))
	}
	var err error
	if m.method, m.execution, err = m.Record.Decode(); err != nil {
		return nil, err
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	return m, nil
}

// check checks the parts of a model: a schema, whole fingerprints, weights
// of the recorded dimension (or valid kernel models) of the schema's
// classes and features when it names them, finite numbers.
func (m *Model) check() error {
	if m.Schema == nil {
		return errors.New("no schema (the classes and feature map of the training data)")
	}
	if err := m.Schema.Check(); err != nil {
		return err
	}
	if _, full, err := oracles.ParseFingerprint(m.TrainFingerprint); err != nil || !full {
		return fmt.Errorf("train_fingerprint %s: want n=N d=D labels=HEX data=HEX", quoted(m.TrainFingerprint))
	}
	if m.TestFingerprint != "" {
		if _, full, err := oracles.ParseFingerprint(m.TestFingerprint); err != nil || !full {
			return fmt.Errorf("test_fingerprint %s: want n=N d=D labels=HEX data=HEX", quoted(m.TestFingerprint))
		}
	}
	if math.IsNaN(m.Passes) || math.IsInf(m.Passes, 0) || m.Passes < 0 {
		return fmt.Errorf("passes %v, want a finite number >= 0", m.Passes)
	}
	if m.Gap != nil && (math.IsNaN(*m.Gap) || math.IsInf(*m.Gap, 0)) {
		return errors.New("a non-finite gap")
	}
	classes, features := m.multiclassShape()
	if m.Kernel != nil {
		if m.Weights != nil || m.AverageWeights != nil || m.Dim != 0 {
			return errors.New("both weights and a kernel model")
		}
		for _, km := range []*kernel.Model{m.Kernel, m.AverageKernel} {
			if km == nil {
				continue
			}
			if err := km.Validate(); err != nil {
				return err
			}
			if classes > 0 && (km.Classes != classes || km.Features != features) {
				return fmt.Errorf("a kernel model of %d classes and %d features for data of %d classes and %d features", km.Classes, km.Features, classes, features)
			}
		}
		return nil
	}
	if m.AverageKernel != nil {
		return errors.New("an average kernel model without a kernel model")
	}
	if m.Dim < 1 || len(m.Weights) != m.Dim {
		return fmt.Errorf("%d weights for dimension %d", len(m.Weights), m.Dim)
	}
	if m.AverageWeights != nil && len(m.AverageWeights) != m.Dim {
		return fmt.Errorf("%d average weights for dimension %d", len(m.AverageWeights), m.Dim)
	}
	if classes > 0 && m.Dim != classes*features {
		return fmt.Errorf("dimension %d for %d classes of %d features", m.Dim, classes, features)
	}
	for _, ws := range [][]float64{m.Weights, m.AverageWeights} {
		for j, v := range ws {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("non-finite weight at coordinate %d", j)
			}
		}
	}
	return nil
}

// multiclassShape returns the classes and input features (bias included)
// of multiclass data, 0, 0 for other data.
func (m *Model) multiclassShape() (classes, features int) {
	switch s := m.Schema; s.Format {
	case "svmlight", "csv", "usps":
		features = s.Features
		if s.Bias {
			features++
		}
		return len(s.Labels), features
	}
	return 0, 0
}

// noNullInArrays refuses a JSON document holding null as an element of an
// array: encoding/json reads it as 0 (a weight, a coefficient, a feature
// index), so that a hand-edited file would be half read.
func noNullInArrays(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var stack []json.Delim
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("not a model file: %w", jsonerr.Restate(err))
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '[', '{':
				stack = append(stack, v)
			default:
				stack = stack[:len(stack)-1]
			}
		case nil:
			if len(stack) > 0 && stack[len(stack)-1] == '[' {
				return fmt.Errorf("a null in an array at byte %d: every weight, coefficient and index must be a number", dec.InputOffset())
			}
		}
	}
}

// quoted quotes s for a message, cut to 40 bytes.
func quoted(s string) string {
	if len(s) > 40 {
		return fmt.Sprintf("%q...", s[:40])
	}
	return fmt.Sprintf("%q", s)
}
