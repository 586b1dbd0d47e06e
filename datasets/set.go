package datasets

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/fwstruct/fwstruct/align"
	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/oracles"
)

// Set is one set of examples of a dataset, as a model predicts on it and
// scores it: the problem (of the training data's dimension, classes and
// feature map), whether it holds gold labels, the file it was read from,
// and what the predictions are written with (WritePredictions,
// WriteMasks): label names, sentences, sentence-pair numbers, images.
// Data.TestSet and Data.TrainSet return the splits of loaded data;
// Schema.Read and Data.Read read other files.
type Set struct {
	// Format is the dataset or format, as Data.Name spells it.
	Format string
	// Path is the file (or folder) read, "" for a split without a file of
	// its own (OCR folds, synthetic words, the horses' and Hansards'
	// splits of one folder).
	Path string
	// Problem holds the examples. Without gold labels its truth is
	// meaningless (oracles.NoClass, or empty alignments), and so are its
	// losses.
	Problem oracles.Problem
	// Gold tells whether the examples have their gold labels: a file read
	// by Schema.Read or Data.Read may lack them (the formats say how:
	// see Schema.Read).
	Gold bool
	// Labels names the labels (Data.Labels).
	Labels []string
	// Unseen counts what the set holds that the training data does not
	// (see Unseen).
	Unseen Unseen

	files  []string     // the files read (Files)
	sep    byte         // column-format data: the field separator (0: a space)
	pairs  []align.Pair // word alignment: the sentence pairs
	images []HorseImage // segmentation: the images
}

// Files returns the files the set was read from (with those of the data
// it belongs to: the training file, the images and masks of the horses,
// the files of a Hansards folder), for a tool to refuse outputs over them.
func (s *Set) Files() []string {
	if s.Path == "" {
		return slices.Clone(s.files)
	}
	return append([]string{s.Path}, s.files...)
}

// Images returns the images of a segmentation set (the horses), one an
// example, nil for other data.
func (s *Set) Images() []HorseImage { return s.images }

// items are what a set of data keeps beside its problem for its outputs.
type items struct {
	pairs  []align.Pair
	images []HorseImage
}

// TestSet returns the test split of the data, nil when there is none.
func (d *Data) TestSet() *Set {
	if d.Test == nil {
		return nil
	}
	return &Set{Format: d.Name, Path: d.TestPath, Problem: d.Test, Gold: true, Labels: d.Labels, Unseen: d.Unseen,
		files: d.Files(), sep: d.opt.Conll.Format.Sep, pairs: d.testItems.pairs, images: d.testItems.images}
}

// TrainSet returns the training split of the data.
func (d *Data) TrainSet() *Set {
	return &Set{Format: d.Name, Path: d.TrainPath, Problem: d.Train, Gold: true, Labels: d.Labels,
		files: d.Files(), sep: d.opt.Conll.Format.Sep, pairs: d.trainItems.pairs, images: d.trainItems.images}
}

// Read reads another file (or folder) of the data's format as a set of
// the data's problem: Schema.Read with the options the data was loaded
// with, and for word alignment a folder of sentence pairs (test.e and
// test.f, with test.wa.nonullalign when they have gold links) whose
// features come from the statistics of the data's unaligned pairs.
func (d *Data) Read(path string) (*Set, error) {
	if d.hansards != nil {
		pairs, gold, err := readHansardsPairs(path, true)
		if err != nil {
			return nil, err
		}
		p, err := AlignmentProblem(d.hansards.Model, pairs)
		if err != nil {
			return nil, fmt.Errorf("hansards: %s: %w", path, err)
		}
		files := d.Files()
		for _, name := range []string{HansardsEnglish, HansardsFrench, HansardsLinks} {
			files = append(files, filepath.Join(hansardsFolder(path), name))
		}
		return &Set{Format: d.Name, Path: path, Problem: p, Gold: gold, pairs: pairs, files: files}, nil
	}
	if d.Name == "horses" {
		return nil, errors.New("horses: the features of new images need the texture codebook learned on the training images: the test images are the split after the training ones (HorsesOptions.Train)")
	}
	return d.Schema().Read(path, d.opt)
}

// Readable reports whether Read can build the problem of another file with
// the schema alone: every format but the horses (whose features read a
// texture codebook learned on the training images) and the Hansards
// (whose features read statistics of the unaligned pairs), which need the
// training data (Data.Read).
func (s *Schema) Readable() bool {
	switch s.Format {
	case "horses", "hansards", "hansards-intersected":
		return false
	}
	return true
}

