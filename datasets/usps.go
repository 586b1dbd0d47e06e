package datasets

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fwstruct/fwstruct/oracles"
)

// Geometry of the USPS digits: 16 x 16 grey images, 10 classes.
const (
	USPSFeatures = 256 // grey values a digit, row-major over 16 x 16
	USPSClasses  = 10  // digits 0..9
)

// ReadUSPS parses the USPS digits in the format of the ESL book's zip.train
// and zip.test: one digit a line, the label (0..9, possibly written as a real
// number such as "6.0000") followed by 256 grey values in [-1, 1], separated by
// spaces or tabs. Blank lines are skipped.
//
// Each x[k] holds the non-zero values of digit k at indices 0..255 in
// increasing order; y[k] is its label. Errors name the file and line:
// "usps: name:N: ...".
func ReadUSPS(r io.Reader, name string) (x []oracles.SparseVec, y []int32, err error) {
	x, y, _, err = readUSPS(r, name, false)
	return x, y, err
}

// readUSPS is ReadUSPS; with optional, a file whose first digit has 256
// fields (no label) is read as digits without labels (labeled false, y
// all oracles.NoClass), every line without one.
func readUSPS(r io.Reader, name string, optional bool) (x []oracles.SparseVec, y []int32, labeled bool, err error) {
	lr := newLineReader(r, "usps", name, 1<<20)
	labeled = true
	for {
		b, ok := lr.next()
		if !ok {
			break
		}
		s := strings.TrimSpace(string(b))
		if s == "" {
			continue
		}
		if optional && len(y) == 0 {
			labeled = len(strings.Fields(s)) != USPSFeatures
		}
		v, label, err := parseUSPSLine(s, labeled)
		if err != nil {
			return nil, nil, false, lr.errorf("%w", err)
		}
		x = append(x, v)
		y = append(y, label)
	}
	if err := lr.err(); err != nil {
		return nil, nil, false, err
	}
	if len(y) == 0 {
		return nil, nil, false, lr.fileErrorf("no digits")
	}
	return x, y, labeled, nil
}

// parseUSPSLine parses one non-blank, trimmed line: a label and 256 grey
// values, or the values alone when not labeled (the label is then
// oracles.NoClass).
func parseUSPSLine(s string, labeled bool) (oracles.SparseVec, int32, error) {
	v := oracles.SparseVec{Idx: make([]int32, 0, USPSFeatures+1), Val: make([]float64, 0, USPSFeatures+1)}
	field, skip := 0, 0 // field counts the label; skip is 1 when there is none
	label := oracles.NoClass
	if !labeled {
		field, skip = 1, 1
	}
	for s != "" {
		k := strings.IndexAny(s, " \t")
		var f string
		if k < 0 {
			f, s = s, ""
		} else {
			f, s = s[:k], strings.TrimLeft(s[k:], " \t")
		}
		if field > USPSFeatures {
			field++
			continue // count the extra fields for the error message
		}
		val, ok := parseDecimal(f)
		if !ok {
			if field == 0 {
				return v, 0, fmt.Errorf("label (field 1) %s is not a decimal number", quote(f))
			}
			return v, 0, fmt.Errorf("value %d (field %d) %s is not a decimal number", field, field+1-skip, quote(f))
		}
		if field == 0 {
			if val != math.Trunc(val) || val < 0 || val >= USPSClasses {
				return v, 0, fmt.Errorf("label (field 1) %s is not an integer in 0..%d", quote(f), USPSClasses-1)
			}
			label = int32(val)
		} else {
			if val < -1 || val > 1 {
				return v, 0, fmt.Errorf("value %d (field %d) is %s, want a number in [-1, 1]", field, field+1-skip, quote(f))
			}
			if val != 0 {
				v.Append(int32(field-1), val)
			}
		}
		field++
	}
	if field != USPSFeatures+1 {
		if !labeled {
			return v, 0, fmt.Errorf("%d fields, want %d values (as on the first line, no label)", field-skip, USPSFeatures)
		}
		return v, 0, fmt.Errorf("%d fields, want %d (the label and %d values)", field, USPSFeatures+1, USPSFeatures)
	}
	return v, label, nil
}

