package datasets

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/fwstruct/fwstruct/oracles"
)

// Geometry of the OCR letters: 16 x 8 binary images, 26 labels a..z.
const (
	LetterRows    = 16                          // image height
	LetterCols    = 8                           // image width
	LetterPixels  = LetterRows * LetterCols     // 128 pixels, row-major
	NumLetters    = 26                          // labels 0..25 for a..z
	letterHeader  = 6                           // id letter next_id word_id position fold
	letterNFields = letterHeader + LetterPixels // 134 fields a line
)

// Word is one word of the OCR dataset: a sequence of handwritten letters.
type Word struct {
	// ID is the word_id of the letter.data file (or a running number for
	// generated words).
	ID int
	// Fold is the cross-validation fold of the word (0..9 in the real data).
	Fold int
	// Letters holds the label of each letter, 0..25 for a..z.
	Letters []int32
	// Pixels holds one image per letter: LetterPixels (128) values 0 or 1,
	// row-major over 16 rows and 8 columns.
	Pixels [][]uint8
}

// String returns the word spelled in lowercase letters; labels out of range
// are shown as '?'.
func (w Word) String() string {
	b := make([]byte, len(w.Letters))
	for k, l := range w.Letters {
		if l >= 0 && l < NumLetters {
			b[k] = byte('a' + l)
		} else {
			b[k] = '?'
		}
	}
	return string(b)
}

// letterRecord is one parsed line of letter.data.
type letterRecord struct {
	id, next, word, pos, fold int
	letter                    int32
	line                      int
}

// ReadLetterData parses the OCR dataset of Taskar et al. (2003) in the
// letter.data format: one letter a line, tab-separated fields
//
//	id letter next_id word_id position fold p_0_0 ... p_15_7
//
// with the 128 pixels 0/1 row-major over 16 rows and 8 columns. A trailing tab
// (or other trailing white space, including a carriage return) and blank
// lines are accepted. Letters are grouped into words by word_id and ordered by
// position; the next_id fields must chain the letters of a word (each points
// to the id of the following letter, -1 on the last one), positions must
// count 1, 2, ... and all letters of a word must share its fold. Words are
// returned in the order of their first letter in the input.
//
// name is used in error messages, which have the form "ocr: name:N: ..."
// (N the line), as those of every reader of this package.
func ReadLetterData(r io.Reader, name string) ([]Word, error) {
	lr := newLineReader(r, "ocr", name, 1<<20)
	var (
		recs   []letterRecord
		pixels []uint8
		ids    = make(map[int]int) // id -> line
	)
	for {
		b, ok := lr.next()
		if !ok {
			break
		}
		b = bytes.TrimRight(b, " \t\r")
		if len(b) == 0 {
			continue
		}
		rec, err := parseLetterLine(b, lr.line, &pixels)
		if err != nil {
			return nil, lr.errorf("%w", err)
		}
		if prev, dup := ids[rec.id]; dup {
			return nil, lr.errorf("id %d already used on line %d", rec.id, prev)
		}
		ids[rec.id] = lr.line
		recs = append(recs, rec)
	}
	if err := lr.err(); err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, lr.fileErrorf("no letters")
	}
	return groupLetters(recs, pixels, lr)
}

