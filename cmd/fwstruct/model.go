package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/fwstruct/fwstruct/datasets"
)

// modelFormat is written by train; modelFormatV1 files (before the data
// options were recorded) are still read.
const (
	modelFormat   = "fwstruct-model/2"
	modelFormatV1 = "fwstruct-model/1"
)

// modelFile is the JSON model written by train and read by eval.
type modelFile struct {
	Format string `json:"format"`
	Data   string `json:"data"`
	// DataOptions holds the value of every data flag (fwstruct train -h) as
	// the training data was loaded, the dataset name resolved and paths
	// absolute, so that eval rebuilds the same problems.
	DataOptions map[string]string `json:"data_options,omitempty"`
	// TrainFingerprint identifies the training problem
	// (oracles.Fingerprint.String; a bare hex hash of n, d and the labels in
	// older files): eval refuses data that no longer matches it.
	TrainFingerprint string `json:"train_fingerprint,omitempty"`

	// Version 1 fields, read from old files only.
	Split          string  `json:"split,omitempty"`
	SyntheticWords int     `json:"synthetic_words,omitempty"`
	SyntheticSeed  uint64  `json:"synthetic_seed,omitempty"`
	SyntheticNoise float64 `json:"synthetic_noise,omitempty"`

	Dim            int       `json:"dim"`
	Lambda         float64   `json:"lambda"`
	Rho            float64   `json:"rho,omitempty"`
	Solver         string    `json:"solver"`
	Passes         float64   `json:"passes"`
	Gap            *float64  `json:"gap"`
	Weights        []float64 `json:"weights"`
	AverageWeights []float64 `json:"average_weights,omitempty"`
	// Scaler is the feature scaling fitted on the training file (--scale),
	// which eval applies to the data it evaluates; absent without scaling.
	Scaler *datasets.Scaler `json:"scaler,omitempty"`
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

// parseModel reads and checks a model file: a known format, weights of the
// recorded dimension, every number finite, data options naming data flags.
func parseModel(b []byte) (*modelFile, error) {
	var m modelFile
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("not a model file: %w", jsonError(err))
	}
	if m.Format != modelFormat && m.Format != modelFormatV1 {
		return nil, fmt.Errorf("format %s, want %s (a model written by fwstruct train --model)", quote(m.Format), quote(modelFormat))
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
	if m.Scaler != nil {
		if err := m.Scaler.Validate(); err != nil {
			return nil, err
		}
	}
	names := dataFlagNames()
	var unknown []string
	for k := range m.DataOptions {
		if !names[k] {
			unknown = append(unknown, quote(k))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		if len(unknown) > 3 {
			unknown = append(unknown[:3], "...")
		}
		return nil, fmt.Errorf("unknown data options %s", strings.Join(unknown, ", "))
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
