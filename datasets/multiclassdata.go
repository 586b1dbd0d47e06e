package datasets

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fwstruct/fwstruct/oracles"
)

// Preprocess says how NewMulticlassData turns the features read into the
// inputs of the model.
type Preprocess struct {
	// Scaling of the features, fitted on the training set only and applied
	// unchanged to the test set (see Scaler).
	Scaling Scaling
	// Bias appends a constant feature 1 after the (scaled) features: a
	// per-class bias, regularized like every other weight, as liblinear's
	// "-B 1" and sklearn's LinearSVC intercept (intercept_scaling=1).
	Bias bool
	// Scaler, when set, is a scaling fitted before (e.g. the one a model
	// stores), applied instead of fitting Scaling on the training set.
	Scaler *Scaler
}

// MulticlassData is a training and test pair of Crammer-Singer multiclass
// problems built from files of a generic format (LoadSVMLight, LoadCSV) or
// from Examples (NewMulticlassData), with the label of every class and the
// preprocessing that maps features to inputs.
type MulticlassData struct {
	// Train and Test are the problems; Test is nil when no test set was
	// given to NewMulticlassData.
	Train, Test *oracles.Multiclass
	// Classes holds the label of each class, as in Examples.Labels: class
	// k is Classes[k]. The classes are the distinct labels of the training
	// set, in increasing numeric order when every label is a number, else
	// in lexicographic order: the test set changes neither the classes nor
	// the dimension of the problem.
	Classes []string
	// Unseen counts what the test set has that the training set does not:
	// the feature values beyond the training set's features (dropped) and
	// the labels no training example has, with the number of test examples
	// of one of them (Item "example"). Their label is oracles.NoClass in
	// Test: every prediction counts as an error on them.
	Unseen Unseen
	// NumFeatures is the number of features of the training set, F (see
	// NewMulticlassData); with Bias, feature F is the constant 1, and the
	// inputs of the problems have F+1 features.
	NumFeatures int
	// Bias tells whether the constant feature was appended.
	Bias bool
	// Scaler is the scaling fitted on the training set, nil without
	// scaling.
	Scaler *Scaler
	// FeatureNames holds the names of the features from a CSV header, nil
	// otherwise.
	FeatureNames []string
	// TrainPath and TestPath are the files read by LoadSVMLight and
	// LoadCSV (empty for NewMulticlassData).
	TrainPath, TestPath string

	trainX []oracles.SparseVec // the training inputs as read (Data.Split)
	base   IndexBase           // svmlight: the index base the training file was read with
	noTest string              // Data.NoTest
}

// Class returns the class of a label (in the form of Examples.Labels), or
// -1 when no class has it.
func (d *MulticlassData) Class(label string) int {
	return slices.Index(d.Classes, label)
}

// MaxMulticlassDim bounds the dimension F*K of a multiclass problem built
// by NewMulticlassData (a dense weight vector of that size takes 1 GiB).
const MaxMulticlassDim = 1 << 27