// parseLetterLine parses one non-blank line and appends its pixels.
func parseLetterLine(b []byte, line int, pixels *[]uint8) (letterRecord, error) {
	rec := letterRecord{line: line}
	var head [letterHeader][]byte
	start := len(*pixels)
	field := 0
	for len(b) > 0 || field == 0 {
		// Fast path for the usual one-character pixel field.
		if field >= letterHeader && field < letterNFields && (b[0] == '0' || b[0] == '1') && (len(b) == 1 || b[1] == '\t') {
			*pixels = append(*pixels, b[0]-'0')
			b = b[min(2, len(b)):]
			field++
			continue
		}
		var f []byte
		if k := bytes.IndexByte(b, '\t'); k >= 0 {
			f, b = b[:k], b[k+1:]
		} else {
			f, b = b, nil
		}
		switch {
		case field < letterHeader:
			head[field] = f
		case field < letterNFields:
			p := field - letterHeader
			if len(f) != 1 || (f[0] != '0' && f[0] != '1') {
				*pixels = (*pixels)[:start]
				return rec, fmt.Errorf("pixel p_%d_%d (field %d) is %s, want 0 or 1", p/LetterCols, p%LetterCols, field+1, quote(f))
			}
			*pixels = append(*pixels, f[0]-'0')
		}
		field++
	}
	if field != letterNFields {
		*pixels = (*pixels)[:start]
		return rec, fmt.Errorf("%d fields, want %d (id letter next_id word_id position fold and %d pixels)", field, letterNFields, LetterPixels)
	}
	var err error
	ints := []struct {
		dst  *int
		name string
		min  int
	}{{&rec.id, "id", 0}, {&rec.next, "next_id", -1}, {&rec.word, "word_id", 0}, {&rec.pos, "position", 1}, {&rec.fold, "fold", 0}}
	for k, fi := range ints {
		idx := k
		if k > 0 {
			idx++ // skip the letter field
		}
		if *fi.dst, err = parseInt(head[idx]); err != nil {
			*pixels = (*pixels)[:start]
			return rec, fmt.Errorf("%s (field %d) %s is not an integer", fi.name, idx+1, quote(head[idx]))
		}
		if *fi.dst < fi.min {
			*pixels = (*pixels)[:start]
			return rec, fmt.Errorf("%s (field %d) is %d, want >= %d", fi.name, idx+1, *fi.dst, fi.min)
		}
	}
	if l := head[1]; len(l) != 1 || l[0] < 'a' || l[0] > 'z' {
		*pixels = (*pixels)[:start]
		return rec, fmt.Errorf("letter (field 2) is %s, want one of a..z", quote(l))
	}
	rec.letter = int32(head[1][0] - 'a')
	return rec, nil
}

var errNotInt = errors.New("not an integer")

// parseInt parses a decimal integer with an optional sign, without
// allocating. It rejects more than 18 digits, so it cannot overflow.
func parseInt(b []byte) (int, error) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, errNotInt
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, errNotInt
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, nil
}

// groupLetters assembles the records into words and checks their chains.
// A word's letters are ordered by the chain of next_id from its letter at
// position 1, and every error names the line that breaks it: a letter whose
// position is not its place on the chain, a next_id that leaves the word or
// loops, letters the chain never reaches, a fold unlike the word's other
// letters'.
func groupLetters(recs []letterRecord, pixels []uint8, lr *lineReader) ([]Word, error) {
	var (
		order  []int             // word ids in order of first appearance
		byWord = map[int][]int{} // word id -> record indices
		byID   = make(map[int]int, len(recs))
	)
	for k, r := range recs {
		if _, ok := byWord[r.word]; !ok {
			order = append(order, r.word)
		}
		byWord[r.word] = append(byWord[r.word], k)
		byID[r.id] = k // ids are distinct (ReadLetterData)
	}
	words := make([]Word, len(order))
	for wi, id := range order {
		idx := byWord[id]
		fold, err := wordFold(recs, idx, lr)
		if err != nil {
			return nil, err
		}
		chain, err := wordChain(recs, idx, byID, lr)
		if err != nil {
			return nil, err
		}
		w := Word{ID: id, Fold: fold, Letters: make([]int32, len(chain)), Pixels: make([][]uint8, len(chain))}
		for t, k := range chain {
			w.Letters[t] = recs[k].letter
			w.Pixels[t] = pixels[k*LetterPixels : (k+1)*LetterPixels : (k+1)*LetterPixels]
		}
		words[wi] = w
	}
	return words, nil
}

// wordFold returns the fold of a word's letters (records idx), refusing a
// letter whose fold differs from that of most of them (of the first, on a
// tie).
func wordFold(recs []letterRecord, idx []int, lr *lineReader) (int, error) {
	count := map[int]int{}
	for _, k := range idx {
		count[recs[k].fold]++
	}
	fold := recs[idx[0]].fold
	for f, c := range count {
		if c > count[fold] {
			fold = f
		}
	}
	for _, k := range idx {
		if r := &recs[k]; r.fold != fold {
			other := idx[0]
			for _, j := range idx {
				if recs[j].fold == fold {
					other = j
					break
				}
			}
			return 0, lr.errorAt(r.line, "word %d: fold %d, but its other letters have fold %d (line %d)", r.word, r.fold, fold, recs[other].line)
		}
	}
	return fold, nil
}

