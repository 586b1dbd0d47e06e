package datasets

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
)

func TestNewMulticlassData(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x, y := randomExamples(rng, 30, 5, []string{"10", "-1", "2"})
	tx, _ := randomExamples(rng, 6, 7, []string{"x"}) // two more features
	ty := []string{"2", "3", "-1", "10", "3", "2"}    // label 3 only in the test set: no class
	train := &Examples{Name: "tr", X: x, Labels: y, NumFeatures: 5}
	test := &Examples{Name: "te", X: tx, Labels: ty, NumFeatures: 7}
	beyond := 0 // test values of features 5 and 6, which the training set does not have
	for _, v := range tx {
		for _, f := range v.Idx {
			if f >= 5 {
				beyond++
			}
		}
	}
	if beyond == 0 {
		t.Fatal("the test set has no value beyond the training features")
	}
	txRead := cloneVecs(tx)
	for _, pre := range []Preprocess{{}, {Bias: true}, {Scaling: ScaleMinMax, Bias: true}, {Scaling: ScaleStandardize}} {
		d, err := NewMulticlassData(train, test, pre)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(d.Classes, []string{"-1", "2", "10"}) {
			t.Fatalf("classes %v, want the training set's in numeric order", d.Classes)
		}
		if want := (Unseen{Features: beyond, Labels: []string{"3"}, Items: 2, Item: "example"}); !reflect.DeepEqual(d.Unseen, want) {
			t.Fatalf("unseen %+v, want %+v", d.Unseen, want)
		}
		// The training set alone fixes the features (issue 35, item 7):
		// F = 5, the bias at index 5, the test's features 5 and 6 dropped.
		nf := 5
		if pre.Bias {
			nf = 6
		}
		if d.NumFeatures != 5 || d.Train.NumFeatures() != nf || d.Test.NumFeatures() != nf || d.Train.NumClasses() != 3 {
			t.Fatalf("%+v: F %d, problems %d/%d features, K %d", pre, d.NumFeatures, d.Train.NumFeatures(), d.Test.NumFeatures(), d.Train.NumClasses())
		}
		for _, set := range []struct {
			ex *Examples
			p  *oracles.Multiclass
		}{{train, d.Train}, {test, d.Test}} {
			want := denseRows(set.ex.X, 7)
			for i := range want {
				want[i] = want[i][:5] // features 5 and 6 dropped
			}
			if pre.Scaling != ScaleNone {
				want = referenceScale(pre.Scaling, denseRows(train.X, 5), want)
			}
			for i, label := range set.ex.Labels {
				if label == "3" {
					if set.p.Truth(i)[0] != oracles.NoClass || d.Class(label) != -1 {
						t.Fatalf("test example %d of label 3 has class %d", i, set.p.Truth(i)[0])
					}
				} else if c := d.Class(label); c < 0 || d.Classes[set.p.Truth(i)[0]] != label || int(set.p.Truth(i)[0]) != c {
					t.Fatalf("example %d: label %s has class %d", i, label, set.p.Truth(i)[0])
				}
				in := set.p.Input(i)
				got := in.Dense(nf)
				for f := 0; f < 5; f++ {
					if math.Abs(got[f]-want[i][f]) > 1e-9 {
						t.Fatalf("%+v: %s example %d feature %d = %v, want %v", pre, set.ex.Name, i, f, got[f], want[i][f])
					}
				}
				if pre.Bias && got[5] != 1 {
					t.Fatalf("bias feature %v", got[5])
				}
			}
		}
		oraclestest.Conformance(t, d.Train, oraclestest.CheckOptions{})
	}
	if d, _ := NewMulticlassData(train, nil, Preprocess{}); d == nil || d.Test != nil || len(d.Classes) != 3 {
		t.Errorf("without a test set: %+v", d)
	}
	// The input examples are not modified.
	if !slices.Equal(train.X[0].Idx, x[0].Idx) || train.NumFeatures != 5 || test.NumFeatures != 7 || !slices.EqualFunc(test.X, txRead, equalVecs) {
		t.Error("NewMulticlassData modified its input")
	}
	strs := &Examples{Name: "s", X: make([]oracles.SparseVec, 3), Labels: []string{"b", "10", "a"}}
	if d, err := NewMulticlassData(strs, nil, Preprocess{}); err != nil || !slices.Equal(d.Classes, []string{"10", "a", "b"}) || d.Class("c") != -1 {
		t.Errorf("text labels: %v, %v", d, err)
	}
	// One class: nothing to learn (issue 22, item 13), refused rather than
	// trained to a gap of 0.
	one := &Examples{Name: "one", X: make([]oracles.SparseVec, 2), Labels: []string{"a", "a"}}
	if _, err := NewMulticlassData(one, nil, Preprocess{}); err == nil || !strings.Contains(err.Error(), `every training example has label "a": one class`) {
		t.Errorf("one class: %v", err)
	}
	for _, bad := range []*Examples{nil, {Name: "empty"}} {
		if _, err := NewMulticlassData(bad, nil, Preprocess{}); err == nil {
			t.Errorf("NewMulticlassData(%v) accepted", bad)
		}
	}
	// Regression targets as labels: too many weights.
	reg := &Examples{Name: "reg", NumFeatures: 1 << 20}
	for i := 0; i < 200; i++ {
		reg.X = append(reg.X, oracles.SparseVec{})
		reg.Labels = append(reg.Labels, strings.Repeat("1", i+1))
	}
	if _, err := NewMulticlassData(reg, nil, Preprocess{}); err == nil || !strings.Contains(err.Error(), "regression") {
		t.Errorf("huge model: %v", err)
	}
}

