package datasets

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/oracles"
)

// Yeast is the MULAN Yeast multi-label dataset (Elisseeff and Weston 2001):
// 1,500 training and 917 test genes, 103 numeric features, 14 functional
// classes, read by LoadMULAN. The URLs point at the Git LFS copies of the
// MULAN files in the BOOMER benchmark collection, pinned to the commit that
// added them; the digests are those of the LFS objects and of the copies the
// project's tests run on.
var Yeast = Dataset{Name: "yeast", Files: []RemoteFile{{
	Path:   "yeast/yeast-train.arff",
	URL:    "https://github.com/mrapp-ke/Boomer-Datasets/raw/73db96cbcc8cc8891830fc86827617e4a8e7f033/yeast-train.arff",
	SHA256: "e759dc991ff54694a4ff9c4314f3be0d6fd2b1994a4b563f57e416394c6aebbd",
	Size:   1501117,
}, {
	Path:   "yeast/yeast-test.arff",
	URL:    "https://github.com/mrapp-ke/Boomer-Datasets/raw/73db96cbcc8cc8891830fc86827617e4a8e7f033/yeast-test.arff",
	SHA256: "4aaac102bff9669a765bf0b378602e5cc8c3b181048282e2f003117b496d552a",
	Size:   918515,
}, {
	Path:   "yeast/yeast.xml",
	URL:    "https://github.com/mrapp-ke/Boomer-Datasets/raw/73db96cbcc8cc8891830fc86827617e4a8e7f033/yeast.xml",
	SHA256: "c3056cc26444b5158b1588d1b73bec9c45429e10f0957ad085903423cb81f247",
	Size:   526,
}}}

