package datasets

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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
	// TestPath is the test file of the svmlight and csv formats; empty
	// looks for it beside the training file (see TestFileCandidates).
	TestPath string
	// Split selects OCR-small (default) or OCR-large.
	Split Split
	// NoBias leaves out the constant feature that Load appends to the
	// inputs of the multiclass datasets (usps, svmlight, csv): a per-class
	// bias; and the per-label bias of the MULAN multi-label models (d =
	// 1,533 instead of 1,547 for Yeast).
	NoBias bool
	// Scaling of the svmlight and csv features, fitted on the training
	// file (see Scaling and Scaler).
	Scaling Scaling
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
}

// Names lists the dataset names Load accepts.
var Names = []string{"ocr", "usps", "synthetic", "conll", "yeast", "horses", "hansards", "svmlight", "csv"}

// Load returns the training and test problems of a dataset by name: "ocr"
// (Taskar's handwritten words as chains, split by opt.Split), "usps" (digits
// as a multiclass problem), "synthetic" (the seeded OCR-like generator,
// needing no file), "conll" (CoNLL-2000 chunking, or any column-format
// corpus by path; see LoadConll), "yeast" (the MULAN Yeast dataset, as exact
// views of its multi-label factor-graph models; see LoadMULAN), "horses"
// (the Weizmann horses as graph-cut segmentation problems; see LoadHorses),
// "hansards" (English-French word alignment as bipartite matchings; see
// LoadHansards), or a generic format read from the file opt.Path and its test file:
// "svmlight" (LoadSVMLight) or "csv" (LoadCSV), as Crammer-Singer multiclass
// problems. The name may also be a path to a data file or folder, whose
// dataset or format Recognize tells; the path is then used as opt.Path is.
func Load(name string, opt Options) (train, test oracles.Problem, err error) {
	if !slices.Contains(Names, name) {
		kind, err := Recognize(name)
		if err != nil {
			return nil, nil, err
		}
		name, opt.Path = kind, name
	}
	if opt.Scaling != ScaleNone && name != "svmlight" && name != "csv" {
		return nil, nil, fmt.Errorf("%s: scaling applies to svmlight and csv data only", name)
	}
	switch name {
	case "horses":
		if opt.Horses.Path == "" {
			opt.Horses.Path = opt.Path
		}
		h, err := LoadHorses(opt.Horses)
		if err != nil {
			return nil, nil, err
		}
		return h.Train, h.Test, nil
	case "hansards":
		return loadHansardsData(opt)
	case "synthetic":
		if opt.Path != "" {
			return nil, nil, fmt.Errorf("synthetic data is generated, not read: drop the path %s", opt.Path)
		}
		tr, te, err := SyntheticOCR(opt.Synthetic)
		if err != nil {
			return nil, nil, err
		}
		return tr, te, nil
	case "conll":
		tr, te, err := loadConllData(opt)
		if err != nil {
			return nil, nil, err
		}
		return tr, te, nil
	case "ocr":
		path, err := dataPath(OCR, opt.Path)
		if err != nil {
			return nil, nil, err
		}
		tr, te, err := LoadOCR(path, opt.Split)
		if err != nil {
			return nil, nil, err
		}
		return tr, te, nil
	case "yeast", "mulan":
		return loadMULAN(name, opt)
	case "svmlight", "csv":
		if opt.Path == "" {
			return nil, nil, fmt.Errorf("%s data needs the path of its training file", name)
		}
		load := LoadSVMLight
		if name == "csv" {
			load = LoadCSV
		}
		d, err := load(opt.Path, opt)
		if err != nil {
			return nil, nil, err
		}
		return d.Train, d.Test, nil
	default:
		path, err := dataPath(USPS, opt.Path)
		if err != nil {
			return nil, nil, err
		}
		tr, te, err := LoadUSPS(path, !opt.NoBias)
		if err != nil {
			return nil, nil, err
		}
		return tr, te, nil
	}
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
// name-train.arff or a folder holding one (and "yeast" for a folder holding
// the Yeast files), "horses" for a folder holding gray/ and figure_ground/,
// "hansards" for a folder holding test.e, test.f and test.wa.nonullalign (or
// hansards/ with them),
// "conll" for a folder holding train.txt[.gz] and
// test.txt[.gz], "csv" for a
// name ending in .csv (before an optional .gz), "svmlight" for .svm,
// .svmlight, .libsvm or .scale; any other file by its first data line:
// "svmlight" when its second field is an index:value pair, "conll" when it
// has at least two fields separated by white space, none holding a comma,
// and a last field (the tag) that is not a number, "csv" when it holds a
// comma.
func Recognize(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("dataset %q: not a known name (%s) and not a readable path: %w", path, strings.Join(Names, ", "), err)
	}
	base := strings.ToLower(filepath.Base(path))
	stem := strings.TrimSuffix(base, ".gz")
	switch {
	case strings.HasPrefix(base, "letter.data"):
		return "ocr", nil
	case strings.HasPrefix(base, "zip."):
		return "usps", nil
	case strings.HasSuffix(base, "-train.arff"):
		return "mulan", nil
	case fi.IsDir():
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
	case strings.HasSuffix(stem, ".csv"):
		return "csv", nil
	case slices.ContainsFunc([]string{".svm", ".svmlight", ".libsvm", ".scale"}, func(ext string) bool { return strings.HasSuffix(stem, ext) }):
		return "svmlight", nil
	default:
		if kind := sniffFormat(path); kind != "" {
			return kind, nil
		}
	}
	return "", fmt.Errorf("dataset %q: cannot tell its format from its name or first line (OCR letter.data[.gz], USPS zip.train[.gz] and zip.test[.gz], MULAN name-train.arff, horses gray/ and figure_ground/, Hansards test.e, test.f and test.wa.nonullalign, CoNLL train.txt[.gz] and test.txt[.gz], svmlight, column-format, csv); name it, e.g. fwstruct --data svmlight --data-path FILE", path)
}

// sniffFormat returns "svmlight" or "csv" from the first data line of the
// file at path, or "".
func sniffFormat(path string) string {
	rc, err := openData("data", path)
	if err != nil {
		return ""
	}
	defer rc.Close()
	lr := newLineReader(io.LimitReader(rc, 1<<20), "data", path, 1<<20)
	for {
		b, ok := lr.next()
		if !ok {
			return ""
		}
		line := strings.TrimSpace(string(b))
		if line == "" || line[0] == '#' {
			continue
		}
		f := fields(nil, line)
		if len(f) > 1 && strings.Contains(f[1], ":") {
			return "svmlight"
		}
		if looksLikeColumns(f) {
			return "conll"
		}
		if strings.Contains(line, ",") {
			return "csv"
		}
		return ""
	}
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
	_, numErr := strconv.ParseFloat(f[len(f)-1], 64)
	return numErr != nil
}
