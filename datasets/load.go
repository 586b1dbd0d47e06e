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
	// Horses configures the Weizmann horses (LoadHorses); its Path
	// defaults to Path.
	Horses HorsesOptions
}

// Names lists the dataset names Load accepts.
var Names = []string{"ocr", "usps", "synthetic", "horses"}

// Load returns the training and test problems of a dataset by name: "ocr"
// (Taskar's handwritten words as chains, split by opt.Split), "usps" (digits
// as a multiclass problem), "synthetic" (the seeded OCR-like generator,
// needing no file) or "horses" (the Weizmann horses as graph-cut
// segmentation problems, see LoadHorses). The name may also be a path to a data file or folder,
// whose dataset is recognized from its name (letter.data* is OCR, zip.* or a
// folder holding zip.train* is USPS).
func Load(name string, opt Options) (train, test oracles.Problem, err error) {
	if !slices.Contains(Names, name) {
		kind, err := Recognize(name)
		if err != nil {
			return nil, nil, err
		}
		name, opt.Path = kind, name
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