// ReadMULANLabels returns the label names of a MULAN XML label file
// (<labels><label name="..."/>...</labels>), in document order; nested
// labels (hierarchies) are flattened. Errors name the file and line.
func ReadMULANLabels(r io.Reader, name string) ([]string, error) {
	dec := xml.NewDecoder(r)
	var names []string
	seen := map[string]bool{}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		line, _ := dec.InputPos()
		if err != nil {
			return nil, fmt.Errorf("mulan labels: %s:%d: %w", name, line, err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "label" {
			continue
		}
		var label string
		for _, at := range se.Attr {
			if at.Name.Local == "name" {
				label = at.Value
			}
		}
		if label == "" {
			return nil, fmt.Errorf("mulan labels: %s:%d: <label> without a name", name, line)
		}
		if seen[label] {
			return nil, fmt.Errorf("mulan labels: %s:%d: label %q listed twice", name, line, label)
		}
		seen[label] = true
		names = append(names, label)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("mulan labels: %s: no <label> element", name)
	}
	return names, nil
}

// MultiLabelData is a multi-label dataset: inputs x[m] over the feature
// attributes and label vectors y[m] (1 where the label is relevant).
type MultiLabelData struct {
	// Features names the feature attributes in input order (feature f is
	// Features[f]); Labels names the labels in the order of y.
	Features, Labels []string
	X                []oracles.SparseVec
	Y                [][]int32
}

// MultiLabel splits an ARFF file into features and labels: the attributes
// named in labels are the labels (MULAN's convention: wherever they are in
// the file; they are taken in the file's attribute order, as MULAN does,
// which may differ from the XML's), every other attribute is a feature, in
// file order. Labels must be nominal {0, 1} (in either order). Feature
// values are taken as they are (no scaling); a nominal feature's value is
// the index of its value in the declaration.
func (a *ARFF) MultiLabel(labels []string) (*MultiLabelData, error) {
	want := make(map[string]bool, len(labels))
	for _, l := range labels {
		want[l] = true
	}
	d := &MultiLabelData{}
	featOf := make([]int32, len(a.Attributes)) // feature index or -1
	labOf := make([]int32, len(a.Attributes))  // label index or -1
	one := make([]float64, len(a.Attributes))  // coded value meaning "relevant"
	for k, at := range a.Attributes {
		featOf[k], labOf[k] = -1, -1
		if !want[at.Name] {
			featOf[k] = int32(len(d.Features))
			d.Features = append(d.Features, at.Name)
			continue
		}
		delete(want, at.Name)
		if len(at.Nominal) != 2 || !((at.Nominal[0] == "0" && at.Nominal[1] == "1") || (at.Nominal[0] == "1" && at.Nominal[1] == "0")) {
			return nil, fmt.Errorf("mulan: label attribute %q is not nominal {0,1}", at.Name)
		}
		if at.Nominal[1] == "1" {
			one[k] = 1
		}
		labOf[k] = int32(len(d.Labels))
		d.Labels = append(d.Labels, at.Name)
	}
	if len(want) > 0 {
		missing := make([]string, 0, len(want))
		for _, l := range labels {
			if want[l] {
				missing = append(missing, l)
			}
		}
		return nil, fmt.Errorf("mulan: labels %s are not attributes of the ARFF file", strings.Join(missing, ", "))
	}
	d.X = make([]oracles.SparseVec, len(a.Rows))
	d.Y = make([][]int32, len(a.Rows))
	for m, row := range a.Rows {
		y := make([]int32, len(d.Labels))
		for k, at := range labOf {
			if at >= 0 && one[k] == 0 {
				y[at] = 1 // declared {1,0}: coded 0 (omitted) means "1"
			}
		}
		var x oracles.SparseVec
		for j, k := range row.Idx {
			if f := featOf[k]; f >= 0 {
				x.Append(f, row.Val[j])
				continue
			}
			if one[k] == 1 {
				y[labOf[k]] = 1
			} else {
				y[labOf[k]] = 0
			}
		}
		d.X[m], d.Y[m] = x, y
	}
	return d, nil
}

// MULANFiles names the three files of a MULAN dataset.
type MULANFiles struct {
	Train, Test, XML string
}

// FindMULAN returns the files of a MULAN dataset from the path of an ARFF
// file or of a folder holding exactly one *-train.arff. Of an ARFF file
// whose name has "train" (name-train.arff), the test file is the first
// existing file of TestFileCandidates (name-test.arff, ...); of one whose
// name has "test" and not "train" (name-test.arff), it is the test file and
// the training file is the one with "train" in its place. The XML label
// file is name.xml beside them, name being the file's name without
// ".arff", ".gz" and a final "train" or "test" (with the "-", "_" or "."
// before it), else the only .xml file of the folder.
func FindMULAN(path string) (MULANFiles, error) { return findMULAN(path, "", false) }

// findMULAN is FindMULAN with an explicit test file (testPath, when not
// empty).
func findMULAN(path, testPath string, optional bool) (MULANFiles, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return MULANFiles{}, fmt.Errorf("mulan: %w", err)
	}
	train := path
	if fi.IsDir() {
		matches, _ := filepath.Glob(filepath.Join(path, "*-train.arff"))
		if gz, _ := filepath.Glob(filepath.Join(path, "*-train.arff.gz")); len(gz) > 0 {
			matches = append(matches, gz...)
		}
		if len(matches) != 1 {
			return MULANFiles{}, fmt.Errorf("mulan: %s holds %d files *-train.arff, want one (or name the training file)", path, len(matches))
		}
		train = matches[0]
	}
	dir, base := filepath.Split(train)
	lower := strings.ToLower(base)
	f := MULANFiles{Train: train, Test: testPath}
	if !strings.Contains(lower, "train") && strings.Contains(lower, "test") && testPath == "" {
		// The test file given: the training file has "train" in its place.
		k := strings.LastIndex(lower, "test")
		f.Test = train
		f.Train = filepath.Join(dir, base[:k]+matchCase(base[k:k+4], "train")+base[k+4:])
		if _, err := os.Stat(f.Train); err != nil {
			return MULANFiles{}, fmt.Errorf("mulan: %s is named as a test file and its training file %s is missing: name the training file (and this one as the test file)", train, f.Train)
		}
	}
	if f.Test == "" {
		if f.Test, err = optionalTestFile(train, optional); err != nil {
			return MULANFiles{}, fmt.Errorf("mulan: %w", err)
		}
	}
	if f.XML, err = findMULANLabels(f.Train); err != nil {
		return MULANFiles{}, err
	}
	return f, nil
}