// wordChain returns a word's records (idx) in the order of the chain of
// next_id from its letter at position 1, checking that the chain visits
// each of them once, at its position, and ends with next_id -1.
func wordChain(recs []letterRecord, idx []int, byID map[int]int, lr *lineReader) ([]int, error) {
	id := recs[idx[0]].word
	first := -1
	for _, k := range idx {
		if recs[k].pos == 1 {
			if first >= 0 {
				return nil, lr.errorAt(recs[k].line, "word %d: a second letter at position 1 (the first is on line %d)", id, recs[first].line)
			}
			first = k
		}
	}
	if first < 0 {
		return nil, lr.errorAt(recs[idx[0]].line, "word %d: no letter at position 1", id)
	}
	chain := make([]int, 0, len(idx))
	on := map[int]bool{}
	for k := first; ; {
		chain = append(chain, k)
		on[k] = true
		r := &recs[k]
		if r.next == -1 {
			break
		}
		nk, ok := byID[r.next]
		switch {
		case !ok:
			return nil, lr.errorAt(r.line, "word %d: next_id %d is the id of no letter (broken chain)", id, r.next)
		case recs[nk].word != id:
			return nil, lr.errorAt(r.line, "word %d: next_id %d is the letter on line %d, of word %d (broken chain)", id, r.next, recs[nk].line, recs[nk].word)
		case on[nk]:
			return nil, lr.errorAt(r.line, "word %d: next_id %d points back to position %d (line %d): the chain loops", id, r.next, recs[nk].pos, recs[nk].line)
		case recs[nk].pos != len(chain)+1:
			return nil, lr.errorAt(recs[nk].line, "word %d: position %d, want %d: the letter follows id %d (line %d) by next_id", id, recs[nk].pos, len(chain)+1, r.id, r.line)
		}
		k = nk
	}
	if len(chain) < len(idx) {
		for _, k := range idx { // idx is in file order: the first letter left out
			if !on[k] {
				last := &recs[chain[len(chain)-1]]
				return nil, lr.errorAt(last.line, "word %d: next_id -1 ends the word after %d letters, but the letter on line %d (position %d) belongs to it too", id, len(chain), recs[k].line, recs[k].pos)
			}
		}
	}
	return chain, nil
}