// Read reads a file of the schema's format as a set of the training data's
// problem, without the training file: the classes, tags or labels, the
// feature map and the scaling are the schema's, what the file holds
// beyond them is counted in Set.Unseen (as for the test file of LoadData).
// opt are the options the training data was loaded with (Spec.Options):
// they say how to read the file (the CSV separator, header and label
// column, the svmlight index base, the column layout); their scaling is
// not used (the schema's is).
//
// The file may hold no gold labels (Set.Gold false), where its format
// allows it:
//   - svmlight: lines of index:value pairs without a label (every line, as
//     the first one);
//   - CSV: one column fewer than the training file (no label column), or
//     an empty label in every row;
//   - USPS: 256 grey values a line, without the label;
//   - column format: one column fewer than the training file, the tag
//     column left out (the other columns in their order);
//   - MULAN ARFF: the feature attributes alone, without the label
//     attributes;
//   - OCR letter.data always holds its letters; the synthetic OCR-like
//     data reads letter.data files too (its model is an OCR model).
//
// The horses and the Hansards need the training data (see Readable and
// Data.Read).
func (s *Schema) Read(path string, opt Options) (*Set, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	if !s.Readable() {
		return nil, fmt.Errorf("%s: cannot read %s with the schema alone: %w (load the training data and use Data.Read)", s.Format, path, errStatistics)
	}
	if fi, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Format, err)
	} else if fi.IsDir() {
		return nil, fmt.Errorf("%s: %s is a folder: name the file to read", s.Format, path)
	}
	set := &Set{Format: s.Format, Path: path, Gold: true, Labels: s.Labels}
	var err error
	switch s.Format {
	case "svmlight", "csv", "usps":
		err = s.readMulticlass(set, path, opt)
	case "yeast", "mulan":
		err = s.readMULAN(set, path)
	case "conll":
		err = s.readColumns(set, path, opt)
	case "ocr", "synthetic":
		var words []Word
		if words, err = ReadLetterFile(path); err == nil {
			set.Problem, err = OCRChain(words)
		}
	}
	if err != nil {
		return nil, err
	}
	return set, nil
}

// readMulticlass reads an svmlight, CSV or USPS file.
func (s *Schema) readMulticlass(set *Set, path string, opt Options) error {
	var ex *Examples
	switch s.Format {
	case "svmlight":
		so := SVMLightOptions{IndexBase: s.IndexBase, MaxFeatures: opt.SVMLight.MaxFeatures}
		autoOne := opt.SVMLight.IndexBase == IndexAuto && s.IndexBase == IndexOne
		if autoOne {
			so.IndexBase = IndexZero // as LoadSVMLight reads a test file: index 0 dropped below
		}
		rc, err := openData("svmlight", path)
		if err != nil {
			return err
		}
		ex, err = readSVMLight(rc, path, so, true)
		rc.Close()
		if err != nil {
			return err
		}
		if autoOne {
			set.Unseen.Features += shiftDown(ex)
		}
	case "csv":
		rc, err := openData("csv", path)
		if err != nil {
			return err
		}
		ex, err = readCSV(rc, path, opt.CSV, max(s.Features, 1))
		rc.Close()
		if err != nil {
			return err
		}
		switch {
		case ex.NumFeatures != s.Features:
			return fmt.Errorf("csv: %s has %d feature columns, but the training file had %d", path, ex.NumFeatures, s.Features)
		case s.FeatureNames != nil && ex.FeatureNames != nil && !slices.Equal(s.FeatureNames, ex.FeatureNames):
			return fmt.Errorf("csv: the header of %s names other feature columns than the training file's", path)
		}
	case "usps":
		rc, err := openData("usps", path)
		if err != nil {
			return err
		}
		x, y, labeled, err := readUSPS(rc, path, true)
		rc.Close()
		if err != nil {
			return err
		}
		ex = &Examples{Name: path, X: x, Labels: make([]string, len(y)), NumFeatures: USPSFeatures}
		if labeled {
			for i, digit := range y {
				ex.Labels[i] = fmt.Sprint(digit)
			}
		}
	}
	set.Gold = !slices.Contains(ex.Labels, "")
	p, err := multiclassSet(ex, s.Labels, s.Features, s.Bias, s.Scaler, &set.Unseen)
	if err != nil {
		return fmt.Errorf("%s: %w", s.Format, err)
	}
	set.Problem = p
	return nil
}

