package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/model"
	"github.com/fwstruct/fwstruct/solver/run"
)

// saveModel writes the model of the run s on the data d (loaded from
// spec) to path: model.New with the oracle accuracy nu and the
// fingerprints computed on workers goroutines.
func saveModel(path string, s run.Solver, d *datasets.Data, spec datasets.Spec, nu float64, workers int) error {
	m, err := model.New(s, d, spec, model.Options{OracleAccuracy: nu, Workers: workers})
	if err != nil {
		return err
	}
	return writeFile(path, m.Write)
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
