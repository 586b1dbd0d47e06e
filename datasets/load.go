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
	// inputs (a per-class bias) and the per-label bias of the MULAN
	// multi-label models (d = 1,533 instead of 1,547 for Yeast).
	NoBias bool
	// Synthetic configures the synthetic OCR-like data.
	Synthetic SyntheticConfig
}

// Names lists the dataset names Load accepts.
var Names = []string{"ocr", "usps", "synthetic", "yeast"}

// Load returns the training and test problems of a dataset by name: "ocr"
// (Taskar's handwritten words as chains, split by opt.Split), "usps" (digits
// as a multiclass problem) or "synthetic" (the seeded OCR-like generator,
// needing no file). The name may also be a path to a data file or folder,
// whose dataset is recognized from its name (letter.data* is OCR, zip.* or a
// folder holding zip.train* is USPS, name-train.arff is a MULAN multi-label
// dataset, see LoadMULAN). "yeast" is the MULAN Yeast dataset, as exact
// views of its multi-label factor-graph models.
func Load(name string, opt Options) (train, test oracles.Problem, err error) {
	if name != "ocr" && name != "usps" && name != "synthetic" && name != "yeast" {
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
	case "yeast", "mulan":
		return loadMULAN(name, opt)
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

// Recognize returns the dataset name ("ocr", "usps", "yeast" or "mulan")
// of a data path from its file or folder names.
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
	case strings.HasSuffix(base, "-train.arff"):
		return "mulan", nil
	case fi.IsDir():
		for _, ds := range []Dataset{OCR, USPS, Yeast} {
			if _, err := ds.Paths(path); err == nil {
				return ds.Name, nil
			}
		}
		if _, err := FindMULAN(path); err == nil {
			return "mulan", nil
		}
	}
	return "", fmt.Errorf("dataset %q: cannot tell OCR (letter.data[.gz]), USPS (zip.train[.gz], zip.test[.gz]) or MULAN (name-train.arff) by its name", path)
}
