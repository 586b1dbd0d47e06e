package datasets

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fwstruct/fwstruct/oracles"
)

// Options configures Load.
type Options struct {
	// Path is an explicit location of the data (a data root, the dataset's
	// folder or one of its files); empty means $FWSTRUCT_DATA, then the user
	// cache (see Locate).
	Path string
	// Split selects OCR-small (default) or OCR-large.
	Split Split
	// NoBias leaves out the constant feature that Load appends to USPS
	// inputs (a per-class bias).
	NoBias bool
	// Synthetic configures the synthetic OCR-like data.
	Synthetic SyntheticConfig
	// Conll configures the CoNLL (column-format) data.
	Conll ConllOptions
}

// Names lists the dataset names Load accepts.
var Names = []string{"ocr", "usps", "synthetic", "conll"}

// Load returns the training and test problems of a dataset by name: "ocr"
// (Taskar's handwritten words as chains, split by opt.Split), "usps" (digits
// as a multiclass problem), "synthetic" (the seeded OCR-like generator,
// needing no file) or "conll" (CoNLL-2000 chunking, see LoadConll). The name
// may also be a path to a data file or folder, whose dataset is recognized
// from its name (letter.data* is OCR, zip.* or a folder holding zip.train*
// is USPS, a folder holding train.txt* and test.txt* is CoNLL) or, for any
// other file, from its content (a column-format corpus is read as the
// training file of LoadConll, its test file beside it).
func Load(name string, opt Options) (train, test oracles.Problem, err error) {
	if name != "ocr" && name != "usps" && name != "synthetic" && name != "conll" {
		kind, err := Recognize(name)
		if err != nil {
			return nil, nil, err
		}
		name, opt.Path = kind, name
	}
	switch name {
	case "synthetic":
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
		root, err := Locate(OCR, opt.Path)
		if err != nil {
			return nil, nil, err
		}
		tr, te, err := LoadOCR(root, opt.Split)
		if err != nil {
			return nil, nil, err
		}
		return tr, te, nil
	default:
		root, err := Locate(USPS, opt.Path)
		if err != nil {
			return nil, nil, err
		}
		tr, te, err := LoadUSPS(root, !opt.NoBias)
		if err != nil {
			return nil, nil, err
		}
		return tr, te, nil
	}
}

// Recognize returns the dataset name ("ocr", "usps" or "conll") of a data
// path from its file or folder names, or, for a file of another name, from
// its content (a column-format corpus is "conll").
func Recognize(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("dataset %q: not a known name (%s) and not a readable path: %w", path, strings.Join(Names, ", "), err)
	}
	base := strings.ToLower(filepath.Base(path))
	switch {
	case strings.HasPrefix(base, "letter.data"):
		return "ocr", nil
	case strings.HasPrefix(base, "zip."):
		return "usps", nil
	case fi.Mode().IsRegular() && looksLikeColumns(path):
		return "conll", nil
	case fi.IsDir():
		for _, ds := range []Dataset{OCR, USPS, Conll} {
			if _, err := ds.Paths(path); err == nil {
				return ds.Name, nil
			}
		}
	}
	return "", fmt.Errorf("dataset %q: cannot tell OCR (letter.data[.gz]) from USPS (zip.train[.gz], zip.test[.gz]) or CoNLL (a column-format file, or train.txt[.gz] and test.txt[.gz]) by its name", path)
}
