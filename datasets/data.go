package datasets

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/fwstruct/fwstruct/oracles"
)

// Data is a loaded dataset: its training and test problems, the files they
// were read from, and what a model trained on them must keep to be applied
// to other data of the same kind (the scaling fitted on the training split).
type Data struct {
	// Name is the dataset or format loaded, as Load spells it ("ocr",
	// "usps", "synthetic", "conll", "yeast", "mulan", "horses", "hansards",
	// "hansards-intersected", "svmlight", "csv"): for a path, the format
	// Recognize told.
	Name string
	// Train and Test are the problems.
	Train, Test oracles.Problem
	// TrainPath and TestPath are the files read, when the data came from
	// one training file and one test file (svmlight, csv, usps, MULAN,
	// column format); empty otherwise.
	TrainPath, TestPath string
	// Scaler is the scaling of the features fitted on the training split
	// (or given by Options.Scaler), applied to both problems; nil without
	// scaling.
	Scaler *Scaler
	// Labels names the labels when the data names them: the classes of
	// multiclass data (class k is Labels[k]), the labels of multi-label data
	// in the order of the model's variables (from the MULAN XML file), the
	// tags of chunking data. Nil otherwise.
	Labels []string
	// Unseen counts what the test file holds that the training file does
	// not, for the data read from a training file and a test file: the
	// training file alone fixes the problem (d, the bias position, the
	// classes or tags, the feature map), so the test feature values it
	// has no feature for are dropped (Unseen.Features) and the test labels
	// or tags it does not have are no class of the model
	// (Unseen.Labels), their examples or tokens (Unseen.Items, counting
	// Unseen.Item) being errors in the test loss and every metric. Zero
	// for the data whose test set cannot hold anything its training set
	// lacks: the named splits of one source (ocr, synthetic, horses,
	// hansards) and MULAN data (its labels are the XML file's, its
	// features the attributes both ARFF files must declare alike).
	Unseen Unseen
	// NoTest says why there is no test set (Test nil) when
	// Options.TestOptional let the data load without its test file: where
	// the test file was looked for. Empty otherwise.
	NoTest string

	split                 splitter  // builds the problems of two subsets of Train (Split)
	opt                   Options   // the options it was loaded with (Read)
	schema                *Schema   // what the training data fixes (Schema)
	hansards              *Hansards // word alignment: the statistics of the unaligned pairs (Read)
	trainItems, testItems items     // what the sets write their predictions with
	files                 []string  // the files read beside TrainPath and TestPath (Files)
}