// matchCase returns repl in the case of like: all upper, a capital or all
// lower.
func matchCase(like, repl string) string {
	switch {
	case like == strings.ToUpper(like):
		return strings.ToUpper(repl)
	case like[:1] == strings.ToUpper(like[:1]):
		return strings.ToUpper(repl[:1]) + repl[1:]
	}
	return repl
}

// findMULANLabels returns the XML label file of the MULAN training file
// train (see FindMULAN).
func findMULANLabels(train string) (string, error) {
	dir, base := filepath.Split(train)
	stem := strings.TrimSuffix(base, ".gz")
	stem = stem[:len(stem)-len(filepath.Ext(stem))] // drop .arff (any case)
	var cands []string
	lower := strings.ToLower(stem)
	for _, part := range []string{"train", "test"} {
		if k := strings.LastIndex(lower, part); k > 0 && k+len(part) == len(stem) && strings.ContainsRune("-_.", rune(stem[k-1])) {
			cands = append(cands, filepath.Join(dir, stem[:k-1]+".xml"))
		}
	}
	cands = append(cands, filepath.Join(dir, stem+".xml"))
	for _, c := range cands {
		if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() {
			return c, nil
		}
	}
	all, _ := filepath.Glob(filepath.Join(dir, "*.xml"))
	if len(all) == 1 {
		return all[0], nil
	}
	return "", fmt.Errorf("mulan: no XML label file for %s: tried %s, and its folder holds %d .xml files (MULAN data needs the XML file naming its labels)", train, strings.Join(cands, ", "), len(all))
}

// ReadMULAN reads a MULAN dataset: the label names from f.XML, then the
// training and test ARFF files (plain or gzip), which must declare the same
// attributes (names and types, nominal values in the same order): the
// features and labels are the training file's, and the test file cannot
// change them.
func ReadMULAN(f MULANFiles) (train, test *MultiLabelData, err error) {
	train, test, _, err = readMULAN(f)
	return train, test, err
}

// readMULAN is ReadMULAN, also returning the attributes of the training
// file; without f.Test (Options.TestOptional) test is nil.
func readMULAN(f MULANFiles) (train, test *MultiLabelData, attrs []Attribute, err error) {
	labels, err := readFile("mulan", f.XML, ReadMULANLabels)
	if err != nil {
		return nil, nil, nil, err
	}
	tr, err := readFile("arff", f.Train, ReadARFF)
	if err != nil {
		return nil, nil, nil, err
	}
	if train, err = tr.MultiLabel(labels); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", f.Train, err)
	}
	if f.Test == "" {
		return train, nil, tr.Attributes, nil
	}
	te, err := readFile("arff", f.Test, ReadARFF)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(tr.Attributes) != len(te.Attributes) {
		return nil, nil, nil, fmt.Errorf("mulan: %s has %d attributes, %s %d", f.Train, len(tr.Attributes), f.Test, len(te.Attributes))
	}
	for k := range tr.Attributes {
		a, b := tr.Attributes[k], te.Attributes[k]
		if a.Name != b.Name {
			return nil, nil, nil, fmt.Errorf("mulan: attribute %d is %q in %s but %q in %s", k, a.Name, f.Train, b.Name, f.Test)
		}
		// A nominal value is coded by its place in the declaration: the
		// test file must code it as the training file does.
		if !slices.Equal(a.Nominal, b.Nominal) {
			return nil, nil, nil, fmt.Errorf("mulan: attribute %q is %s in %s but %s in %s (the test file must declare every attribute as the training file does)", a.Name, a.declared(), f.Train, b.declared(), f.Test)
		}
	}
	if test, err = te.MultiLabel(labels); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", f.Test, err)
	}
	return train, test, tr.Attributes, nil
}

// readFile opens path (plain or gzip) and parses it with read; format
// names the reader in errors.
func readFile[T any](format, path string, read func(io.Reader, string) (T, error)) (T, error) {
	var zero T
	r, err := openData(format, path)
	if err != nil {
		return zero, err
	}
	defer r.Close()
	return read(r, path)
}