// NewMulticlassData builds the multiclass problems of a training set and an
// optional test set (nil for none): the labels of the training set become
// classes 0..K-1 (see MulticlassData.Classes; a test label the training set
// does not have is oracles.NoClass, see MulticlassData.Unseen), the features
// are scaled as pre says, with the scaling fitted on the training set, and
// the bias feature is appended. The training set alone fixes the features:
// both problems have its number of features, F = max(train.NumFeatures,
// 1 + its largest feature index), with the bias at index F, and the test
// features at index F or beyond are dropped (counted in
// MulticlassData.Unseen.Features). The input sets are not modified.
func NewMulticlassData(train, test *Examples, pre Preprocess) (*MulticlassData, error) {
	if train == nil || train.Len() == 0 {
		return nil, fmt.Errorf("multiclass data: no training examples")
	}
	d := &MulticlassData{NumFeatures: max(train.NumFeatures, numFeaturesOf(train.X)), Bias: pre.Bias, FeatureNames: train.FeatureNames, trainX: train.X}
	d.Unseen.Item = "example"
	d.Classes = sortedClasses(train.Labels)
	if len(d.Classes) < 2 {
		// Every labeling is the truth: training would certify a gap of 0
		// at w = 0 and predict that class always.
		return nil, fmt.Errorf("multiclass data %s: every training example has label %s: one class, nothing to learn", train.Name, quote(d.Classes[0]))
	}
	nf := d.NumFeatures
	if pre.Bias {
		nf++
	}
	if K := len(d.Classes); nf > 0 && K > MaxMulticlassDim/nf {
		return nil, fmt.Errorf("multiclass data %s: %d features times %d classes is more than %d weights (are the labels classes, not regression targets?)", train.Name, nf, K, MaxMulticlassDim)
	}
	var err error
	if d.Scaler, err = pre.scaler(train.X, d.NumFeatures); err != nil {
		return nil, fmt.Errorf("multiclass data %s: %w", train.Name, err)
	}
	var ignored Unseen
	if d.Train, err = multiclassSet(train, d.Classes, d.NumFeatures, pre.Bias, d.Scaler, &ignored); err != nil {
		return nil, err
	}
	if test != nil {
		if d.Test, err = multiclassSet(test, d.Classes, d.NumFeatures, pre.Bias, d.Scaler, &d.Unseen); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// multiclassSet builds the multiclass problem of ex over classes and
// numFeatures features (then the bias when bias, then scaled by sc when not
// nil): the features at index numFeatures or beyond are dropped and
// counted in u.Features, the labels that are no class are oracles.NoClass,
// counted in u.Labels and u.Items, and the examples without a label ("":
// data to predict on) are oracles.NoClass, not counted.
func multiclassSet(ex *Examples, classes []string, numFeatures int, bias bool, sc *Scaler, u *Unseen) (*oracles.Multiclass, error) {
	x, dropped := keepFeatures(ex.X, numFeatures)
	u.Features += dropped
	u.Item = "example"
	var err error
	if sc != nil {
		if x, err = sc.Transform(x); err != nil {
			return nil, fmt.Errorf("multiclass data %s: %w", ex.Name, err)
		}
	} else if bias {
		x = cloneVecs(x) // the bias is appended below
	}
	nf := numFeatures
	if bias {
		nf++
		for i := range x {
			x[i].Append(int32(numFeatures), 1)
		}
	}
	class := make(map[string]int32, len(classes))
	for k, c := range classes {
		class[c] = int32(k)
	}
	y := make([]int32, len(ex.Labels))
	unseen := map[string]bool{}
	for i, l := range ex.Labels {
		c, ok := class[l]
		if !ok {
			c = oracles.NoClass
			if l != "" {
				unseen[l] = true
				u.Items++
			}
		}
		y[i] = c
	}
	if len(unseen) > 0 {
		u.Labels = sortedClasses(slices.Collect(maps.Keys(unseen)))
	}
	p, err := oracles.NewMulticlass(len(classes), nf, x, y)
	if err != nil {
		return nil, fmt.Errorf("multiclass data %s: %w", ex.Name, err)
	}
	return p, nil
}

// keepFeatures returns x without the entries at feature index numFeatures
// or beyond, and the number of entries left out. The vectors without such
// entries are x's own (shared, not copied).
func keepFeatures(x []oracles.SparseVec, numFeatures int) ([]oracles.SparseVec, int) {
	out := x
	dropped := 0
	for i, v := range x {
		n, _ := slices.BinarySearch(v.Idx, int32(min(numFeatures, math.MaxInt32)))
		if n == len(v.Idx) {
			continue
		}
		if dropped == 0 {
			out = slices.Clone(x)
		}
		dropped += len(v.Idx) - n
		out[i] = oracles.SparseVec{Idx: v.Idx[:n:n], Val: v.Val[:n:n]}
	}
	return out, dropped
}

// cloneVecs returns copies of x with their own storage.
func cloneVecs(x []oracles.SparseVec) []oracles.SparseVec {
	out := make([]oracles.SparseVec, len(x))
	for i := range x {
		out[i] = x[i].Clone()
	}
	return out
}

// LoadSVMLight reads an svmlight training file and its test file and builds
// their multiclass problems with NewMulticlassData. The test file is
// opt.TestPath, else the first existing file of TestFileCandidates(path).
// The feature indices of both files are read as opt.SVMLight.IndexBase
// says, detected by default from the training file alone (0-based when it
// uses index 0, else 1-based). The training file fixes the features, d and
// the position of the bias: the test features it does not have (beyond its
// largest index, or index 0 in a test file when the training file is read
// as 1-based by detection) are dropped and counted in Unseen.Features.
// opt.Scaling and opt.NoBias give the preprocessing (a bias feature by
// default).
func LoadSVMLight(path string, opt Options) (*MulticlassData, error) {
	so := opt.SVMLight
	auto := so.IndexBase == IndexAuto
	if auto {
		so.IndexBase = IndexZero // read as written, decide below
	}
	base := opt.SVMLight.IndexBase
	read := func(p string) (*Examples, error) {
		ex, err := ReadSVMLightFile(p, so)
		if err == nil && auto && base == IndexAuto { // the training file, read first
			base = rebase(ex)
		}
		return ex, err
	}
	below := 0 // test entries of index 0 when the training file is 1-based
	d, err := loadMulticlass("svmlight", path, opt, read, func(train, test *Examples) error {
		if base == IndexOne && auto {
			below = shiftDown(test)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	d.Unseen.Features += below
	d.base = base
	return d, nil
}

// shiftDown makes 1-based the indices of ex, read as 0-based, dropping its
// entries of index 0, and returns their number.
func shiftDown(ex *Examples) int {
	dropped := 0
	for i, v := range ex.X {
		if len(v.Idx) > 0 && v.Idx[0] == 0 {
			dropped++
			v = oracles.SparseVec{Idx: v.Idx[1:], Val: v.Val[1:]}
		}
		for k := range v.Idx {
			v.Idx[k]--
		}
		ex.X[i] = v
	}
	ex.NumFeatures = numFeaturesOf(ex.X)
	return dropped
}

// LoadCSV reads a CSV training file and its test file (with the same
// columns) and builds their multiclass problems with NewMulticlassData. The
// test file is opt.TestPath, else the first existing file of
// TestFileCandidates(path). opt.CSV configures the reader, opt.Scaling and
// opt.NoBias the preprocessing (a bias feature by default).
func LoadCSV(path string, opt Options) (*MulticlassData, error) {
	read := func(p string) (*Examples, error) { return ReadCSVFile(p, opt.CSV) }
	return loadMulticlass("csv", path, opt, read, func(train, test *Examples) error {
		if train.NumFeatures != test.NumFeatures {
			return fmt.Errorf("csv: %s has %d feature columns but %s has %d", train.Name, train.NumFeatures, test.Name, test.NumFeatures)
		}
		if train.FeatureNames != nil && test.FeatureNames != nil && !slices.Equal(train.FeatureNames, test.FeatureNames) {
			return fmt.Errorf("csv: the headers of %s and %s name different feature columns", train.Name, test.Name)
		}
		return nil
	})
}

// loadMulticlass reads the training file at path and its test file with
// read, checks them with pair and builds the problems.
func loadMulticlass(format, path string, opt Options, read func(string) (*Examples, error), pair func(train, test *Examples) error) (*MulticlassData, error) {
	train, err := read(path)
	if err != nil {
		return nil, err
	}
	testPath := opt.TestPath
	if testPath == "" {
		if testPath, err = optionalTestFile(path, opt.TestOptional); err != nil {
			return nil, fmt.Errorf("%s: %w", format, err)
		}
	}
	var test *Examples
	if testPath != "" {
		if test, err = read(testPath); err != nil {
			return nil, err
		}
		if err := pair(train, test); err != nil {
			return nil, err
		}
	}
	d, err := NewMulticlassData(train, test, opt.preprocess())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", format, err)
	}
	d.TrainPath, d.TestPath = path, testPath
	if test == nil {
		d.noTest = noTestNote(path)
	}
	return d, nil
}

// TestFileCandidates returns where LoadSVMLight and LoadCSV look for the
// test file of the training file train when Options.TestPath is empty, in
// order, in train's folder:
//
//  1. train's name with its last "train" replaced by "test" (in the same
//     case): iris_train.csv -> iris_test.csv, a.TRAIN.svm -> a.TEST.svm;
//  2. a final ".tr" replaced by ".t": dna.scale.tr -> dna.scale.t;
//  3. ".t" appended, the libsvm convention: letter.scale -> letter.scale.t;
//
// each also gzip-compressed (".gz" appended, or before the ".gz" of a
// compressed train: a.svm.gz -> a.svm.t.gz) or not. The first that exists
// is used.
func TestFileCandidates(train string) []string {
	dir, base := filepath.Split(train)
	stem, gz := strings.CutSuffix(base, ".gz")
	var names []string
	if k := strings.LastIndex(strings.ToLower(stem), "train"); k >= 0 {
		repl := "test"
		switch {
		case stem[k:k+5] == "TRAIN":
			repl = "TEST"
		case stem[k] == 'T':
			repl = "Test"
		}
		names = append(names, stem[:k]+repl+stem[k+5:])
	}
	if s, ok := strings.CutSuffix(stem, ".tr"); ok {
		names = append(names, s+".t")
	}
	names = append(names, stem+".t")
	var out []string
	for _, n := range names {
		variants := []string{n, n + ".gz"}
		if gz {
			variants[0], variants[1] = variants[1], variants[0]
		}
		for _, c := range variants {
			if p := filepath.Join(dir, c); p != filepath.Clean(train) && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// optionalTestFile is findTestFile, returning "" and no error when no test
// file exists and optional (Options.TestOptional).
func optionalTestFile(train string, optional bool) (string, error) {
	p, err := findTestFile(train)
	if err != nil && optional {
		return "", nil
	}
	return p, err
}

// noTestNote is Data.NoTest for the training file train.
func noTestNote(train string) string {
	names := make([]string, 0, 6)
	for _, c := range TestFileCandidates(train) {
		names = append(names, filepath.Base(c))
	}
	return fmt.Sprintf("no test file beside %s (looked for %s)", train, strings.Join(names, ", "))
}

// findTestFile returns the first existing regular file of
// TestFileCandidates(train).
func findTestFile(train string) (string, error) {
	cands := TestFileCandidates(train)
	for _, c := range cands {
		if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() {
			return c, nil
		}
	}
	return "", fmt.Errorf("no test file for %s: tried %s; name it explicitly (Options.TestPath; fwstruct: --test-data FILE)", train, strings.Join(cands, ", "))
}