// Files returns the files the data was read from: the training and test
// files, the MULAN XML label file, the OCR letter file, the Hansards files,
// the horses' images and masks (none for generated data), so that a tool
// can refuse to write its outputs over them.
func (d *Data) Files() []string {
	var out []string
	for _, p := range append([]string{d.TrainPath, d.TestPath}, d.files...) {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// LoadData is Load returning the loaded data with what it was built from:
// the files read, the scaling fitted on the training split and the label
// names. See Load for the names and options.
func LoadData(name string, opt Options) (*Data, error) {
	if !slices.Contains(Names, name) {
		kind, err := Recognize(name)
		if err != nil {
			return nil, err
		}
		name, opt.Path = kind, name
	}
	if (opt.Scaling != ScaleNone || opt.Scaler != nil) && !Scalable(name) {
		return nil, fmt.Errorf("%s: scaling applies to numeric features only (usps, yeast and MULAN, svmlight and csv data), not to %s", name, describeFormat(name))
	}
	if opt.TestPath != "" {
		switch name {
		case "horses":
			return nil, fmt.Errorf("horses: the test images are the ones after the training split (HorsesOptions); a test file (%s) does not apply", opt.TestPath)
		case "ocr":
			return nil, fmt.Errorf("ocr: the test words are a fold of the same file (--split); a test file (%s) does not apply", opt.TestPath)
		case "synthetic":
			return nil, fmt.Errorf("synthetic data is generated, not read: drop the test file %s", opt.TestPath)
		case "hansards", "hansards-intersected":
			return nil, fmt.Errorf("hansards: the test pairs are the gold pairs after the training ones (HansardsOptions); a test file (%s) does not apply", opt.TestPath)
		}
		if err := checkTestFormat(name, opt.TestPath); err != nil {
			return nil, err
		}
	}
	d := &Data{Name: name, opt: opt}
	d.schema = &Schema{Format: name}
	switch name {
	case "horses":
		if opt.Horses.Path == "" {
			opt.Horses.Path = opt.Path
		}
		h, err := LoadHorses(opt.Horses)
		if err != nil {
			return nil, err
		}
		d.Train, d.Test, d.split = h.Train, h.Test, segmentationSplit(h.Train)
		d.trainItems.images, d.testItems.images = h.TrainImages, h.TestImages
		for _, im := range append(slices.Clip(h.TrainImages), h.TestImages...) {
			d.files = append(d.files, im.Image, im.Mask)
		}
	case "hansards", "hansards-intersected":
		if name == "hansards-intersected" {
			opt.Hansards.Training = HansardsIntersected
		}
		h, err := loadHansardsData(opt)
		if err != nil {
			return nil, err
		}
		d.Train, d.Test, d.hansards = h.Train, h.Test, h
		d.trainItems.pairs, d.testItems.pairs = h.TrainPairs, h.TestPairs
		for _, name := range []string{HansardsEnglish, HansardsFrench, HansardsLinks} {
			d.files = append(d.files, filepath.Join(h.Dir, name))
		}
		d.files = append(d.files, findHansardsPairs(h.Dir))
	case "synthetic":
		if opt.Path != "" {
			return nil, fmt.Errorf("synthetic data is generated, not read: drop the path %s", opt.Path)
		}
		tr, te, err := SyntheticOCR(opt.Synthetic)
		if err != nil {
			return nil, err
		}
		d.Train, d.Test, d.split = tr, te, chainSplit(tr)
	case "conll":
		tr, te, paths, err := loadConllData(opt)
		if err != nil {
			return nil, err
		}
		d.Train, d.Labels, d.split = tr, tr.Tags, chunkingSplit(tr)
		if te != nil {
			d.Test, d.Unseen = te, te.Unseen
		}
		d.TrainPath, d.TestPath = paths[0], paths[1]
		cols, err := firstTokenFields(paths[0], opt.Conll.Format)
		if err != nil {
			return nil, err
		}
		d.schema = &Schema{Format: name, Labels: tr.Tags, Dict: tr.Dict, Columns: cols}
		if te == nil {
			d.NoTest = noTestNote(paths[0])
		}
	case "ocr":
		path, err := dataPath(OCR, opt.Path)
		if err != nil {
			return nil, err
		}
		tr, te, err := LoadOCR(path, opt.Split)
		if err != nil {
			return nil, err
		}
		if fi, err := os.Stat(path); err == nil && fi.IsDir() {
			if paths, err := OCR.Paths(path); err == nil {
				path = paths[0]
			}
		}
		d.files = append(d.files, path)
		d.Train, d.Test, d.split = tr, te, chainSplit(tr)
	case "yeast", "mulan":
		path := opt.Path
		if name == "yeast" {
			root, err := Locate(Yeast, opt.Path)
			if err != nil {
				return nil, err
			}
			paths, err := Yeast.Paths(root)
			if err != nil {
				return nil, err
			}
			path = paths[0]
		}
		m, err := LoadMULAN(path, opt)
		if err != nil {
			return nil, err
		}
		d.Train, d.Scaler, d.Labels = m.Train, m.Scaler, m.Labels
		if m.Test != nil {
			d.Test = m.Test
		} else {
			d.NoTest = m.noTest
		}
		d.TrainPath, d.TestPath, d.files = m.Files.Train, m.Files.Test, []string{m.Files.XML}
		d.split = multiLabelSplit(m.raw, opt.preprocess())
		d.schema = &Schema{Format: name, Labels: m.Labels, Features: len(m.Features), Bias: !opt.NoBias, Attributes: m.attributes, Scaler: m.Scaler}
	default: // svmlight, csv, usps
		var m *MulticlassData
		var err error
		switch name {
		case "svmlight", "csv":
			if opt.Path == "" {
				return nil, fmt.Errorf("%s data needs the path of its training file", name)
			}
			load := LoadSVMLight
			if name == "csv" {
				load = LoadCSV
			}
			m, err = load(opt.Path, opt)
		default:
			path, lerr := dataPath(USPS, opt.Path)
			if lerr != nil {
				return nil, lerr
			}
			m, err = LoadUSPS(path, opt)
		}
		if err != nil {
			return nil, err
		}
		d.Train, d.Scaler, d.Labels, d.Unseen = m.Train, m.Scaler, m.Classes, m.Unseen
		if m.Test != nil {
			d.Test = m.Test
		} else {
			d.NoTest = m.noTest
		}
		d.TrainPath, d.TestPath = m.TrainPath, m.TestPath
		d.schema = &Schema{Format: name, Labels: m.Classes, Features: m.NumFeatures, Bias: m.Bias, IndexBase: m.base,
			FeatureNames: m.FeatureNames, Scaler: m.Scaler}
		truth := make([]int32, m.Train.Len())
		for i := range truth {
			truth[i] = m.Train.Truth(i)[0]
		}
		d.split = multiclassSplit(m.trainX, truth, len(m.Classes), m.NumFeatures, opt.preprocess())
	}
	return d, nil
}

// preprocess returns the preprocessing the options ask for.
func (opt Options) preprocess() Preprocess {
	return Preprocess{Scaling: opt.Scaling, Bias: !opt.NoBias, Scaler: opt.Scaler}
}

// describeFormat names a dataset or format for messages.
func describeFormat(name string) string {
	switch name {
	case "ocr":
		return "OCR letters (letter.data)"
	case "synthetic":
		return "the synthetic OCR-like data"
	case "conll":
		return "column-format (CoNLL) text"
	case "horses":
		return "the horses images"
	case "hansards", "hansards-intersected":
		return "the Hansards word alignments"
	case "usps":
		return "USPS digits (label and 256 grey values a line)"
	case "yeast":
		return "the Yeast MULAN data"
	case "mulan":
		return "MULAN multi-label data (ARFF and its XML label file)"
	case "svmlight":
		return "svmlight (label index:value ...)"
	case "csv":
		return "CSV"
	}
	return name
}

// sameFormat reports whether files recognized as a and b can be the
// training and test files of one dataset.
func sameFormat(a, b string) bool {
	family := func(s string) string {
		if s == "yeast" {
			return "mulan"
		}
		return s
	}
	return family(a) == family(b)
}

// checkTestFormat returns an error when the test file is recognizable as
// another format than the training data's: by its name (see Recognize) or
// by a first line that no other format has (an ARFF header, index:value
// pairs, a USPS digit). Column-format and comma-separated lines are not
// evidence enough (a TSV file read as CSV looks like columns).
func checkTestFormat(name, testPath string) error {
	kind, err := recognizeFile(testPath)
	if err != nil || kind == "" || sameFormat(name, kind) {
		return nil // unknown: the reader of name reports what is wrong
	}
	if _, byName := recognizeName(testPath); !byName && (kind == "conll" || kind == "csv") {
		return nil
	}
	return fmt.Errorf("the test file %s looks like %s, but the training data is %s: give a test file of the same format", testPath, describeFormat(kind), describeFormat(name))
}
