package datasets

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/oracles"
)

// featureMoments returns the mean and population variance of every feature
// of the inputs x (absent entries are zeros).
func featureMoments(x []oracles.SparseVec, nf int) (mean, variance []float64) {
	mean, variance = make([]float64, nf), make([]float64, nf)
	for _, v := range x {
		for f, val := range v.Dense(nf) {
			mean[f] += val / float64(len(x))
		}
	}
	for _, v := range x {
		for f, val := range v.Dense(nf) {
			variance[f] += (val - mean[f]) * (val - mean[f]) / float64(len(x))
		}
	}
	return mean, variance
}

// mulanInputs returns the inputs of the multi-label examples of a MULAN
// problem.
func mulanInputs(t *testing.T, p oracles.Problem) []oracles.SparseVec {
	t.Helper()
	ex, ok := p.(*factorgraph.Exact)
	if !ok {
		t.Fatalf("%T is not a *factorgraph.Exact", p)
	}
	x := make([]oracles.SparseVec, p.Len())
	for i := range x {
		x[i] = ex.Model().Inputs(i)[0]
	}
	return x
}

// TestScalingOfEveryReader checks that every reader of numeric features
// scales them on the training file alone: standardized training features
// have mean 0 and variance 1, the test features are mapped with the
// training statistics, and a scaler given back (a model's) rebuilds the
// same problems.
func TestScalingOfEveryReader(t *testing.T) {
	dir := t.TempDir()
	mulan := writeMULAN(t, dir, "toy")
	train := uspsLine("1", uspsValues(0)) + "\n" + uspsLine("2", uspsValues(1)) + "\n" + uspsLine("9", uspsValues(2)) + "\n"
	writeFile(t, dir, "zip.train", []byte(train))
	writeFile(t, dir, "zip.test", []byte(uspsLine("3", uspsValues(3))+"\n"))
	svm := writeFile(t, dir, "s.svm", []byte("1 1:10 2:-3\n2 1:20 3:7\n1 2:5\n"))
	writeFile(t, dir, "s.svm.t", []byte("2 1:15 2:1\n"))
	csv := writeFile(t, dir, "c_train.csv", []byte("100,1,a\n300,2,b\n200,6,a\n"))
	writeFile(t, dir, "c_test.csv", []byte("250,0,b\n"))
	cases := []struct {
		name, path string
		features   int // features read (without the bias)
		inputs     func(p oracles.Problem) []oracles.SparseVec
	}{
		{"mulan", mulan, 3, func(p oracles.Problem) []oracles.SparseVec { return mulanInputs(t, p) }},
		{"usps", filepath.Join(dir, "zip.train"), USPSFeatures, nil},
		{"svmlight", svm, 3, nil},
		{"csv", csv, 2, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			inputs := tc.inputs
			if inputs == nil {
				inputs = func(p oracles.Problem) []oracles.SparseVec {
					m := p.(*oracles.Multiclass)
					x := make([]oracles.SparseVec, m.Len())
					for i := range x {
						x[i] = m.Input(i)
					}
					return x
				}
			}
			raw, err := LoadData(tc.path, Options{NoBias: true})
			if err != nil {
				t.Fatal(err)
			}
			if raw.Name != tc.name || raw.Scaler != nil || raw.TrainPath == "" || raw.TestPath == "" {
				t.Fatalf("unscaled: name %q, scaler %v, files %q %q", raw.Name, raw.Scaler, raw.TrainPath, raw.TestPath)
			}
			d, err := LoadData(tc.path, Options{NoBias: true, Scaling: ScaleStandardize})
			if err != nil {
				t.Fatal(err)
			}
			if d.Scaler == nil || d.Scaler.Scaling != ScaleStandardize || len(d.Scaler.Offset) != tc.features {
				t.Fatalf("scaler %+v, want a standardization of %d features", d.Scaler, tc.features)
			}
			mean, variance := featureMoments(inputs(d.Train), tc.features)
			rawMean, rawVar := featureMoments(inputs(raw.Train), tc.features)
			for f := range mean {
				wantVar := 1.0
				if rawVar[f] == 0 {
					wantVar = 0 // a constant feature is only shifted
				}
				if math.Abs(mean[f]) > 1e-12 || math.Abs(variance[f]-wantVar) > 1e-12 {
					t.Errorf("training feature %d: mean %g, variance %g; want 0 and %g", f, mean[f], variance[f], wantVar)
				}
			}
			// The test inputs are mapped with the training statistics.
			rawTest, test := inputs(raw.Test), inputs(d.Test)
			for i := range test {
				a, b := rawTest[i].Dense(tc.features), test[i].Dense(tc.features)
				for f := range a {
					want := a[f] - rawMean[f]
					if rawVar[f] > 0 {
						want /= math.Sqrt(rawVar[f])
					}
					if math.Abs(b[f]-want) > 1e-9*math.Max(1, math.Abs(want)) {
						t.Errorf("test example %d feature %d: %g, want %g", i, f, b[f], want)
					}
				}
			}
			// The scaler, through JSON and back, rebuilds the same problems.
			b, err := json.Marshal(d.Scaler)
			if err != nil || !strings.Contains(string(b), `"scaling":"standardize"`) {
				t.Fatalf("JSON %s, %v", b, err)
			}
			var back Scaler
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			again, err := LoadData(tc.path, Options{NoBias: true, Scaler: &back})
			if err != nil {
				t.Fatal(err)
			}
			for _, pair := range [][2]oracles.Problem{{d.Train, again.Train}, {d.Test, again.Test}} {
				x, y := inputs(pair[0]), inputs(pair[1])
				for i := range x {
					if !slicesEqual(x[i].Dense(tc.features), y[i].Dense(tc.features)) {
						t.Fatalf("example %d differs after the scaler's round trip", i)
					}
				}
			}
			if _, err := LoadData(tc.path, Options{Scaling: ScaleMinMax, Scaler: &back}); err == nil || !strings.Contains(err.Error(), "differs from the kind") {
				t.Errorf("minmax with a standardizing scaler: %v", err)
			}
			short := Scaler{Scaling: ScaleStandardize, Offset: []float64{0}, Factor: []float64{1}}
			if tc.features > 1 {
				if _, err := LoadData(tc.path, Options{Scaler: &short}); err == nil || !strings.Contains(err.Error(), "maps 1 features") {
					t.Errorf("scaler of 1 feature: %v", err)
				}
			}
		})
	}
}

func slicesEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}

func TestScalerValidate(t *testing.T) {
	for _, tc := range []struct {
		sc   Scaler
		want string
	}{
		{Scaler{Scaling: ScaleNone, Offset: []float64{0}, Factor: []float64{1}}, "kind none"},
		{Scaler{Scaling: ScaleMinMax, Offset: []float64{0, 1}, Factor: []float64{1}}, "2 offsets and 1 factors"},
		{Scaler{Scaling: ScaleMinMax}, "at least one"},
		{Scaler{Scaling: ScaleStandardize, Offset: []float64{math.NaN()}, Factor: []float64{1}}, "feature 0"},
		{Scaler{Scaling: ScaleStandardize, Offset: []float64{0, 0}, Factor: []float64{1, 0}}, "feature 1"},
		{Scaler{Scaling: ScaleStandardize, Offset: []float64{0}, Factor: []float64{math.Inf(1)}}, "feature 0"},
	} {
		if err := tc.sc.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.sc, err, tc.want)
		}
	}
	var s Scaling
	if err := json.Unmarshal([]byte(`"unit"`), &s); err == nil {
		t.Error(`scaling "unit" accepted`)
	}
	if _, err := Scaling(7).MarshalText(); err == nil {
		t.Error("Scaling(7) encoded")
	}
}

// TestFilesBesideEveryFormat finds the test file (and the MULAN label file)
// of a user's own training file in every format, or takes the one named.
func TestFilesBesideEveryFormat(t *testing.T) {
	dir := t.TempDir()
	arff := mulanARFF(12, false, 0)
	writeFile(t, dir, "emo_train.arff", []byte(arff))
	writeFile(t, dir, "emo_test.arff", []byte(mulanARFF(5, true, 1)))
	writeFile(t, dir, "emo.xml", []byte(sampleXML))
	other := t.TempDir() // one ARFF, its labels in the only XML file of the folder
	writeFile(t, other, "songs.arff", []byte(arff))
	writeFile(t, other, "songs-held.arff", []byte(mulanARFF(4, false, 3)))
	writeFile(t, other, "labels.xml", []byte(sampleXML))
	writeFile(t, dir, "chunks.train", []byte("a X B-NP\nb Y I-NP\n\nc X B-VP\n"))
	writeFile(t, dir, "chunks.test", []byte("a X B-NP\n"))
	usps := uspsLine("1", uspsValues(0)) + "\n"
	writeFile(t, dir, "digits.TRAIN", []byte(usps+uspsLine("2", uspsValues(1))+"\n"))
	writeFile(t, dir, "digits.TEST", []byte(usps))
	cases := []struct {
		path, testPath       string
		kind, wantTest       string
		trainLen, testLen    int
		wantLabels0, wantXML string
	}{
		{filepath.Join(dir, "emo_train.arff"), "", "mulan", filepath.Join(dir, "emo_test.arff"), 12, 5, "L1", ""},
		{filepath.Join(dir, "emo_test.arff"), "", "mulan", filepath.Join(dir, "emo_test.arff"), 12, 5, "L1", ""},
		{filepath.Join(other, "songs.arff"), filepath.Join(other, "songs-held.arff"), "mulan", filepath.Join(other, "songs-held.arff"), 12, 4, "L1", ""},
		{filepath.Join(dir, "chunks.train"), "", "conll", filepath.Join(dir, "chunks.test"), 2, 1, "B-NP", ""},
		{filepath.Join(dir, "chunks.train"), filepath.Join(dir, "chunks.train"), "conll", filepath.Join(dir, "chunks.train"), 2, 2, "B-NP", ""},
		{filepath.Join(dir, "digits.TRAIN"), "", "usps", filepath.Join(dir, "digits.TEST"), 2, 1, "1", ""}, // the training file's digits
	}
	for _, tc := range cases {
		d, err := LoadData(tc.path, Options{TestPath: tc.testPath})
		if err != nil {
			t.Errorf("%s (test %q): %v", tc.path, tc.testPath, err)
			continue
		}
		if d.Name != tc.kind || d.TestPath != tc.wantTest || d.Train.Len() != tc.trainLen || d.Test.Len() != tc.testLen || len(d.Labels) == 0 || d.Labels[0] != tc.wantLabels0 {
			t.Errorf("%s (test %q): %s, test %s, %d/%d examples, labels %v; want %s, %s, %d/%d, first label %s",
				tc.path, tc.testPath, d.Name, d.TestPath, d.Train.Len(), d.Test.Len(), d.Labels, tc.kind, tc.wantTest, tc.trainLen, tc.testLen, tc.wantLabels0)
		}
	}
	if f, err := FindMULAN(filepath.Join(other, "songs.arff")); err == nil {
		t.Errorf("songs.arff without a test file: %+v", f)
	} else if !strings.Contains(err.Error(), "no test file for "+filepath.Join(other, "songs.arff")) {
		t.Errorf("songs.arff without a test file: %v", err)
	}
}