// ReadLetterFile reads an OCR letter.data file, plain or gzip-compressed
// (detected by the gzip magic bytes), with ReadLetterData.
func ReadLetterFile(path string) ([]Word, error) {
	rc, err := openData("ocr", path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return ReadLetterData(rc, path)
}

// Split selects one of the two standard train/test splits of the OCR data
// (Lacoste-Julien et al. 2013; Osokin et al. 2016, App. I.1). The zero value
// is SplitSmall.
type Split int

const (
	// SplitSmall trains on fold 0 (626 words) and tests on folds 1-9
	// (6,251 words): the OCR experiments of Lacoste-Julien et al. (2013).
	SplitSmall Split = iota
	// SplitLarge trains on folds 1-9 (6,251 words) and tests on fold 0
	// (626 words).
	SplitLarge
)

// String returns "small" or "large".
func (s Split) String() string {
	switch s {
	case SplitSmall:
		return "small"
	case SplitLarge:
		return "large"
	}
	return fmt.Sprintf("Split(%d)", int(s))
}

// ParseSplit parses "small" or "large" (the String forms).
func ParseSplit(s string) (Split, error) {
	switch s {
	case "small":
		return SplitSmall, nil
	case "large":
		return SplitLarge, nil
	}
	return 0, fmt.Errorf("unknown OCR split %q (want small or large)", s)
}

func (s Split) valid() bool { return s == SplitSmall || s == SplitLarge }

// SplitWords partitions words by fold according to split, keeping their
// order. Words of fold 0 go to train for SplitSmall and to test for
// SplitLarge. An unknown split returns nil, nil.
func SplitWords(words []Word, split Split) (train, test []Word) {
	if !split.valid() {
		return nil, nil
	}
	for _, w := range words {
		if (w.Fold == 0) == (split == SplitSmall) {
			train = append(train, w)
		} else {
			test = append(test, w)
		}
	}
	return train, test
}

// OCRChain builds the chain problem of the OCR task: K = 26 labels and F = 128
// binary features per letter, the feature vector of a letter being the
// indices of its 1-pixels with value 1. Its dimension is
// 128*26 + 26*26 + 3*26 = 4,082. It returns an error for empty words, labels
// outside 0..25 and images that do not have 128 pixels of value 0 or 1.
func OCRChain(words []Word) (*oracles.Chain, error) {
	seqs := make([]oracles.Sequence, len(words))
	total := 0
	for _, w := range words {
		total += len(w.Letters)
	}
	// One slab for every feature vector keeps the allocations few; the
	// values are all 1 and share one read-only array.
	idx := make([]int32, 0, total*LetterPixels/4)
	ones := make([]float64, LetterPixels)
	for k := range ones {
		ones[k] = 1
	}
	for i, w := range words {
		if len(w.Letters) == 0 {
			return nil, fmt.Errorf("OCR chain: word %d (id %d) is empty", i, w.ID)
		}
		if len(w.Pixels) != len(w.Letters) {
			return nil, fmt.Errorf("OCR chain: word %d (id %d) has %d letters but %d images", i, w.ID, len(w.Letters), len(w.Pixels))
		}
		feats := make([]oracles.SparseVec, len(w.Letters))
		for t, img := range w.Pixels {
			if l := w.Letters[t]; l < 0 || l >= NumLetters {
				return nil, fmt.Errorf("OCR chain: word %d (id %d) letter %d: label %d outside 0..%d", i, w.ID, t, l, NumLetters-1)
			}
			if len(img) != LetterPixels {
				return nil, fmt.Errorf("OCR chain: word %d (id %d) letter %d: %d pixels, want %d", i, w.ID, t, len(img), LetterPixels)
			}
			lo := len(idx)
			for p, v := range img {
				switch v {
				case 0:
				case 1:
					idx = append(idx, int32(p))
				default:
					return nil, fmt.Errorf("OCR chain: word %d (id %d) letter %d: pixel %d is %d, want 0 or 1", i, w.ID, t, p, v)
				}
			}
			// Clip the capacities so that later appends to the slab never
			// write into this vector.
			n := len(idx) - lo
			feats[t] = oracles.SparseVec{Idx: idx[lo:len(idx):len(idx)], Val: ones[:n:n]}
		}
		seqs[i] = oracles.Sequence{Features: feats, Labels: w.Letters}
	}
	c, err := oracles.NewChain(NumLetters, LetterPixels, seqs)
	if err != nil {
		return nil, fmt.Errorf("OCR chain: %w", err)
	}
	return c, nil
}

// LoadOCR reads the OCR letters and returns the training and test chain
// problems of split. path is the letter.data file (plain or gzip, of any
// name), or a directory holding it: a data root with ocr/letter.data[.gz] or
// the ocr folder itself (see Dataset.Paths). Nothing else is searched: a path
// that does not hold the data is an error naming it. A split whose training
// or test part has no word is an error.
func LoadOCR(path string, split Split) (train, test *oracles.Chain, err error) {
	if !split.valid() {
		return nil, nil, fmt.Errorf("ocr: unknown split %v", split)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		paths, err := OCR.Paths(path)
		if err != nil {
			return nil, nil, err
		}
		path = paths[0]
	}
	words, err := ReadLetterFile(path)
	if err != nil {
		return nil, nil, err
	}
	trw, tew := SplitWords(words, split)
	for _, part := range []struct {
		words []Word
		dst   **oracles.Chain
		name  string
	}{{trw, &train, "training"}, {tew, &test, "test"}} {
		if len(part.words) == 0 {
			return nil, nil, fmt.Errorf("ocr: %s: the %v split has no %s word (%s)", path, split, part.name, splitFolds(split, part.name == "training"))
		}
		if *part.dst, err = OCRChain(part.words); err != nil {
			return nil, nil, fmt.Errorf("ocr: %s (%s words of the %v split): %w", path, part.name, split, err)
		}
	}
	return train, test, nil
}

// splitFolds describes the folds of the training or test part of split.
func splitFolds(split Split, training bool) string {
	if training == (split == SplitSmall) {
		return "fold 0"
	}
	return "folds 1-9"
}