// ReadUSPSFile reads a USPS file, plain or gzip-compressed (detected by the
// gzip magic bytes), with ReadUSPS.
func ReadUSPSFile(path string) (x []oracles.SparseVec, y []int32, err error) {
	rc, err := openData("usps", path)
	if err != nil {
		return nil, nil, err
	}
	defer rc.Close()
	return ReadUSPS(rc, path)
}

// LoadUSPS reads USPS digits and returns their training (7,291 digits) and
// test (2,007 digits) multiclass problems, built by NewMulticlassData: the
// classes are the digits of the training file ("0" to "9" for the USPS
// data), a digit only the test file has is no class (see
// MulticlassData.Unseen). path is the folder holding zip.train and zip.test
// (each plain or .gz, whichever exists), a data root holding usps/ (see
// Dataset.Paths), or one of the two files, of any name starting with
// zip.train or zip.test (the other one is taken from the same folder). Any
// other file in the USPS format is a training file, whose test file is
// opt.TestPath or the first existing file of TestFileCandidates beside it
// (digits_train.txt -> digits_test.txt, ...); opt.TestPath also replaces
// the zip.test found. Nothing else is searched: a path that does not hold
// both files is an error naming it.
//
// The grey values are scaled as opt.Scaling says (fitted on the training
// file, or opt.Scaler; they are already in [-1, 1]), and unless opt.NoBias
// every digit gets a constant feature 1 at index 256, so there are 257
// features instead of 256 (a per-class bias in the Crammer-Singer model).
func LoadUSPS(path string, opt Options) (*MulticlassData, error) {
	paths, err := uspsPaths(path, opt.TestPath, opt.TestOptional)
	if err != nil {
		return nil, err
	}
	sets := make([]*Examples, 2)
	for k, p := range paths {
		if p == "" { // no test file (Options.TestOptional)
			continue
		}
		x, y, err := ReadUSPSFile(p)
		if err != nil {
			return nil, err
		}
		sets[k] = &Examples{Name: p, X: x, Labels: make([]string, len(y)), NumFeatures: USPSFeatures}
		for i, digit := range y {
			sets[k].Labels[i] = strconv.Itoa(int(digit))
		}
	}
	d, err := NewMulticlassData(sets[0], sets[1], opt.preprocess())
	if err != nil {
		return nil, fmt.Errorf("usps: %w", err)
	}
	d.TrainPath, d.TestPath = paths[0], paths[1]
	if sets[1] == nil {
		d.noTest = noTestNote(paths[0])
	}
	return d, nil
}

// uspsPaths returns the training and test files of the USPS data at path
// (see LoadUSPS).
func uspsPaths(path, testPath string, optional bool) ([]string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("usps: %w", err)
	}
	if fi.IsDir() {
		paths, err := USPS.Paths(path)
		if err != nil && testPath != "" {
			if train := findFile(path, USPS.Files[0]); train != "" {
				return []string{train, testPath}, nil
			}
		}
		if err != nil {
			return nil, err
		}
		if testPath != "" {
			paths[1] = testPath
		}
		return paths, nil
	}
	base := strings.ToLower(filepath.Base(path))
	k := 0
	switch {
	case strings.HasPrefix(base, "zip.train"):
	case strings.HasPrefix(base, "zip.test"):
		k = 1
	default: // a user's file in the USPS format
		if testPath == "" {
			if testPath, err = optionalTestFile(path, optional); err != nil {
				return nil, fmt.Errorf("usps: %w", err)
			}
		}
		return []string{path, testPath}, nil
	}
	paths := make([]string, 2)
	paths[k] = path
	if k == 0 && testPath != "" {
		paths[1] = testPath
		return paths, nil
	}
	other := USPS.Files[1-k]
	if paths[1-k] = findFile(filepath.Dir(path), other); paths[1-k] == "" {
		return nil, fmt.Errorf("usps: %s has no companion %s (or its uncompressed copy) in %s", path, filepath.Base(other.Path), filepath.Dir(path))
	}
	if k == 1 && testPath != "" {
		return nil, fmt.Errorf("usps: %s is the test file (zip.test) and %s was given as the test file too: name the training file (zip.train)", path, testPath)
	}
	return paths, nil
}
