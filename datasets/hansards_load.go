package datasets

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fwstruct/fwstruct/align"
	"github.com/fwstruct/fwstruct/oracles"
)

// The files of the Hansards word-alignment data in its folder (see
// LocateHansards).
const (
	HansardsEnglish = "test.e"              // the gold English sentences
	HansardsFrench  = "test.f"              // the gold French sentences (Latin-1)
	HansardsLinks   = "test.wa.nonullalign" // their sure and possible links
	HansardsPairs   = "10k.fr-en.gz"        // the unaligned pairs, "fr ||| en", gzip-compressed or not
)

// HansardsTraining selects the training set of LoadHansards.
type HansardsTraining int

const (
	// HansardsGold trains on the first gold sentence pairs (1-100, as
	// Taskar et al. 2005) and tests on the others (101-447: the "347
	// Gold test examples" of Lacoste-Julien et al. 2013).
	HansardsGold HansardsTraining = iota
	// HansardsIntersected trains on unaligned pairs (the first 5,000 of
	// the 10,000, the n of Lacoste-Julien et al. 2013) whose labels are
	// NOT human: they are the intersection of the two directional Viterbi
	// alignments of the diagonal IBM Model 2 of Dyer et al. (2013) trained here
	// on the 10,000 pairs, as sure links. The paper's 5,000 training
	// examples were not public; this is a stand-in of the same size for
	// the optimization figures. No feature reads that aligner (the
	// features read IBM Model 1), so the labels are not one feature of
	// the model. The test set is the same 347 gold pairs.
	HansardsIntersected
)

// String returns "gold" or "intersected".
func (t HansardsTraining) String() string {
	switch t {
	case HansardsGold:
		return "gold"
	case HansardsIntersected:
		return "intersected"
	}
	return fmt.Sprintf("HansardsTraining(%d)", int(t))
}

// HansardsOptions configures LoadHansards. The zero value is the setting
// of Taskar et al. (2005): train on gold pairs 1-100, test on 101-447.
type HansardsOptions struct {
	// Path is the folder of the data (or a data root holding hansards/,
	// or one of the files), used as given; empty means $FWSTRUCT_DATA,
	// then the user cache (see LocateHansards).
	Path string
	// Training selects the training set (default HansardsGold).
	Training HansardsTraining
	// TrainGold is the number of gold pairs trained on, the first ones;
	// the others are the test set. Zero means 100.
	TrainGold int
	// Intersected is the number of unaligned pairs of the
	// HansardsIntersected training set, the first ones; zero means 5,000.
	Intersected int
	// EMIterations is the number of EM iterations of each unsupervised
	// aligner (IBM Model 1 from uniform parameters, then the diagonal IBM
	// Model 2 from Model 1's); zero means 5.
	EMIterations int
}

func (o HansardsOptions) withDefaults() HansardsOptions {
	if o.TrainGold == 0 {
		o.TrainGold = 100
	}
	if o.Intersected == 0 {
		o.Intersected = 5000
	}
	if o.EMIterations == 0 {
		o.EMIterations = 5
	}
	return o
}

// Hansards is the word-alignment data of the HLT-NAACL 2003 shared task
// (English-French Canadian Hansards) as matching problems (Taskar,
// Lacoste-Julien and Klein 2005; oracles.Matching).
type Hansards struct {
	// Dir is the folder the data was read from.
	Dir string
	// Gold holds the 447 gold-aligned pairs in file order, their IDs the
	// sentence numbers of the gold files.
	Gold []align.Pair
	// TrainGold is the number of gold training pairs: Gold[:TrainGold]
	// (the training set of HansardsGold, and where the Dice threshold of
	// the baseline is chosen); the test pairs are Gold[TrainGold:].
	TrainGold int
	// GoldCopies is the number of leading lines of the unaligned pairs
	// file that repeat the gold pairs (447 in 10k.fr-en.gz) and were left
	// out of the statistics; Unaligned the number of pairs kept.
	GoldCopies, Unaligned int
	// Model holds the statistics and unsupervised aligners of the
	// unaligned pairs (Dice coefficients, IBM Model 1 and the diagonal IBM
	// Model 2 in both directions), from which AlignmentProblem computes the
	// features of any sentence pair; its Baselines are the unsupervised
	// baselines of the matching model.
	Model *align.Model
	// TrainPairs and TestPairs are the sentence pairs of Train and Test
	// (for the HansardsIntersected training set, the pairs with their
	// automatic labels as Sure links, their IDs their lines in the
	// unaligned pairs file).
	TrainPairs, TestPairs []align.Pair
	// Train and Test are the matching problems.
	Train, Test *oracles.Matching
}

