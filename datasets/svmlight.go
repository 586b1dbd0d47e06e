package datasets

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fwstruct/fwstruct/oracles"
)

// IndexBase says whether the feature indices of an svmlight file start at 0
// or at 1. The zero value, IndexAuto, detects it.
type IndexBase int

const (
	// IndexAuto detects the base: 0-based when some feature index is 0,
	// else 1-based (the convention of libsvm and liblinear). LoadSVMLight
	// decides from the training file alone and reads its test file with
	// the same base.
	IndexAuto IndexBase = iota
	// IndexZero reads index i as feature i.
	IndexZero
	// IndexOne reads index i as feature i-1; an index 0 is an error.
	IndexOne
)

var indexBaseNames = []string{"auto", "0", "1"}

// String returns "auto", "0" or "1" (the forms ParseIndexBase accepts).
func (b IndexBase) String() string { return enumName(indexBaseNames, int(b), "IndexBase") }

// ParseIndexBase parses "auto", "0" or "1".
func ParseIndexBase(s string) (IndexBase, error) {
	return parseEnum[IndexBase](indexBaseNames, s, "index base")
}

// DefaultMaxFeatures is the largest number of features an svmlight file may
// have unless SVMLightOptions.MaxFeatures says otherwise.
const DefaultMaxFeatures = 1 << 24

// SVMLightOptions configures ReadSVMLight.
type SVMLightOptions struct {
	// IndexBase of the feature indices; the zero value detects it.
	IndexBase IndexBase
	// MaxFeatures bounds the number of features (the largest index + 1
	// after the base): a corrupt index would otherwise make the dimension
	// of the model, features times classes, explode. 0 means
	// DefaultMaxFeatures.
	MaxFeatures int
}

// maxSVMLightLine is the longest line ReadSVMLight accepts (a dense row of
// a million features fits).
const maxSVMLightLine = 64 << 20

// ReadSVMLight parses multiclass data in the svmlight / libsvm format: one
// example a line,
//
//	label index:value index:value ... # comment
//
// The label is a number (e.g. 3, -1, +1, 2.0; see Examples.Labels), the
// pairs are separated by spaces or tabs, indices are integers in any order
// but distinct, values are finite numbers; zero values are dropped. A UTF-8
// byte order mark at the start of the file is skipped. Text
// from '#' to the end of the line is a comment; blank lines are skipped.
// A "qid:" pair (ranking data) is rejected rather than ignored, since ranking
// data is not multiclass data, and so is a multi-label line ("1,3 ...").
//
// The feature indices are 0- or 1-based as opt.IndexBase says, detected by
// default from this file alone (LoadSVMLight detects from the training
// file and reads its test file with the same base). Errors name the file and line:
// "svmlight: name:N: ...".
func ReadSVMLight(r io.Reader, name string, opt SVMLightOptions) (*Examples, error) {
	return readSVMLight(r, name, opt, false)
}

// readSVMLight is ReadSVMLight; with optional, a file whose first line has
// no label (it starts with an index:value pair) is read as data without
// labels (Examples.Labels all ""), every line without one.
func readSVMLight(r io.Reader, name string, opt SVMLightOptions, optional bool) (*Examples, error) {
	limit := opt.MaxFeatures
	if limit <= 0 {
		limit = DefaultMaxFeatures
	}
	if opt.IndexBase < IndexAuto || opt.IndexBase > IndexOne {
		return nil, fmt.Errorf("svmlight: %s: unknown index base %v", name, opt.IndexBase)
	}
	shift := int64(0)
	if opt.IndexBase == IndexOne {
		shift = 1
	}
	lr := newLineReader(skipBOM(r), "svmlight", name, maxSVMLightLine)
	ex := &Examples{Name: name}
	var toks []string
	unlabeled := false
	for {
		b, ok := lr.next()
		if !ok {
			break
		}
		if k := bytes.IndexByte(b, '#'); k >= 0 {
			b = b[:k]
		}
		toks = fields(toks[:0], string(b))
		if len(toks) == 0 {
			continue
		}
		if optional && ex.Len() == 0 {
			unlabeled = strings.Contains(toks[0], ":")
		}
		var label string
		if unlabeled {
			if !strings.Contains(toks[0], ":") {
				return nil, lr.errorf("%s: a label, but the first line of the file has none (a file to predict on has labels on every line or on none)", quote(toks[0]))
			}
			toks = append([]string{"0"}, toks...) // a placeholder for the label
		}
		label, v, err := parseSVMLightLine(toks, shift, int64(limit))
		if err != nil {
			return nil, lr.errorf("%w", err)
		}
		if unlabeled {
			label = ""
		}
		ex.add(v, label, lr.line)
	}
	if err := lr.err(); err != nil {
		return nil, err
	}
	if ex.Len() == 0 {
		return nil, lr.fileErrorf("no examples")
	}
	if opt.IndexBase == IndexAuto {
		rebase(ex)
	}
	ex.NumFeatures = numFeaturesOf(ex.X)
	return ex, nil
}

