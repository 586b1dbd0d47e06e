package datasets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// Schema is what the training data fixes of its problem, which a model
// keeps so that it can be applied to other data of the same kind without
// the training file (Read): the format, the names of the labels (the
// classes of multiclass data, the labels of multi-label data, the tags of
// column-format data), the feature map (the number of features, the bias
// and the index base of multiclass data, the attributes of MULAN data, the
// attribute dictionary of column-format data) and the scaling fitted on
// the training file. Data.Schema returns it; it is plain data, written and
// read as JSON (the reader checks it).
type Schema struct {
	// Format is the dataset or format of the training data, as Data.Name
	// spells it.
	Format string
	// Labels names the labels (Data.Labels); nil for the tasks whose
	// labels have no names of their own (OCR letters are a..z, masks,
	// alignments).
	Labels []string
	// Features is the number of input features F of multiclass data
	// (before the bias) and of MULAN data (its feature attributes).
	Features int
	// Bias tells whether a constant feature follows them (multiclass data;
	// the per-label bias of MULAN data).
	Bias bool
	// IndexBase is the base the svmlight training file was read with
	// (never IndexAuto: the detected one).
	IndexBase IndexBase
	// FeatureNames are the feature columns of a CSV header, nil without
	// one.
	FeatureNames []string
	// Attributes are the attributes of a MULAN training file in file
	// order, labels included: another file must declare the same ones (or
	// the features alone, when it holds no labels).
	Attributes []Attribute
	// Columns is the number of fields of a token line of a column-format
	// training file (inputs and tag).
	Columns int
	// Dict is the attribute dictionary of column-format data.
	Dict *Dictionary
	// Scaler is the scaling fitted on the training file, nil without.
	Scaler *Scaler
}

// schemaJSON is the JSON form of a Schema.
type schemaJSON struct {
	Format       string          `json:"format"`
	Labels       []string        `json:"labels,omitempty"`
	Features     int             `json:"features,omitempty"`
	Bias         bool            `json:"bias,omitempty"`
	IndexBase    string          `json:"index_base,omitempty"`
	FeatureNames []string        `json:"feature_names,omitempty"`
	Attributes   []attributeJSON `json:"attributes,omitempty"`
	Columns      int             `json:"columns,omitempty"`
	Dict         *Dictionary     `json:"dictionary,omitempty"`
	Scaler       *Scaler         `json:"scaler,omitempty"`
}

type attributeJSON struct {
	Name    string   `json:"name"`
	Nominal []string `json:"nominal,omitempty"`
}

// MarshalJSON writes the schema under snake_case names, leaving out what
// its format does not use.
func (s *Schema) MarshalJSON() ([]byte, error) {
	j := schemaJSON{Format: s.Format, Labels: s.Labels, Features: s.Features, Bias: s.Bias, FeatureNames: s.FeatureNames,
		Columns: s.Columns, Dict: s.Dict, Scaler: s.Scaler}
	if s.IndexBase != IndexAuto {
		j.IndexBase = s.IndexBase.String()
	}
	for _, a := range s.Attributes {
		j.Attributes = append(j.Attributes, attributeJSON(a))
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes and checks it (see Check):
// a field it does not know is an error, as is a schema that cannot build a
// problem.
func (s *Schema) UnmarshalJSON(b []byte) error {
	var j schemaJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	out := Schema{Format: j.Format, Labels: j.Labels, Features: j.Features, Bias: j.Bias, FeatureNames: j.FeatureNames,
		Columns: j.Columns, Dict: j.Dict, Scaler: j.Scaler}
	if j.IndexBase != "" {
		var err error
		if out.IndexBase, err = ParseIndexBase(j.IndexBase); err != nil {
			return fmt.Errorf("schema: %w", err)
		}
	}
	for _, a := range j.Attributes {
		out.Attributes = append(out.Attributes, Attribute(a))
	}
	if err := out.Check(); err != nil {
		return err
	}
	*s = out
	return nil
}

// Check reports a schema that cannot build the problem of its format: an
// unknown format, labels listed twice, too few classes, a scaler of
// another number of features, MULAN labels that are not {0,1} attributes,
// column-format data without its dictionary or tags.
func (s *Schema) Check() error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("schema of %s data: %s", s.Format, fmt.Sprintf(format, args...))
	}
	if !slices.Contains(Names, s.Format) && s.Format != "mulan" {
		return fmt.Errorf("schema: unknown format %s", quote(s.Format))
	}
	seen := map[string]bool{}
	for _, l := range s.Labels {
		if seen[l] {
			return fail("label %s listed twice", quote(l))
		}
		seen[l] = true
	}
	if s.Scaler != nil {
		if err := s.Scaler.Validate(); err != nil {
			return fail("%v", err)
		}
		if len(s.Scaler.Offset) != s.Features {
			return fail("a scaler of %d features for %d features", len(s.Scaler.Offset), s.Features)
		}
	}
	switch s.Format {
	case "svmlight", "csv", "usps":
		switch {
		case len(s.Labels) < 2:
			return fail("%d classes, want at least 2", len(s.Labels))
		case s.Features < 0 || s.Features > MaxMulticlassDim:
			return fail("%d features", s.Features)
		case s.Format == "svmlight" && s.IndexBase == IndexAuto:
			return fail("no index base")
		case s.Format == "usps" && s.Features != USPSFeatures:
			return fail("%d features, want %d grey values", s.Features, USPSFeatures)
		case s.FeatureNames != nil && len(s.FeatureNames) != s.Features:
			return fail("%d feature names for %d features", len(s.FeatureNames), s.Features)
		}
	case "yeast", "mulan":
		labels, features := 0, 0
		for _, a := range s.Attributes {
			if seen[a.Name] {
				labels++
				if len(a.Nominal) != 2 {
					return fail("label attribute %s is not nominal {0,1}", quote(a.Name))
				}
			} else {
				features++
			}
		}
		if labels != len(s.Labels) || len(s.Labels) == 0 || features != s.Features {
			return fail("%d attributes for %d labels and %d features", len(s.Attributes), len(s.Labels), s.Features)
		}
	case "conll":
		switch {
		case s.Dict == nil:
			return fail("no attribute dictionary")
		case len(s.Labels) == 0:
			return fail("no tags")
		case s.Columns < 2:
			return fail("%d columns, want inputs and a tag", s.Columns)
		}
	}
	return nil
}

// Schema returns what the training data fixes of its problem (see
// Schema), for a model to store.
func (d *Data) Schema() *Schema {
	if d.schema == nil {
		return &Schema{Format: d.Name}
	}
	s := *d.schema
	return &s
}

// errStatistics is the error of reading other data with the schema of a
// dataset whose features are computed from statistics of its training
// data that the schema does not hold.
var errStatistics = errors.New("its features are computed from statistics of the training data, which a schema does not hold")