// LoadHansards reads the Hansards word-alignment data from the folder
// LocateHansards finds, trains the alignment model on the unaligned pairs
// (align.Train) and builds the training and test problems of
// opt.Training. The leading lines of the unaligned pairs file that repeat
// the gold pairs (in order, ignoring case) are left out of the statistics,
// so that any corpus in these formats can be read, with or without such a
// copy.
func LoadHansards(opt HansardsOptions) (*Hansards, error) {
	opt = opt.withDefaults()
	dir, err := LocateHansards(opt.Path)
	if err != nil {
		return nil, err
	}
	gold, err := readHansardsGold(dir)
	if err != nil {
		return nil, err
	}
	if opt.TrainGold < 1 || opt.TrainGold >= len(gold) {
		return nil, fmt.Errorf("hansards: %d gold training pairs requested, need between 1 and %d (the data has %d gold pairs)", opt.TrainGold, len(gold)-1, len(gold))
	}
	pairsPath := findHansardsPairs(dir)
	if pairsPath == "" {
		return nil, fmt.Errorf("hansards: %s holds no %s (or %s)", dir, HansardsPairs, strings.TrimSuffix(HansardsPairs, ".gz"))
	}
	rc, err := openData("hansards", pairsPath)
	if err != nil {
		return nil, err
	}
	pairs, err := readParallel(rc, pairsPath)
	rc.Close()
	if err != nil {
		return nil, err
	}
	copies := goldPrefix(pairs, gold)
	unaligned := pairs[copies:]
	if len(unaligned) == 0 {
		return nil, fmt.Errorf("hansards: %s holds no sentence pairs beside the %d gold ones", pairsPath, copies)
	}
	model, err := align.Train(unaligned, opt.EMIterations)
	if err != nil {
		return nil, fmt.Errorf("hansards: %w", err)
	}
	h := &Hansards{Dir: dir, Gold: gold, TrainGold: opt.TrainGold, GoldCopies: copies, Unaligned: len(unaligned), Model: model}
	h.TestPairs = gold[opt.TrainGold:]
	switch opt.Training {
	case HansardsGold:
		h.TrainPairs = gold[:opt.TrainGold]
	case HansardsIntersected:
		if opt.Intersected < 1 || opt.Intersected > len(unaligned) {
			return nil, fmt.Errorf("hansards: %d intersected training pairs requested, need between 1 and %d (the unaligned pairs)", opt.Intersected, len(unaligned))
		}
		h.TrainPairs = make([]align.Pair, opt.Intersected)
		for i, p := range unaligned[:opt.Intersected] {
			p.Sure = model.Intersection(p.English, p.French, align.DiagonalIBM2)
			h.TrainPairs[i] = p
		}
	default:
		return nil, fmt.Errorf("hansards: unknown training set %v", opt.Training)
	}
	if h.Train, err = AlignmentProblem(model, h.TrainPairs); err != nil {
		return nil, fmt.Errorf("hansards: training set: %w", err)
	}
	if h.Test, err = AlignmentProblem(model, h.TestPairs); err != nil {
		return nil, fmt.Errorf("hansards: test set: %w", err)
	}
	return h, nil
}

