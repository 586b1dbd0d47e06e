package datasets

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/imaging/features"
	"github.com/fwstruct/fwstruct/imaging/slic"
)

// TestSpecJSONRoundTrip: every field of Options, set to a value other than
// its zero, reads back the same from the JSON of a Spec; the zero value
// writes an empty object.
func TestSpecJSONRoundTrip(t *testing.T) {
	full := Spec{Name: "/data/x.csv", Options: Options{
		Path: "/data/x.csv", TestPath: "/data/y.csv", Split: SplitLarge, NoBias: true, Scaling: ScaleStandardize,
		Scaler:    &Scaler{Scaling: ScaleStandardize, Offset: []float64{1, 2}, Factor: []float64{0.5, 0.25}},
		SVMLight:  SVMLightOptions{IndexBase: IndexOne, MaxFeatures: 7},
		CSV:       CSVOptions{Comma: '\t', Label: "class", Header: HeaderNo},
		Synthetic: SyntheticConfig{TrainWords: 3, TestWords: 4, Seed: 5, MinLen: 2, MaxLen: 6, FlipNoise: 0.2},
		Conll: ConllOptions{Format: ColumnFormat{Columns: 3, Tag: 3, Inputs: []int{1, 2}, Sep: '\t'}, TestPath: "/c/test.txt",
			MinCount: 2, Templates: []Template{{{Column: 0, Offset: -1}}}, NoBoundary: true},
		Horses: HorsesOptions{Path: "/h", Train: 10, SLIC: slic.Params{Superpixels: 50, Compactness: 5, Iterations: 3},
			Features: features.Config{GreyBins: 8, Cells: []int{4}, Etas: []float64{1}, NoSqrt: true}, CodebookSamples: 9, CacheDir: "/cache", NoCache: true, Workers: 2},
		Hansards: HansardsOptions{Path: "/a", Training: HansardsIntersected, TrainGold: 50, Intersected: 60, EMIterations: 2},
	}}
	// Every field of Options and of its sub-options is set: a field added
	// later fails here until the JSON form knows it.
	var unset func(v reflect.Value, path string, depth int)
	unset = func(v reflect.Value, path string, depth int) {
		if path == "Options.TestOptional" { // how to load, not the data: not in the JSON
			return
		}
		if v.Kind() != reflect.Struct || depth == 2 {
			if v.IsZero() {
				t.Errorf("%s is not set in the test's spec", path)
			}
			return
		}
		for k := 0; k < v.NumField(); k++ {
			unset(v.Field(k), path+"."+v.Type().Field(k).Name, depth+1)
		}
	}
	unset(reflect.ValueOf(full.Options), "Options", 0)
	for _, sp := range []Spec{full, {Name: "ocr"}} {
		b, err := json.Marshal(sp)
		if err != nil {
			t.Fatal(err)
		}
		var back Spec
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if !reflect.DeepEqual(back, sp) {
			t.Errorf("round trip of %s:\n got %+v\nwant %+v", b, back, sp)
		}
	}
	if b, _ := json.Marshal(Spec{Name: "ocr", Options: Options{TestOptional: true}}); string(b) != `{"name":"ocr","options":{}}` {
		t.Errorf("zero options: %s", b)
	}
}

// TestSpecJSONRefusesUnknown: unknown fields and names are errors naming
// them.
func TestSpecJSONRefusesUnknown(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"name":"csv","options":{"pth":"/x"}}`, `"pth"`},
		{`{"name":"ocr","options":{"split":"medium"}}`, `"medium"`},
		{`{"name":"csv","options":{"csv":{"comma":";;"}}}`, `";;"`},
		{`{"name":"csv","options":{"csv":{"header":"maybe"}}}`, `"maybe"`},
		{`{"name":"svmlight","options":{"svmlight":{"index_base":"2"}}}`, `"2"`},
		{`{"name":"hansards","options":{"hansards":{"training":"all"}}}`, `"all"`},
		{`{"name":"horses","options":{"horses":{"slic":{"Pixels":3}}}}`, `"Pixels"`},
		{`{"name":"csv","options":{"scaling":"log"}}`, `"log"`},
	} {
		var sp Spec
		err := json.Unmarshal([]byte(tc.in), &sp)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming %s", tc.in, err, tc.want)
		}
	}
}

// TestSpecAbs: Abs makes the paths absolute, and a name that is a path,
// but not a dataset name.
func TestSpecAbs(t *testing.T) {
	t.Chdir(t.TempDir())
	wd, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := Spec{Name: "x.svm", Options: Options{TestPath: "x.t", Conll: ConllOptions{TestPath: "c"}, Hansards: HansardsOptions{Path: "h"}}}.Abs()
	if err != nil {
		t.Fatal(err)
	}
	o := sp.Options
	if sp.Name != filepath.Join(wd, "x.svm") || o.TestPath != filepath.Join(wd, "x.t") || o.Conll.TestPath != filepath.Join(wd, "c") ||
		o.Hansards.Path != filepath.Join(wd, "h") || o.Path != "" {
		t.Errorf("Abs: %+v", sp)
	}
	if sp, _ := (Spec{Name: "usps"}).Abs(); sp.Name != "usps" {
		t.Errorf("a dataset name became %q", sp.Name)
	}
}
