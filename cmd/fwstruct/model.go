package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
)

const modelFormat = "fwstruct-model/1"

// modelFile is the JSON model written by train and read by eval.
type modelFile struct {
	Format         string    `json:"format"`
	Data           string    `json:"data"`
	Split          string    `json:"split,omitempty"`
	SyntheticWords int       `json:"synthetic_words,omitempty"`
	SyntheticSeed  uint64    `json:"synthetic_seed,omitempty"`
	SyntheticNoise float64   `json:"synthetic_noise,omitempty"`
	Dim            int       `json:"dim"`
	Lambda         float64   `json:"lambda"`
	Rho            float64   `json:"rho,omitempty"`
	Solver         string    `json:"solver"`
	Passes         float64   `json:"passes"`
	Gap            *float64  `json:"gap"`
	Weights        []float64 `json:"weights"`
	AverageWeights []float64 `json:"average_weights,omitempty"`
}

func writeModel(path string, m *modelFile) error {
	m.Format = modelFormat
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

func readModel(path string) (*modelFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m modelFile
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: not a model file: %w", path, err)
	}
	if m.Format != modelFormat {
		return nil, fmt.Errorf("%s: format %q, want %q", path, m.Format, modelFormat)
	}
	if m.Dim < 1 || len(m.Weights) != m.Dim {
		return nil, fmt.Errorf("%s: %d weights for dimension %d", path, len(m.Weights), m.Dim)
	}
	if m.AverageWeights != nil && len(m.AverageWeights) != m.Dim {
		return nil, fmt.Errorf("%s: %d average weights for dimension %d", path, len(m.AverageWeights), m.Dim)
	}
	for _, v := range m.Weights {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s: non-finite weight", path)
		}
	}
	return &m, nil
}

func finiteOrNil(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}