// parseSVMLightLine parses the tokens of one line: the label and the
// features with their indices minus shift, which must stay below limit.
func parseSVMLightLine(toks []string, shift, limit int64) (string, oracles.SparseVec, error) {
	var v oracles.SparseVec
	label, numeric := canonicalLabel(toks[0])
	switch {
	case strings.Contains(toks[0], ":"):
		return "", v, fmt.Errorf("the line starts with %s, want a label before the index:value pairs", quote(toks[0]))
	case strings.Contains(toks[0], ","):
		return "", v, fmt.Errorf("label %s: multi-label data is not supported (one class an example)", quote(toks[0]))
	case !numeric:
		return "", v, fmt.Errorf("label %s is not a finite decimal number", quote(toks[0]))
	}
	v.Idx = make([]int32, 0, len(toks)-1)
	v.Val = make([]float64, 0, len(toks)-1)
	for _, tok := range toks[1:] {
		is, vs, ok := strings.Cut(tok, ":")
		if !ok {
			return "", v, fmt.Errorf("%s is not an index:value pair", quote(tok))
		}
		if is == "qid" {
			return "", v, fmt.Errorf("%s: qid (ranking data) is not supported; a multiclass file holds a label and index:value pairs", quote(tok))
		}
		idx, err := strconv.ParseInt(is, 10, 64)
		if err != nil || idx < 0 {
			return "", v, fmt.Errorf("feature index %s is not a non-negative integer", quote(is))
		}
		if idx < shift {
			return "", v, fmt.Errorf("feature index 0 in a file read with 1-based indices")
		}
		if idx-shift >= limit {
			return "", v, fmt.Errorf("feature index %d: more than %d features, the most an svmlight file may have by default (a corrupt index? a larger limit is the reader's maximum number of features)", idx, limit)
		}
		val, ok := parseDecimal(vs)
		if !ok {
			return "", v, fmt.Errorf("feature %d: value %s is not a finite decimal number", idx, quote(vs))
		}
		v.Append(int32(idx-shift), val)
	}
	v.Sort()
	n := 0
	for k, i := range v.Idx {
		if k > 0 && i == v.Idx[k-1] {
			return "", v, fmt.Errorf("feature index %d appears twice", int64(i)+shift)
		}
		if v.Val[k] != 0 {
			v.Idx[n], v.Val[n] = i, v.Val[k]
			n++
		}
	}
	v.Idx, v.Val = v.Idx[:n:n], v.Val[:n:n]
	return label, v, nil
}

// rebase makes 1-based the indices of ex, read as 0-based, when none of
// them is 0 (the detection of IndexAuto), and returns the base.
func rebase(ex *Examples) IndexBase {
	for _, v := range ex.X {
		if len(v.Idx) > 0 && v.Idx[0] == 0 {
			return IndexZero
		}
	}
	shiftDown(ex)
	return IndexOne
}

// ReadSVMLightFile reads an svmlight file, plain or gzip-compressed
// (detected by the gzip magic bytes), with ReadSVMLight.
func ReadSVMLightFile(path string, opt SVMLightOptions) (*Examples, error) {
	rc, err := openData("svmlight", path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return ReadSVMLight(rc, path, opt)
}