// readMULAN reads a MULAN ARFF file: the training file's attributes, or
// its feature attributes alone (no labels).
func (s *Schema) readMULAN(set *Set, path string) error {
	a, err := readFile("arff", path, ReadARFF)
	if err != nil {
		return err
	}
	var features []Attribute
	for _, at := range s.Attributes {
		if !slices.Contains(s.Labels, at.Name) {
			features = append(features, at)
		}
	}
	same := func(want []Attribute) bool {
		return slices.EqualFunc(a.Attributes, want, func(x, y Attribute) bool { return x.Name == y.Name && slices.Equal(x.Nominal, y.Nominal) })
	}
	var ml *MultiLabelData
	switch {
	case same(s.Attributes):
		if ml, err = a.MultiLabel(s.Labels); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	case same(features):
		if ml, err = a.MultiLabel(nil); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		ml.Labels = s.Labels
		for m := range ml.Y {
			ml.Y[m] = make([]int32, len(s.Labels))
		}
		set.Gold = false
	default:
		return fmt.Errorf("mulan: %s declares %d attributes, not the %d of the training file (or its %d features without the labels) with their names and types", path, len(a.Attributes), len(s.Attributes), len(features))
	}
	if s.Scaler != nil {
		if ml.X, err = s.Scaler.Transform(ml.X); err != nil {
			return fmt.Errorf("mulan %s: %w", path, err)
		}
	}
	l := factorgraph.MultiLabel{Labels: len(s.Labels), Features: s.Features, Bias: s.Bias}
	m, err := factorgraph.NewMultiLabel(l, ml.X, ml.Y)
	if err != nil {
		return fmt.Errorf("mulan %s: %w", path, err)
	}
	if set.Problem, err = factorgraph.NewExact(m, 0); err != nil {
		return fmt.Errorf("mulan %s: %w", path, err)
	}
	return nil
}

// readColumns reads a column-format file, with its tag column or without.
func (s *Schema) readColumns(set *Set, path string, opt Options) error {
	f := opt.Conll.Format
	set.sep = f.Sep
	n, err := firstTokenFields(path, f)
	if err != nil {
		return err
	}
	noTag := false
	switch n {
	case s.Columns:
		f.Columns = n
	case s.Columns - 1:
		noTag, f.Columns = true, n
		tag := s.Columns - 1 // 0-based, in the training file
		if f.Tag > 0 {
			tag = f.Tag - 1
		}
		if f.Inputs != nil { // renumbered without the tag column
			inputs := make([]int, len(f.Inputs))
			for k, c := range f.Inputs {
				if inputs[k] = c; c-1 > tag {
					inputs[k] = c - 1
				}
			}
			f.Inputs = inputs
		} // else every column, in order, as the training file's inputs were
	default:
		return fmt.Errorf("conll: %s: %d fields a token line, want %d as in the training file (or %d without the tag)", path, n, s.Columns, s.Columns-1)
	}
	rc, err := openData("conll", path)
	if err != nil {
		return err
	}
	sents, err := readColumns(rc, path, f, noTag)
	rc.Close()
	if err != nil {
		return err
	}
	c, err := NewChunking(sents, s.Dict, s.Labels)
	if err != nil {
		return fmt.Errorf("conll: %s: %w", path, err)
	}
	if noTag {
		c.Unseen.Labels, c.Unseen.Items = nil, 0
		set.Gold = false
	}
	set.Problem, set.Unseen = c, c.Unseen
	return nil
}

// firstTokenFields returns the number of fields of the first token line of
// a column-format file (as the reader splits it).
func firstTokenFields(path string, f ColumnFormat) (int, error) {
	rc, err := openData("conll", path)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	p, err := newColumnParser(ColumnFormat{Sep: f.Sep})
	if err != nil {
		return 0, fmt.Errorf("conll: %s: %w", path, err)
	}
	lr := newLineReader(rc, "conll", path, maxLineBytes)
	for {
		b, ok := lr.next()
		if !ok {
			break
		}
		if blank(b) {
			continue
		}
		if fields := p.split(b); string(fields[0]) != docStart {
			return len(fields), nil
		}
	}
	if err := lr.err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("conll: %s: no sentences", path)
}
