package datasets

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fwstruct/fwstruct/oracles"
)

// Options configures Load.
type Options struct {
	// Path is an explicit location of the data: a data root, the dataset's
	// folder or one of its files. It is used as given: when it does not
	// hold the dataset, Load fails naming it. Empty means the search of
	// Locate ($FWSTRUCT_DATA, then the user cache), which applies only to
	// the named datasets (ocr, usps, conll, yeast, horses, hansards).
	Path string
	// TestPath is the test file of the data read from a training file
	// (svmlight, csv, usps, MULAN ARFF, column format); empty looks for it
	// beside the training file (see TestFileCandidates).
	TestPath string
	// Split selects OCR-small (default) or OCR-large.
	Split Split
	// NoBias leaves out the constant feature that Load appends to the
	// inputs of the multiclass datasets (usps, svmlight, csv): a per-class
	// bias; and the per-label bias of the MULAN multi-label models (d =
	// 1,533 instead of 1,547 for Yeast).
	NoBias bool
	// Scaling of the numeric features (usps, yeast, MULAN, svmlight and
	// csv data: see Scalable), fitted on the training file (see Scaling and
	// Scaler) and applied unchanged to the test file.
	Scaling Scaling
	// Scaler, when set, is a scaling fitted before (the one a model
	// stores: Data.Scaler of the data it was trained on), applied to the
	// training and test files instead of fitting Scaling; Scaling must then
	// be ScaleNone or its kind.
	Scaler *Scaler
	// SVMLight configures the svmlight reader.
	SVMLight SVMLightOptions
	// CSV configures the CSV reader.
	CSV CSVOptions
	// Synthetic configures the synthetic OCR-like data.
	Synthetic SyntheticConfig
	// Conll configures the CoNLL (column-format) data.
	Conll ConllOptions
	// Horses configures the Weizmann horses (LoadHorses); its Path
	// defaults to Path.
	Horses HorsesOptions
	// Hansards configures the word-alignment data (LoadHansards); its
	// Path defaults to Path.
	Hansards HansardsOptions
	// TestOptional makes a missing test file no test set rather than an
	// error, for the data read from a training file (svmlight, csv, a
	// file in the USPS format, MULAN ARFF, column format): when TestPath
	// is empty and no file of TestFileCandidates exists, Data.Test is nil
	// and Data.NoTest says where it looked. It says how the data is
	// loaded, not what it is: the JSON form leaves it out.
	TestOptional bool
}

// Names lists the dataset names Load accepts.
var Names = []string{"ocr", "usps", "synthetic", "conll", "yeast", "horses", "hansards", "hansards-intersected", "svmlight", "csv"}

// Load returns the training and test problems of a dataset by name: "ocr"
// (Taskar's handwritten words as chains, split by opt.Split), "usps" (digits
// as a multiclass problem; see LoadUSPS), "synthetic" (the seeded OCR-like
// generator, needing no file), "conll" (CoNLL-2000 chunking, or any
// column-format corpus by path; see LoadConll), "yeast" (the MULAN Yeast
// dataset, as exact views of its multi-label factor-graph models; see
// LoadMULAN), "horses" (the Weizmann horses as graph-cut segmentation
// problems; see LoadHorses), "hansards" (English-French word alignment as
// bipartite matchings, trained on gold pairs 1-100 and tested on 101-447;
// see LoadHansards), "hansards-intersected" (the same test pairs, trained
// on 5,000 unaligned pairs labelled by intersected diagonal IBM Model 2
// alignments, not by people; see HansardsIntersected), or a generic format read from the
// file opt.Path and its test file: "svmlight" (LoadSVMLight) or "csv" (LoadCSV),
// as Crammer-Singer multiclass problems. The name may also be a path to a
// data file or folder, whose dataset or format Recognize tells (any MULAN
// ARFF file, any file in the USPS format); the path is then used as
// opt.Path is.
//
// The test file of the formats read from files (svmlight, csv, usps, MULAN,
// column format) is opt.TestPath, else the file found beside the training
// file (see TestFileCandidates); a test file recognizably of another format
// than the training data is an error naming both. opt.Scaling applies to
// the formats Scalable names and is an error for the others. LoadData
// returns the same problems with the files read, the scaling fitted and
// the label names.
func Load(name string, opt Options) (train, test oracles.Problem, err error) {
	d, err := LoadData(name, opt)
	if err != nil {
		return nil, nil, err
	}
	return d.Train, d.Test, nil
}

// dataPath returns the explicit path as is, else the folder where Locate
// finds ds.
func dataPath(ds Dataset, explicit string) (string, error) {
	if explicit != "" {
		return explicit, nil
	}
	return Locate(ds, "")
}

