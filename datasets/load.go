package datasets

import (
	"fmt"
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
	// datasets named "ocr" or "usps".
	Path string
	// Split selects OCR-small (default) or OCR-large.
	Split Split
	// NoBias leaves out the constant feature that Load appends to USPS
	// inputs (a per-class bias).
	NoBias bool
	// Synthetic configures the synthetic OCR-like data.
	Synthetic SyntheticConfig
}

// Names lists the dataset names Load accepts.
var Names = []string{"ocr", "usps", "synthetic"}

// Load returns the training and test problems of a dataset by name: "ocr"
// (Taskar's handwritten words as chains, split by opt.Split), "usps" (digits
// as a multiclass problem) or "synthetic" (the seeded OCR-like generator,
// needing no file). The name may also be a path to a data file or folder,
// whose dataset is recognized from its name (letter.data* is OCR, zip.* or a
// folder holding zip.train* is USPS); the path is then used as opt.Path is.
func Load(name string, opt Options) (train, test oracles.Problem, err error) {
	if !slices.Contains(Names, name) {
		kind, err := Recognize(name)
		if err != nil {
			return nil, nil, err
		}
		name, opt.Path = kind, name
	}
	switch name {
	case "synthetic":
		if opt.Path != "" {
			return nil, nil, fmt.Errorf("synthetic data is generated, not read: drop the path %s", opt.Path)
		}
		tr, te, err := SyntheticOCR(opt.Synthetic)
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

// Recognize returns the dataset name ("ocr" or "usps") of a data path from
// its file or folder names.
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
	case fi.IsDir():
		for _, ds := range []Dataset{OCR, USPS} {
			if _, err := ds.Paths(path); err == nil {
				return ds.Name, nil
			}
		}
	}
	return "", fmt.Errorf("dataset %q: cannot tell OCR (letter.data[.gz]) from USPS (zip.train[.gz], zip.test[.gz]) by its name", path)
}