// loadHansardsData is Load's entry for "hansards".
func loadHansardsData(opt Options) (*Hansards, error) {
	if opt.Hansards.Path == "" {
		opt.Hansards.Path = opt.Path
	}
	return LoadHansards(opt.Hansards)
}

// goldPrefix returns the number of leading pairs that repeat the gold pairs
// in order, comparing words without case.
func goldPrefix(pairs, gold []align.Pair) int {
	n := 0
	for n < len(pairs) && n < len(gold) && sameWords(pairs[n].English, gold[n].English) && sameWords(pairs[n].French, gold[n].French) {
		n++
	}
	return n
}

func sameWords(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !strings.EqualFold(a[k], b[k]) {
			return false
		}
	}
	return true
}

// readHansardsGold reads the gold sentences and links of the folder dir
// and checks that they agree: the same sentence numbers in the same order
// in test.e and test.f, links of existing sentences within their lengths,
// each listed once, and at least one link between two words. Links to the
// NULL word (position 0) are dropped: a word without a link is unaligned
// anyway.
func readHansardsGold(dir string) ([]align.Pair, error) {
	pairs, _, err := readHansardsPairs(dir, false)
	return pairs, err
}

// readHansardsPairs is readHansardsGold for a folder whose links file may
// be missing when optional (sentence pairs to predict on): gold tells
// whether it was there. dir may also name one of the files (then its
// folder is read).
func readHansardsPairs(dir string, optional bool) (pairs []align.Pair, gold bool, err error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, false, fmt.Errorf("hansards: %w", err)
	}
	dir = hansardsFolder(dir)
	read := func(name string) ([]snumSentence, error) {
		path := filepath.Join(dir, name)
		rc, err := openData("hansards", path)
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		return readSnumSentences(rc, path)
	}
	en, err := read(HansardsEnglish)
	if err != nil {
		return nil, false, err
	}
	fr, err := read(HansardsFrench)
	if err != nil {
		return nil, false, err
	}
	enPath, frPath := filepath.Join(dir, HansardsEnglish), filepath.Join(dir, HansardsFrench)
	for k := range min(len(en), len(fr)) {
		if en[k].num != fr[k].num {
			return nil, false, fmt.Errorf("hansards: %s:%d: sentence %d, but %s:%d is sentence %d (the two files must list the same sentences in the same order)",
				frPath, fr[k].line, fr[k].num, enPath, en[k].line, en[k].num)
		}
	}
	if len(en) != len(fr) {
		return nil, false, fmt.Errorf("hansards: %s has %d sentences and %s %d", enPath, len(en), frPath, len(fr))
	}
	pairs = make([]align.Pair, len(en))
	index := make(map[int]int, len(en))
	for k := range en {
		pairs[k] = align.Pair{ID: en[k].num, English: en[k].words, French: fr[k].words}
		index[en[k].num] = k
	}
	linksPath := filepath.Join(dir, HansardsLinks)
	if _, err := os.Stat(linksPath); err != nil && optional {
		return pairs, false, nil
	}
	rc, err := openData("hansards", linksPath)
	if err != nil {
		return nil, false, err
	}
	links, err := readWordLinks(rc, linksPath)
	rc.Close()
	if err != nil {
		return nil, false, err
	}
	seen := map[[3]int]int{}
	words := 0 // links between two words (not to NULL)
	for _, l := range links {
		k, ok := index[l.sentence]
		if !ok {
			return nil, false, fmt.Errorf("hansards: %s:%d: sentence %d is not in %s", linksPath, l.line, l.sentence, enPath)
		}
		p := &pairs[k]
		if l.english > len(p.English) || l.french > len(p.French) {
			return nil, false, fmt.Errorf("hansards: %s:%d: link %d-%d outside sentence %d (%d English and %d French words)",
				linksPath, l.line, l.english, l.french, l.sentence, len(p.English), len(p.French))
		}
		key := [3]int{l.sentence, l.english, l.french}
		if prev, dup := seen[key]; dup {
			return nil, false, fmt.Errorf("hansards: %s:%d: link %d-%d of sentence %d repeats line %d", linksPath, l.line, l.english, l.french, l.sentence, prev)
		}
		seen[key] = l.line
		if l.english == 0 || l.french == 0 {
			continue
		}
		words++
		link := [2]int32{int32(l.english - 1), int32(l.french - 1)}
		if l.sure {
			p.Sure = append(p.Sure, link)
		} else {
			p.Possible = append(p.Possible, link)
		}
	}
	// Every gold alignment empty: training would learn to align nothing
	// and score a test loss of 0.
	switch {
	case len(links) == 0:
		return nil, false, fmt.Errorf("hansards: %s: no links: the gold alignments are empty", linksPath)
	case words == 0:
		return nil, false, fmt.Errorf("hansards: %s: its %d links are all to the NULL word: the gold alignments are empty", linksPath, len(links))
	}
	return pairs, true, nil
}

