package datasets

import (
	"fmt"
	"os"
	"path/filepath"
)

// Conll is the CoNLL-2000 text chunking dataset (Tjong Kim Sang & Buchholz
// 2000): 8,936 training and 2,012 test sentences of the Wall Street
// Journal, one token a line as `word POS chunk-tag`, read by LoadConll.
var Conll = Dataset{Name: "conll", Files: []RemoteFile{{
	Path:   "conll2000/train.txt.gz",
	URL:    "https://www.clips.uantwerpen.be/conll2000/chunking/train.txt.gz",
	SHA256: "2ecb3b44da9297efe94e547d11944327e0f0d5c9cb96bca3a22ffeaa3b9399f9",
	Size:   599156,
}, {
	Path:   "conll2000/test.txt.gz",
	URL:    "https://www.clips.uantwerpen.be/conll2000/chunking/test.txt.gz",
	SHA256: "09f12259cc2cc95bb25333c69bbb4fc5e35e992217b82b485a2b252159e9dbe0",
	Size:   136836,
}}}

// ConllOptions configures LoadConll. The zero value reads CoNLL-2000 as
// Osokin et al. (2016, App. I.2) use it.
type ConllOptions struct {
	// Format is the column layout; the zero value takes the tag from the
	// last column and every other column as an input, which reads
	// CoNLL-2000 (word POS tag) and CoNLL-2003 (word POS chunk entity)
	// alike. The attribute templates read input columns 0 and 1.
	Format ColumnFormat
	// TestPath is the test file when LoadConll is given a training file;
	// empty means the file beside it that TestFileCandidates names first
	// (train.txt.gz -> test.txt.gz).
	TestPath string
	// MinCount is the number of training occurrences an attribute needs
	// to become a feature; 0 means DefaultMinCount (3), 1 keeps every
	// attribute.
	MinCount int
	// Templates are the attribute templates; nil means ChunkingTemplates.
	Templates []Template
	// NoBoundary leaves out the __BOS__ and __EOS__ attributes.
	NoBoundary bool
}

// LoadConll reads a column-format corpus and returns its training and test
// chunking problems. path is either
//
//   - a directory: a data root holding conll2000/train.txt[.gz] and
//     conll2000/test.txt[.gz], or the folder holding train.txt[.gz] and
//     test.txt[.gz] (see Dataset.Paths), opt.TestPath replacing the latter
//     when set; or
//   - a training file in any column format (plain or gzip), its test file
//     being opt.TestPath or, by default, the first file of
//     TestFileCandidates beside it (train.txt -> test.txt, eng.train ->
//     eng.test, ...).
//
// The tags of the model are those of the training file, and the attribute
// dictionary is built on the training sentences alone: the test file
// changes neither d nor the tags (see Dictionary for how the test
// attributes it does not hold are dropped, and Chunking.Unseen for test
// tags absent from training, which count as errors).
func LoadConll(path string, opt ConllOptions) (train, test *Chunking, err error) {
	trainPath, testPath, err := conllPaths(path, opt.TestPath, false)
	if err != nil {
		return nil, nil, fmt.Errorf("load conll: %w", err)
	}
	return loadConll(trainPath, testPath, opt)
}

// loadConll is LoadConll on the files found; without testPath, test is
// nil.
func loadConll(trainPath, testPath string, opt ConllOptions) (train, test *Chunking, err error) {
	trs, err := ReadColumnFile(trainPath, opt.Format)
	if err != nil {
		return nil, nil, fmt.Errorf("load conll: %w", err)
	}
	var tes []Sentence
	if testPath != "" {
		if tes, err = ReadColumnFile(testPath, opt.Format); err != nil {
			return nil, nil, fmt.Errorf("load conll: %w", err)
		}
	}
	minCount := opt.MinCount
	if minCount == 0 {
		minCount = DefaultMinCount
	}
	dict, err := BuildDictionary(trs, AttributeConfig{Templates: opt.Templates, NoBoundary: opt.NoBoundary, MinCount: minCount})
	if err != nil {
		return nil, nil, fmt.Errorf("load conll: %s: %w", trainPath, err)
	}
	if train, err = NewChunking(trs, dict, nil); err != nil {
		return nil, nil, fmt.Errorf("load conll: %s: %w", trainPath, err)
	}
	if tes == nil {
		return train, nil, nil
	}
	if test, err = NewChunking(tes, dict, train.Tags); err != nil {
		return nil, nil, fmt.Errorf("load conll: %s: %w", testPath, err)
	}
	return train, test, nil
}

// conllPaths resolves the training and test files of LoadConll.
func conllPaths(path, testPath string, optional bool) (train, test string, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", "", err
	}
	if fi.IsDir() {
		paths, err := Conll.Paths(path)
		if err != nil && testPath == "" {
			return "", "", err
		}
		if testPath != "" {
			p := findFile(path, Conll.Files[0])
			if p == "" {
				return "", "", fmt.Errorf("dataset conll: missing %s", filepath.Join(path, filepath.FromSlash(Conll.Files[0].Path)))
			}
			return p, testPath, nil
		}
		return paths[0], paths[1], nil
	}
	if testPath != "" {
		return path, testPath, nil
	}
	test, err = optionalTestFile(path, optional)
	return path, test, err
}

// loadConllData is Load's "conll" case: opt.Path as a training file in
// column format when it names a file, else the CoNLL-2000 files found by
// Locate (in opt.Path, $FWSTRUCT_DATA or the user cache); the test file is
// opt.TestPath (or opt.Conll.TestPath) when set. It also returns the
// training and test files read.
func loadConllData(opt Options) (train, test *Chunking, paths [2]string, err error) {
	co := opt.Conll
	switch {
	case co.TestPath == "":
		co.TestPath = opt.TestPath
	case opt.TestPath != "" && opt.TestPath != co.TestPath:
		return nil, nil, paths, fmt.Errorf("load conll: two test files: %s (Options.TestPath) and %s (ConllOptions.TestPath)", opt.TestPath, co.TestPath)
	}
	path := opt.Path
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		if path, err = Locate(Conll, opt.Path); err != nil {
			return nil, nil, paths, err
		}
	}
	if paths[0], paths[1], err = conllPaths(path, co.TestPath, opt.TestOptional); err != nil {
		return nil, nil, paths, fmt.Errorf("load conll: %w", err)
	}
	co.TestPath = paths[1]
	train, test, err = loadConll(paths[0], paths[1], co) // no test without paths[1] (Options.TestOptional)
	return train, test, paths, err
}
