package ssvmnb

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/oracles"
)

// Data is a dataset ready for a notebook: its training and test problems,
// a description, and what ShowPredictions needs to display its examples.
type Data struct {
	// Name is the dataset actually loaded ("ocr", "synthetic", ...); after
	// a fallback it is not the name asked for (see Note).
	Name string
	// Description is one line saying what the data is.
	Description string
	// Note is non-empty when Load used other data than asked for, and says
	// why (OCR not found: synthetic data instead). Load shows it.
	Note string
	// Train and Test are the problems (Test may be nil).
	Train, Test oracles.Problem

	spec *dataSpec
	// summary says what was read from the user's files (fileSummary),
	// shown once by Load; "" for the named datasets.
	summary string
	// illNoted is set once the conditioning note about the data is shown.
	illNoted atomic.Bool
}

// dataSpec is what a session remembers of its data, to load it again.
type dataSpec struct {
	Name    string
	Options datasets.Options
	Note    string
}

// NewData wraps problems built by hand as Data. Sessions on it cannot be
// resumed by name alone (Resume): use Session with the same problems.
func NewData(name string, train, test oracles.Problem) *Data {
	return &Data{Name: name, Description: name, Train: train, Test: test}
}

// Load returns a dataset by the names datasets.Load knows (ocr, usps,
// synthetic, conll, yeast, horses, svmlight, csv, or a path), with at most
// one datasets.Options (Split: OCR-small or OCR-large, Path, ...). A path
// given (Options.Path or as the name) is the path that is used.
//
// Only "ocr" without a path falls back to other data, and only when the
// data is not found (datasets.ErrNotFound): it then loads the built-in
// synthetic OCR-like task (Options.Synthetic), says so in Data.Note and
// shows the note in the notebook and on stderr. Every other error is
// returned.
func Load(name string, opts ...datasets.Options) (*Data, error) {
	if len(opts) > 1 {
		return nil, fmt.Errorf("ssvmnb: load %q: at most one datasets.Options, got %d", name, len(opts))
	}
	var opt datasets.Options
	if len(opts) == 1 {
		opt = opts[0]
	}
	spec := &dataSpec{Name: name, Options: opt}
	d, err := spec.load()
	if err == nil {
		return d, nil
	}
	if name != "ocr" || opt.Path != "" || !errors.Is(err, datasets.ErrNotFound) {
		return nil, err
	}
	syn := &dataSpec{Name: "synthetic", Options: datasets.Options{Synthetic: opt.Synthetic},
		Note: fmt.Sprintf("OCR not found, so this notebook runs on the built-in synthetic OCR-like data instead (set $%s to the folder holding ocr/letter.data.gz for the real data): %v", datasets.EnvVar, err)}
	d, serr := syn.load()
	if serr != nil {
		return nil, fmt.Errorf("ssvmnb: load ocr: %w; and the synthetic fallback: %v", err, serr)
	}
	return d, nil
}

// load loads the data of a spec and shows its note and, for the user's
// files, what was read.
func (sp *dataSpec) load() (*Data, error) {
	d, err := loadData(sp.Name, sp.Options)
	if err != nil {
		return nil, fmt.Errorf("ssvmnb: load %q: %w", sp.Name, err)
	}
	d.spec = sp
	if d.summary != "" {
		inform(d.summary)
	}
	if sp.Note != "" {
		d.Note = sp.Note
		d.Description += " (fallback: OCR not found)"
		note(sp.Note)
		standIn.Store(true)
	}
	return d, nil
}

