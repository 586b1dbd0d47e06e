package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fwstruct/fwstruct/datasets"
)

// dataFlags are the data flags of a command: they select a dataset, a
// datasets.Spec.
type dataFlags struct {
	name  string
	opt   datasets.Options
	words int    // --synthetic-words, both splits
	comma string // --csv-comma
}

// freshData is the data a command starts from: --data auto (OCR when it
// is found, else the synthetic data) with the defaults of the flags.
func freshData(name string) datasets.Spec {
	return datasets.Spec{Name: name, Options: datasets.Options{
		Synthetic: datasets.SyntheticConfig{TrainWords: 300, TestWords: 300, Seed: 1, FlipNoise: 0.1}}}
}

// dataKinds lists the data flags that apply to some datasets or formats
// only (as Load resolves them); the others apply to all.
var dataKinds = map[string][]string{
	"split":           {"ocr"},
	"no-bias":         {"usps", "svmlight", "csv", "yeast", "mulan"},
	"scale":           {"usps", "yeast", "mulan", "svmlight", "csv"},
	"index-base":      {"svmlight"},
	"label-column":    {"csv"},
	"csv-header":      {"csv"},
	"csv-comma":       {"csv"},
	"test-data":       {"svmlight", "csv", "conll", "usps", "yeast", "mulan"},
	"synthetic-words": {"synthetic"},
	"synthetic-seed":  {"synthetic"},
	"synthetic-noise": {"synthetic"},
}

// declare declares the data flags under the heading Data (with the note
// below it), their defaults those of from.
func (d *dataFlags) declare(f *flagSet, from datasets.Spec, note string) {
	d.name, d.opt = from.Name, from.Options
	if d.opt.Synthetic == (datasets.SyntheticConfig{}) { // data of another kind: the flags' defaults
		d.opt.Synthetic = freshData("").Options.Synthetic
	}
	d.words, d.comma = d.opt.Synthetic.TrainWords, ","
	if c := d.opt.CSV.Comma; c != 0 {
		d.comma = strings.ReplaceAll(string(c), "\t", `\t`)
	}
	o := &d.opt
	f.section("Data", note)
	f.String(&d.name, "data", "dataset: ocr, usps, synthetic, auto (ocr when found, else synthetic), conll, yeast, horses, hansards (word\n"+
		"alignment, gold pairs 1-100 / 101-447), hansards-intersected (5,000 pairs labelled by intersected diagonal IBM Model 2\n"+
		"alignments, not by people), svmlight or csv (with --data-path), or a path to letter.data[.gz], a USPS folder, a Hansards\n"+
		"folder, a MULAN .arff file, or an svmlight (.svm, .libsvm, .scale) or CSV (.csv) training file")
	f.String(&o.Path, "data-path", "the data, used as given (never another copy): a data root, a dataset folder or file\n(default for the named datasets: $FWSTRUCT_DATA, then the user cache)")
	f.String(&o.TestPath, "test-data", "svmlight/csv/conll/usps/MULAN: the test `FILE` (default: beside the training file, e.g. X.t, X_test.csv or\n"+
		"test.txt; none there: no test set)")
	f.choice("split", "OCR split: small (train on fold 0) or large (train on folds 1-9)", []string{"small", "large"},
		o.Split.String, func(s string) (err error) { o.Split, err = datasets.ParseSplit(s); return })
	f.Bool(&o.NoBias, "no-bias", "usps/svmlight/csv/MULAN: no constant bias feature")
	f.Choice(&o.Scaling, "scale", "feature scaling of usps, yeast/MULAN, svmlight and csv data, fitted on the training file and stored in\nthe model: none, minmax or standardize",
		"none", "minmax", "standardize")
	f.choice("index-base", "svmlight feature indices: auto (0-based when some index is 0), 0 or 1", []string{"auto", "0", "1"},
		o.SVMLight.IndexBase.String, func(s string) (err error) { o.SVMLight.IndexBase, err = datasets.ParseIndexBase(s); return })
	f.String(&o.CSV.Label, "label-column", "csv label column: a header name or a 0-based index, negative from the end (default: the last)")
	f.choice("csv-header", "csv header row: auto, yes or no", []string{"auto", "yes", "no"},
		o.CSV.Header.String, func(s string) (err error) { o.CSV.Header, err = datasets.ParseCSVHeader(s); return })
	f.String(&d.comma, "csv-comma", "csv field separator (one character; \\t for a tab)")
	f.Int(&d.words, "synthetic-words", "synthetic data: words per split (>= 1)")
	f.Uint64(&o.Synthetic.Seed, "synthetic-seed", "synthetic data: generator seed")
	f.Float(&o.Synthetic.FlipNoise, "synthetic-noise", "synthetic data: pixel flip probability, in (0, 0.5]")
	f.check(func() error {
		noise := o.Synthetic.FlipNoise
		if err := checkFlags(flagCheck{"synthetic-words", ">= 1", float64(d.words), d.words >= 1},
			flagCheck{"synthetic-noise", "in (0, 0.5]", noise, noise > 0 && noise <= 0.5}); err != nil {
			return err
		}
		o.Synthetic.TrainWords, o.Synthetic.TestWords = d.words, d.words
		comma := []rune(strings.ReplaceAll(d.comma, `\t`, "\t"))
		if len(comma) != 1 {
			return fmt.Errorf("--csv-comma: want one character, got %s", quote(d.comma))
		}
		o.CSV.Comma = comma[0]
		return nil
	})
}