// TestMessagesNameTheFormat checks that data of one format passed where
// another is expected, or empty, is reported with the right format and
// file.
func TestMessagesNameTheFormat(t *testing.T) {
	dir := t.TempDir()
	mulan := writeMULAN(t, dir, "toy")
	svm := writeFile(t, dir, "a.svm", []byte("1 1:1\n2 2:1\n"))
	cols := writeFile(t, dir, "train.txt", []byte("a X B-NP\n"))
	writeFile(t, dir, "test.txt", []byte("a X B-NP\n"))
	csv := writeFile(t, dir, "x_train.csv", []byte("1,2,a\n"))
	empty := writeFile(t, t.TempDir(), "e-train.arff", []byte("@relation e\n@attribute a numeric\n@attribute l {0,1}\n@data\n% nothing\n"))
	writeFile(t, filepath.Dir(empty), "e-test.arff", []byte("@relation e\n@attribute a numeric\n@attribute l {0,1}\n@data\n1,0\n"))
	writeFile(t, filepath.Dir(empty), "e.xml", []byte(`<labels><label name="l"/></labels>`))
	testARFF := filepath.Join(dir, "toy-test.arff")
	cases := []struct {
		name string
		opt  Options
		want string
	}{
		{"conll", Options{Path: cols, TestPath: testARFF}, "the test file " + testARFF + " looks like MULAN multi-label data (ARFF and its XML label file), but the training data is column-format (CoNLL) text"},
		{svm, Options{TestPath: mulan}, "looks like MULAN multi-label data"},
		{mulan, Options{TestPath: svm}, "the test file " + svm + " looks like svmlight"},
		{csv, Options{TestPath: svm}, "looks like svmlight (label index:value ...), but the training data is CSV"},
		{empty, Options{}, "arff: " + empty + ": no instances after @data"},
		{"horses", Options{TestPath: svm}, "horses: the test images"},
		{"ocr", Options{TestPath: cols}, "ocr: the test words"},
	}
	for _, tc := range cases {
		if _, err := LoadData(tc.name, tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("LoadData(%s, test %s): %v, want %q", tc.name, tc.opt.TestPath, err, tc.want)
		}
	}
	// Lines that only look like another format are no evidence: a
	// tab-separated file read as CSV looks like columns.
	tsv := writeFile(t, dir, "t.tsv", []byte("1\t2\ta\n3\t4\tb\n"))
	if d, err := LoadData("csv", Options{Path: tsv, TestPath: tsv, CSV: CSVOptions{Comma: '\t'}}); err != nil || d.Test.Len() != 2 {
		t.Errorf("TSV read as CSV: %v", err)
	}
	// Recognize tells an ARFF by its name or its first line, never as
	// column-format text.
	renamed := writeFile(t, dir, "toy.data", []byte(mulanARFF(3, false, 0)))
	for _, p := range []string{testARFF, renamed, filepath.Join(dir, "toy-train.arff")} {
		if kind, err := Recognize(p); err != nil || kind != "mulan" {
			t.Errorf("Recognize(%s) = %q, %v; want mulan", p, kind, err)
		}
	}
	digits := writeFile(t, dir, "digits.txt", []byte(uspsLine("1", uspsValues(0))+"\n"))
	if kind, err := Recognize(digits); err != nil || kind != "usps" {
		t.Errorf("Recognize(%s) = %q, %v; want usps", digits, kind, err)
	}
	if _, err := os.Stat(cols); err != nil {
		t.Fatal(err)
	}
}