// MultiLabelModels builds the multi-label factor-graph models of Meshi et
// al. (2015, Sec. 6) on a training and a test set (see
// factorgraph.MultiLabel; with bias, a per-label bias feature is added).
// The inputs are used as they are (LoadMULAN scales them first when
// asked).
func MultiLabelModels(train, test *MultiLabelData, bias bool) (tr, te *factorgraph.Model, err error) {
	if len(train.Labels) != len(test.Labels) || len(train.Features) != len(test.Features) {
		return nil, nil, errors.New("mulan: training and test sets differ in labels or features")
	}
	l := factorgraph.MultiLabel{Labels: len(train.Labels), Features: len(train.Features), Bias: bias}
	if tr, err = factorgraph.NewMultiLabel(l, train.X, train.Y); err != nil {
		return nil, nil, err
	}
	if te, err = factorgraph.NewMultiLabel(l, test.X, test.Y); err != nil {
		return nil, nil, err
	}
	return tr, te, nil
}

// MULANData is a MULAN dataset loaded by LoadMULAN.
type MULANData struct {
	// Train and Test are the exact views of the multi-label models, whose
	// max oracle and Predict enumerate the 2^L labelings (L at most 24).
	// The models themselves, for the LP-relaxed and rounded views or the
	// factor-level solver, are the views' Model().
	Train, Test *factorgraph.Exact
	// Labels names the labels in the order of the model's variables (the
	// ARFF file's order); Features names the feature attributes.
	Labels, Features []string
	// Scaler is the scaling fitted on the training features (or the one
	// given), nil without scaling.
	Scaler *Scaler
	// Files are the files read.
	Files MULANFiles

	raw        *MultiLabelData // the training set as read, before scaling (Data.Split)
	attributes []Attribute     // the attributes of the training file (Schema)
	noTest     string          // Data.NoTest
}

// LoadMULAN reads a MULAN dataset (see FindMULAN for path; the test file is
// opt.TestPath when set), scales its features as opt.Scaling says (fitted
// on the training file, or opt.Scaler) and builds its multi-label models
// with a per-label bias unless opt.NoBias. The Yeast features are already
// centred with standard deviations near 0.1 and rows of norm near 1; other
// MULAN sets (emotions: audio features up to ~240) need scaling to train
// well (see solver.MeasureConditioning).
func LoadMULAN(path string, opt Options) (*MULANData, error) {
	f, err := findMULAN(path, opt.TestPath, opt.TestOptional)
	if err != nil {
		return nil, err
	}
	trd, ted, attrs, err := readMULAN(f)
	if err != nil {
		return nil, err
	}
	raw := *trd
	d := &MULANData{Labels: trd.Labels, Features: trd.Features, Files: f, raw: &raw, attributes: attrs}
	if ted == nil {
		d.noTest = noTestNote(f.Train)
	}
	if d.Scaler, err = opt.preprocess().scaler(trd.X, len(trd.Features)); err != nil {
		return nil, fmt.Errorf("mulan %s: %w", f.Train, err)
	}
	sets := []*MultiLabelData{trd}
	if ted != nil {
		sets = append(sets, ted)
	} else {
		ted = trd // for MultiLabelModels; its model is dropped below
	}
	if d.Scaler != nil {
		for _, set := range sets {
			if set.X, err = d.Scaler.Transform(set.X); err != nil {
				return nil, fmt.Errorf("mulan %s: %w", f.Train, err)
			}
		}
	}
	trm, tem, err := MultiLabelModels(trd, ted, !opt.NoBias)
	if err != nil {
		return nil, fmt.Errorf("mulan %s: %w", f.Train, err)
	}
	if d.Train, err = factorgraph.NewExact(trm, 0); err != nil {
		return nil, fmt.Errorf("mulan %s: %w", f.Train, err)
	}
	if len(sets) == 2 {
		if d.Test, err = factorgraph.NewExact(tem, 0); err != nil {
			return nil, fmt.Errorf("mulan %s: %w", f.Test, err)
		}
	}
	return d, nil
}