func TestTestFileCandidates(t *testing.T) {
	tests := []struct {
		train string
		first []string // the leading candidates, in order
	}{
		{"d/iris_train.csv", []string{"d/iris_test.csv", "d/iris_test.csv.gz", "d/iris_train.csv.t"}},
		{"d/a.TRAIN.svm", []string{"d/a.TEST.svm"}},
		{"d/Train.csv", []string{"d/Test.csv"}},
		{"d/dna.scale.tr", []string{"d/dna.scale.t", "d/dna.scale.t.gz", "d/dna.scale.tr.t"}},
		{"d/letter.scale", []string{"d/letter.scale.t", "d/letter.scale.t.gz"}},
		{"d/a.svm.gz", []string{"d/a.svm.t.gz", "d/a.svm.t"}},
		{"d/mnist_train.csv.gz", []string{"d/mnist_test.csv.gz", "d/mnist_test.csv"}},
	}
	for _, tc := range tests {
		got := TestFileCandidates(filepath.FromSlash(tc.train))
		for k, want := range tc.first {
			if k >= len(got) || got[k] != filepath.FromSlash(want) {
				t.Errorf("TestFileCandidates(%s) = %v, want it to start with %v", tc.train, got, tc.first)
				break
			}
		}
		if slices.Contains(got, filepath.FromSlash(tc.train)) {
			t.Errorf("TestFileCandidates(%s) lists the training file", tc.train)
		}
	}
}