// spec returns the data the flags select: the name resolved (auto becomes
// ocr or synthetic), the options that apply to it (others cleared), paths
// absolute, so that another command, maybe run from another folder, loads
// the same problems. A data flag given (given) that does not apply is an
// error naming it.
func (d *dataFlags) spec(given []string) (datasets.Spec, error) {
	kind, err := dataKind(d.name, d.opt.Path)
	if err != nil {
		return datasets.Spec{}, err
	}
	applies := func(flag string) bool {
		kinds := dataKinds[flag]
		return kind == "" || kinds == nil || slices.Contains(kinds, kind)
	}
	for _, name := range given {
		if kinds := dataKinds[name]; !applies(name) {
			return datasets.Spec{}, fmt.Errorf("--%s applies to %s data only, not %s", name, orList(kinds), kind)
		}
	}
	sp := datasets.Spec{Name: d.name, Options: d.opt}
	if d.name == "auto" {
		sp.Name = kind
	}
	o := &sp.Options
	if kind == "conll" {
		o.Conll.TestPath = o.TestPath
	}
	drop := map[string]func(){
		"split": func() { o.Split = 0 }, "no-bias": func() { o.NoBias = false }, "scale": func() { o.Scaling = 0 },
		"index-base": func() { o.SVMLight = datasets.SVMLightOptions{} }, "csv-comma": func() { o.CSV = datasets.CSVOptions{} },
		"test-data": func() { o.TestPath = "" }, "synthetic-words": func() { o.Synthetic = datasets.SyntheticConfig{} },
	}
	for name, fn := range drop {
		if !applies(name) {
			fn()
		}
	}
	if o.CSV.Comma == ',' {
		o.CSV.Comma = 0 // the default, left out of the files
	}
	o.TestOptional = true // a training file alone: no test set (printData says so)
	return sp.Abs()
}

// dataKind returns the dataset or format the data flags select, as Load
// resolves it: auto is ocr when OCR is found (or a path is given), else
// synthetic; a path is what datasets.Recognize tells. It returns "" when
// the path cannot be recognized (loading it then says why).
func dataKind(name, path string) (string, error) {
	switch {
	case name == "auto":
		if path != "" {
			return "ocr", nil
		}
		_, err := datasets.Locate(datasets.OCR, "")
		switch {
		case errors.Is(err, datasets.ErrNotFound):
			return "synthetic", nil
		case err != nil:
			return "", err
		}
		return "ocr", nil
	case slices.Contains(datasets.Names, name):
		return name, nil
	}
	kind, err := datasets.Recognize(name)
	if err != nil {
		return "", nil
	}
	return kind, nil
}

// describeData names the data in the lines the commands print.
func describeData(d *datasets.Data, sp datasets.Spec) string {
	if d.Name == "ocr" {
		return "ocr-" + sp.Options.Split.String()
	}
	return d.Name
}

// printData prints what a command says of its data, each thing once: the
// line "data NAME: N training and M test examples, d = D", then what the
// test file holds beyond the training file (see unseenLine), or where the
// test file was looked for when there is none and what the command does
// without (without, e.g. "training without test losses").
func printData(w io.Writer, d *datasets.Data, sp datasets.Spec, without string) {
	test := "no test examples"
	if d.Test != nil {
		test = fmt.Sprintf("%d test examples", d.Test.Len())
	}
	fmt.Fprintf(w, "data %s: %d training and %s, d = %d\n", describeData(d, sp), d.Train.Len(), test, d.Train.Dim())
	switch {
	case d.Test == nil && d.NoTest != "":
		fmt.Fprintf(w, "%s: %s\n", d.NoTest, without)
	case d.Test == nil:
		fmt.Fprintf(w, "no test set: %s\n", without)
	}
	if note := unseenLine(d.Unseen); note != "" {
		fmt.Fprintf(w, "test file %s: %s\n", d.TestPath, note)
	}
}

// dataInputs returns the files of the data as inputs no output may
// replace.
func dataInputs(d *datasets.Data) []input {
	var in []input
	for _, p := range d.Files() {
		in = append(in, input{"the data", p})
	}
	return in
}

// unseenLine says what a test set holds that the training data does not
// (datasets.Unseen: feature values dropped, labels or tags no class has),
// "" when nothing.
func unseenLine(u datasets.Unseen) string {
	var parts []string
	if u.Features > 0 {
		parts = append(parts, fmt.Sprintf("%d feature values the training data has no feature for, dropped", u.Features))
	}
	if len(u.Labels) > 0 {
		what := "label"
		if u.Item == "token" {
			what = "tag"
		}
		labels := u.Labels
		more := ""
		if len(labels) > 5 {
			labels, more = labels[:5], fmt.Sprintf(" and %d more", len(u.Labels)-5)
		}
		parts = append(parts, fmt.Sprintf("%d %ss with a %s the training data does not have (%s%s), counted as errors",
			u.Items, u.Item, what, strings.Join(labels, ", "), more))
	}
	return strings.Join(parts, "; ")
}