// hansardsFolder returns path when it is a folder, else its folder (the
// folder of one of the files).
func hansardsFolder(path string) string {
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		return filepath.Dir(path)
	}
	return path
}

// findHansardsPairs returns the unaligned pairs file of dir, compressed or
// not, or "".
func findHansardsPairs(dir string) string {
	for _, name := range []string{HansardsPairs, strings.TrimSuffix(HansardsPairs, ".gz")} {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// isHansardsDir reports whether dir holds the gold files.
func isHansardsDir(dir string) bool {
	for _, name := range []string{HansardsEnglish, HansardsFrench, HansardsLinks} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || !fi.Mode().IsRegular() {
			return false
		}
	}
	return true
}

// LocateHansards returns the folder holding the Hansards word-alignment
// data: test.e, test.f, test.wa.nonullalign and 10k.fr-en[.gz]. An
// explicit path is the only place looked at: that folder, a data root
// holding hansards/, or one of the files (then its folder). Without one,
// it looks in $FWSTRUCT_DATA/hansards, then in the user cache
// (CacheDir()/hansards). The data cannot be downloaded by fwstruct: the
// error of a search that finds nothing says where to put it.
func LocateHansards(explicit string) (string, error) {
	find := func(dir string) (string, bool) {
		for _, d := range []string{dir, filepath.Join(dir, "hansards")} {
			if isHansardsDir(d) {
				return d, true
			}
		}
		return "", false
	}
	if explicit != "" {
		fi, err := os.Stat(explicit)
		if err != nil {
			return "", fmt.Errorf("hansards: %w", err)
		}
		dir := explicit
		if !fi.IsDir() {
			dir = filepath.Dir(explicit)
		}
		if d, ok := find(dir); ok {
			return d, nil
		}
		return "", fmt.Errorf("hansards: %s holds neither %s, %s and %s nor hansards/", explicit, HansardsEnglish, HansardsFrench, HansardsLinks)
	}
	var tried []string
	if env := os.Getenv(EnvVar); env != "" {
		if !isDir(env) {
			return "", fmt.Errorf("$%s is %s, which is not a folder; set it to the folder holding the datasets or unset it", EnvVar, env)
		}
		if d, ok := find(env); ok {
			return d, nil
		}
		tried = append(tried, env+" ($"+EnvVar+")")
	} else {
		tried = append(tried, "$"+EnvVar+" (not set)")
	}
	cache, err := CacheDir()
	if err == nil {
		if d, ok := find(cache); ok {
			return d, nil
		}
		tried = append(tried, cache+" (user cache)")
	}
	where := "$" + EnvVar + "/hansards"
	if cache != "" {
		where += " or " + filepath.Join(cache, "hansards")
	}
	return "", fmt.Errorf("hansards: dataset %w (tried %s); fwstruct cannot download it: put the English-French data of the HLT-NAACL 2003 word-alignment shared task "+
		"(%s, %s, %s and the unaligned pairs as %s, \"french ||| english\" a line) in %s", ErrNotFound, strings.Join(tried, ", "),
		HansardsEnglish, HansardsFrench, HansardsLinks, HansardsPairs, where)
}