func TestLoadGenericFormats(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	// svmlight: the training file is 1-based-looking (no index 0), which
	// decides for its test file too (issue 35, item 7): the test file's
	// index 0 is a feature the training file does not have, dropped, and
	// does not make both files 0-based.
	svmTrain := writeFile(t, dir, "a.svm", []byte("1 1:1 3:2\n2 2:1\n1 3:1\n"))
	writeFile(t, dir, "a.svm.t", []byte("2 0:1 1:1\n3 2:2\n"))
	libsvm := writeFile(t, dir, "letter.scale", gzipBytes(t, []byte("1 1:1\n-1 2:1\n")))
	writeFile(t, dir, "letter.scale.t", []byte("1 2:1\n"))
	csvTrain := writeFile(t, dir, "iris_train.csv", []byte("sl,sw,species\n5.1,3.5,setosa\n7,3.2,versicolor\n6.3,3.3,virginica\n"))
	writeFile(t, dir, "iris_test.csv", []byte("sl,sw,species\n5,3.6,setosa\n"))
	sniffed := writeFile(t, dir, "data.txt", []byte("# svm\n3 1:0.5 2:1\n4 1:1\n"))
	writeFile(t, dir, "data.txt.t", []byte("3 1:1\n"))
	other := writeFile(t, dir, "held-out.svm", []byte("1 1:1\n2 2:1\n"))
	tests := []struct {
		name     string
		opt      Options
		nTr, nTe int
		dim      int
	}{
		{svmTrain, Options{}, 3, 2, 2 * (3 + 1)},                                                   // 1-based: F = 3, bias, K = 2 (label 3 only in the test file: no class)
		{"svmlight", Options{Path: svmTrain, NoBias: true}, 3, 2, 2 * 3},                           // the same by format name
		{svmTrain, Options{SVMLight: SVMLightOptions{IndexBase: IndexOne}, NoBias: true}, 0, 0, 0}, // index 0 in the test file: error
		{svmTrain, Options{TestPath: other, NoBias: true}, 3, 2, 2 * 3},                            // both 1-based: F = 3, K = 2
		{libsvm, Options{NoBias: true}, 2, 1, 2 * 2},
		{csvTrain, Options{Scaling: ScaleMinMax}, 3, 1, 3 * 3},
		{"csv", Options{Path: csvTrain, CSV: CSVOptions{Label: "species"}}, 3, 1, 3 * 3},
		{sniffed, Options{NoBias: true}, 2, 1, 2 * 2},
	}
	for _, tc := range tests {
		tr, te, err := Load(tc.name, tc.opt)
		if tc.dim == 0 {
			if err == nil || !strings.Contains(err.Error(), "a.svm.t:1: feature index 0") {
				t.Errorf("Load(%s, %+v): error %v", tc.name, tc.opt, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Load(%s): %v", tc.name, err)
		}
		if tr.Len() != tc.nTr || te.Len() != tc.nTe || tr.Dim() != tc.dim || te.Dim() != tc.dim {
			t.Errorf("Load(%s, %+v): %d/%d examples, d = %d/%d; want %d/%d, d = %d", tc.name, tc.opt, tr.Len(), te.Len(), tr.Dim(), te.Dim(), tc.nTr, tc.nTe, tc.dim)
		}
	}
	// The index detection reads the training file alone: its feature 1 is
	// feature 0, and so is the test file's; the test file's index 0 is
	// dropped.
	d, err := LoadSVMLight(svmTrain, Options{NoBias: true})
	if err != nil {
		t.Fatal(err)
	}
	if in := d.Train.Input(1); !slices.Equal(in.Idx, []int32{1}) || d.TestPath != svmTrain+".t" || !slices.Equal(d.Classes, []string{"1", "2"}) {
		t.Errorf("example 1 input %v, test file %s, classes %v", in.Idx, d.TestPath, d.Classes)
	}
	if in := d.Test.Input(0); !slices.Equal(in.Idx, []int32{0}) {
		t.Errorf("test example 0 input %v, want feature 0 (index 1) alone", in.Idx)
	}
	// Issue 22, item 7: the test file's label 3 is no class; its example
	// counts as an error whatever the weights.
	if want := (Unseen{Features: 1, Labels: []string{"3"}, Items: 1, Item: "example"}); !reflect.DeepEqual(d.Unseen, want) || d.Test.Truth(1)[0] != oracles.NoClass {
		t.Errorf("unseen %+v, want %+v; test truth %v", d.Unseen, want, d.Test.Truth(1))
	}
	if l := oracles.MeanLoss(d.Test, make([]float64, d.Test.Dim())); l != 1 {
		t.Errorf("test loss of w = 0: %v, want 1 (class 1 predicted for a 2, no class for the 3)", l)
	}

	noTest := writeFile(t, dir, "lonely.svm", []byte("1 1:1\n"))
	mismatch := writeFile(t, dir, "m_train.csv", []byte("1,2,a\n"))
	writeFile(t, dir, "m_test.csv", []byte("1,a\n"))
	renamed := writeFile(t, dir, "n_train.csv", []byte("f,g,y\n1,2,a\n"))
	writeFile(t, dir, "n_test.csv", []byte("f,h,y\n1,2,a\n"))
	fails := []struct {
		name string
		opt  Options
		want string
	}{
		{noTest, Options{}, "no test file for " + noTest + ": tried " + noTest + ".t"},
		{noTest, Options{TestPath: filepath.Join(dir, "nope.t")}, "nope.t"},
		{mismatch, Options{}, "has 2 feature columns but"},
		{renamed, Options{}, "name different feature columns"},
		{"svmlight", Options{}, "needs the path of its training file"},
		{"csv", Options{Path: dir}, "is a folder"},
		{"ocr", Options{Scaling: ScaleMinMax}, "ocr: scaling applies to numeric features only"},
		{"synthetic", Options{Scaling: ScaleStandardize}, "synthetic: scaling applies"},
		{"synthetic", Options{Path: svmTrain}, "drop the path"},
	}
	for _, tc := range fails {
		if _, _, err := Load(tc.name, tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(%s, %+v): error %v, want %q", tc.name, tc.opt, err, tc.want)
		}
	}
}

func TestRecognize(t *testing.T) {
	dir := t.TempDir()
	uspsDir := filepath.Join(dir, "u")
	writeFile(t, uspsDir, "zip.train", []byte("x"))
	writeFile(t, uspsDir, "zip.test", []byte("x"))
	tests := []struct {
		path, want string
	}{
		{writeFile(t, dir, "letter.data.gz", nil), "ocr"},
		{writeFile(t, dir, "zip.train.gz", nil), "usps"},
		{uspsDir, "usps"},
		{writeFile(t, dir, "x.CSV.gz", nil), "csv"},
		{writeFile(t, dir, "x.libsvm", nil), "svmlight"},
		{writeFile(t, dir, "usps.scale", nil), "svmlight"},
		{writeFile(t, dir, "news20", gzipBytes(t, []byte("\n# c\n1 3:1 7:2\n"))), "svmlight"},
		{writeFile(t, dir, "table.dat", []byte("a,b\n1,2\n")), "csv"},
		{writeFile(t, dir, "words.txt", []byte("hello\n")), ""},
		{writeFile(t, dir, "corpus", []byte("Confidence NN B-NP\nin IN B-PP\n")), "conll"},
		{writeFile(t, dir, "empty", nil), ""},
		{filepath.Join(dir, "missing"), ""},
	}
	emptyDir := filepath.Join(dir, "e")
	os.Mkdir(emptyDir, 0o755)
	tests = append(tests, struct{ path, want string }{emptyDir, ""})
	for _, tc := range tests {
		got, err := Recognize(tc.path)
		if got != tc.want || (tc.want == "") != (err != nil) {
			t.Errorf("Recognize(%s) = %q, %v; want %q", tc.path, got, err, tc.want)
		}
		if err != nil && !strings.Contains(err.Error(), tc.path) {
			t.Errorf("error %v does not name the path", err)
		}
	}
}