// loadData loads a dataset by name, keeping what displays need.
func loadData(name string, opt datasets.Options) (*Data, error) {
	d := &Data{Name: name}
	switch name {
	case "horses":
		if opt.Horses.Path == "" {
			opt.Horses.Path = opt.Path
		}
		h, err := datasets.LoadHorses(opt.Horses)
		if err != nil {
			return nil, err
		}
		d.Train, d.Test = h.Train, h.Test
		register(h.Train, horseView(h.TrainImages))
		register(h.Test, horseView(h.TestImages))
		d.Description = fmt.Sprintf("Weizmann horses: %d training and %d test images as superpixel graphs", h.Train.Len(), h.Test.Len())
		return d, nil
	}
	ld, err := datasets.LoadData(name, opt)
	if err != nil {
		return nil, err
	}
	d.Train, d.Test = ld.Train, ld.Test
	if ld.TrainPath != "" && (name == "svmlight" || name == "csv" || !slices.Contains(datasets.Names, name)) {
		// The user's own files (a format or a path, not a dataset of the
		// project): what the command line prints of them.
		d.summary = fileSummary(ld)
	}
	if ld.Name == "yeast" || ld.Name == "mulan" {
		// Multi-label data: predictions show the label names of the MULAN
		// XML file.
		if len(ld.Labels) == 0 {
			return nil, fmt.Errorf("%s: multi-label data without label names", ld.TrainPath)
		}
		register(ld.Train, labelSetView(ld.Labels))
		if ld.Test != nil {
			register(ld.Test, labelSetView(ld.Labels))
		}
		d.Description = fmt.Sprintf("Yeast (MULAN): %d training and %d test genes, %d labels", ld.Train.Len(), lenOf(ld.Test), len(ld.Labels))
		if ld.Name == "mulan" {
			d.Description = fmt.Sprintf("MULAN data %s: %d training and %d test examples, %d labels (%s)",
				ld.TrainPath, ld.Train.Len(), lenOf(ld.Test), len(ld.Labels), labelList(ld.Labels))
		}
		return d, nil
	}
	if (ld.Name == "svmlight" || ld.Name == "csv") && len(ld.Labels) > 0 {
		// Multiclass data read from a file: predictions show the class
		// labels of the file, not class indices.
		register(ld.Train, classView(ld.Labels))
		if ld.Test != nil {
			register(ld.Test, classView(ld.Labels))
		}
	}
	tr, te := ld.Train, ld.Test
	switch name {
	case "ocr":
		d.Description = fmt.Sprintf("OCR-%v (Taskar et al.'s handwritten words, fold 0): %d training and %d test words", opt.Split, tr.Len(), te.Len())
	case "synthetic":
		d.Description = fmt.Sprintf("synthetic OCR-like data: %d training and %d test words", tr.Len(), te.Len())
	case "usps":
		d.Description = fmt.Sprintf("USPS digits: %d training and %d test images", tr.Len(), te.Len())
	case "conll":
		d.Description = fmt.Sprintf("CoNLL-2000 chunking: %d training and %d test sentences, d = %d", tr.Len(), te.Len(), tr.Dim())
	default:
		d.Description = fmt.Sprintf("%s: %d training and %d test examples", name, tr.Len(), te.Len())
	}
	return d, nil
}

// lenOf returns the number of examples of p, 0 for none.
func lenOf(p oracles.Problem) int {
	if p == nil {
		return 0
	}
	return p.Len()
}

// labelList lists label names for a description, the first 6 and how many
// more.
func labelList(names []string) string {
	if len(names) <= 6 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:6], ", "), len(names)-6)
}

// views holds how to show the examples of problems loaded by Load whose
// displays need more than the problem (images, label names).
var views = struct {
	sync.Mutex
	m map[oracles.Problem]exampleView
}{m: map[oracles.Problem]exampleView{}}

func register(p oracles.Problem, v exampleView) {
	views.Lock()
	defer views.Unlock()
	views.m[p] = v
}

func viewOf(p oracles.Problem) exampleView {
	views.Lock()
	defer views.Unlock()
	return views.m[p]
}

// fileSummary says what the command line says of data read from the
// user's files: the examples, the classes and how many training examples
// each has (multiclass data) or the labels (multi-label data), the
// dimension, and what the test file holds that the training file does
// not (datasets.Unseen: dropped feature values, labels that are no class
// of the model, their examples counted as errors).
func fileSummary(ld *datasets.Data) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s data %s: %d training and %d test examples, d = %d", ld.Name, ld.TrainPath, ld.Train.Len(), lenOf(ld.Test), ld.Train.Dim())
	if m, ok := ld.Train.(*oracles.Multiclass); ok {
		counts := make([]int, m.NumClasses())
		for i := 0; i < m.Len(); i++ {
			if c := m.Truth(i)[0]; c >= 0 && int(c) < len(counts) {
				counts[c]++
			}
		}
		var parts []string
		for c, n := range counts {
			label := fmt.Sprint(c)
			if c < len(ld.Labels) {
				label = ld.Labels[c]
			}
			parts = append(parts, fmt.Sprintf("%s: %d", label, n))
		}
		fmt.Fprintf(&b, "; %d classes (training examples: %s)", len(counts), labelList(parts))
		if len(counts) > max(20, m.Len()/5) {
			fmt.Fprintf(&b, "; that many classes for %d examples: is the label column right? (datasets.CSVOptions.Label, the last column by default)", m.Len())
		}
	} else if len(ld.Labels) > 0 {
		fmt.Fprintf(&b, "; %d labels (%s)", len(ld.Labels), labelList(ld.Labels))
	}
	u := ld.Unseen
	if len(u.Labels) > 0 {
		fmt.Fprintf(&b, "; the test file has %d labels the training file does not have (%s): their %d %ss are errors of every model, counted in the test loss",
			len(u.Labels), labelList(u.Labels), u.Items, u.Item)
	}
	if u.Features > 0 {
		fmt.Fprintf(&b, "; %d feature values of the test file have no feature in the training file and are dropped", u.Features)
	}
	return b.String()
}