// Recognize returns the dataset name or format of a data path: "ocr" for
// letter.data*, "usps" for zip.* or a folder holding zip.train*, "mulan" for
// a name ending in .arff (before an optional .gz) or a folder holding one
// name-train.arff (and "yeast" for a folder holding the Yeast files),
// "horses" for a folder holding gray/ and figure_ground/, "hansards" for a
// folder holding test.e, test.f and test.wa.nonullalign (or hansards/ with
// them), "conll" for a folder holding train.txt[.gz] and test.txt[.gz], "csv" for a name ending
// in .csv, "svmlight" for .svm, .svmlight, .libsvm or .scale; any other
// file by its first data line: "mulan" for an ARFF header (@relation),
// "svmlight" when its second field is an index:value pair, "usps" for a
// label and 256 numbers separated by white space, "conll" when it has at
// least two fields separated by white space, none holding a comma, and a
// last field (the tag) that is not a number, "csv" when it holds a comma.
func Recognize(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("dataset %q: not a known name (%s) and not a readable path: %w", path, strings.Join(Names, ", "), err)
	}
	if kind, ok := recognizeName(path); ok && (!fi.IsDir() || kind == "ocr" || kind == "usps" || kind == "mulan") {
		return kind, nil // a folder of such a name: its reader names it
	}
	if fi.IsDir() {
		for _, ds := range []Dataset{OCR, USPS, Yeast, Conll} {
			if _, err := ds.Paths(path); err == nil {
				return ds.Name, nil
			}
		}
		if _, err := FindMULAN(path); err == nil {
			return "mulan", nil
		}
		if _, err := LocateHorses(path); err == nil {
			return "horses", nil
		}
		if _, err := LocateHansards(path); err == nil {
			return "hansards", nil
		}
	} else if kind, err := sniffFormat(path); err == nil && kind != "" {
		return kind, nil
	}
	return "", fmt.Errorf("dataset %q: cannot tell its format from its name or first line (OCR letter.data[.gz], USPS zip.train[.gz] and zip.test[.gz], MULAN name.arff with name.xml, horses gray/ and figure_ground/, Hansards test.e, test.f and test.wa.nonullalign, CoNLL train.txt[.gz] and test.txt[.gz], svmlight, column-format, csv); name it, e.g. fwstruct --data svmlight --data-path FILE", path)
}

// recognizeFile returns the format of a data file by its name, else by its
// first data line (see Recognize), or "" when neither tells.
func recognizeFile(path string) (string, error) {
	if kind, ok := recognizeName(path); ok {
		return kind, nil
	}
	return sniffFormat(path)
}

// recognizeName returns the format of a data file by its name (see
// Recognize) and whether the name tells.
func recognizeName(path string) (string, bool) {
	base := strings.ToLower(filepath.Base(path))
	stem := strings.TrimSuffix(base, ".gz")
	switch {
	case strings.HasPrefix(base, "letter.data"):
		return "ocr", true
	case strings.HasPrefix(base, "zip."):
		return "usps", true
	case strings.HasSuffix(stem, ".arff"):
		return "mulan", true
	case strings.HasSuffix(stem, ".csv"):
		return "csv", true
	case slices.ContainsFunc([]string{".svm", ".svmlight", ".libsvm", ".scale"}, func(ext string) bool { return strings.HasSuffix(stem, ext) }):
		return "svmlight", true
	}
	return "", false
}

// sniffFormat returns the format of the file at path from its first data
// line (see Recognize), or "".
func sniffFormat(path string) (string, error) {
	rc, err := openData("data", path)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	lr := newLineReader(io.LimitReader(rc, 1<<20), "data", path, 1<<20)
	for {
		b, ok := lr.next()
		if !ok {
			return "", nil
		}
		line := strings.TrimSpace(string(b))
		if line == "" || line[0] == '#' || line[0] == '%' {
			continue
		}
		f := fields(nil, line)
		switch {
		case strings.EqualFold(f[0], "@relation"):
			return "mulan", nil
		case len(f) > 1 && strings.Contains(f[1], ":"):
			return "svmlight", nil
		case looksLikeUSPS(f):
			return "usps", nil
		case looksLikeColumns(f):
			return "conll", nil
		case strings.Contains(line, ","):
			return "csv", nil
		}
		return "", nil
	}
}

// looksLikeUSPS reports whether the white-space separated fields of a first
// data line are a USPS digit: a label and USPSFeatures grey values, all
// numbers.
func looksLikeUSPS(f []string) bool {
	if len(f) != USPSFeatures+1 {
		return false
	}
	for _, x := range f {
		if _, ok := parseDecimal(x); !ok {
			return false
		}
	}
	return true
}

// looksLikeColumns reports whether the white-space separated fields of a
// first data line look like a column-format corpus: at least two fields,
// none holding a comma (but a lone "," token), and a last one (the tag)
// that is not a number, unlike numeric data such as OCR or USPS files under
// other names.
func looksLikeColumns(f []string) bool {
	if len(f) < 2 {
		return false
	}
	for _, x := range f {
		if x != "," && strings.Contains(x, ",") {
			return false
		}
	}
	_, isNum := parseDecimal(f[len(f)-1])
	return !isNum
}
