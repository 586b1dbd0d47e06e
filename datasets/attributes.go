package datasets

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/fwstruct/fwstruct/oracles"
)

// TemplateItem is one part of an attribute template: input column Column
// (0-based, in the order of ColumnFormat.Inputs) of the token at offset
// Offset from the current one.
type TemplateItem struct {
	Column, Offset int
}

// Template is an attribute template of CRFsuite (Okazaki 2007): the
// conjunction of the values of some input columns at offsets from the
// current token. At a token where one of its offsets falls outside the
// sentence the template gives no attribute, as CRFsuite's template.apply
// does (no padding symbol).
type Template []TemplateItem

// ChunkingTemplates are the 19 attribute templates of CRFsuite's chunking
// example (example/chunking.py of chokkan/crfsuite), which Osokin et al.
// (2016, App. I.2) use for CoNLL-2000 after Sha & Pereira (2003), over the
// inputs w (column 0, the word) and pos (column 1, the part-of-speech tag):
//
//	w[-2], w[-1], w[0], w[1], w[2], w[-1]|w[0], w[0]|w[1],
//	pos[-2], pos[-1], pos[0], pos[1], pos[2],
//	pos[-2]|pos[-1], pos[-1]|pos[0], pos[0]|pos[1], pos[1]|pos[2],
//	pos[-2]|pos[-1]|pos[0], pos[-1]|pos[0]|pos[1], pos[0]|pos[1]|pos[2].
//
// The example also gives the first token the attribute __BOS__ and the last
// one __EOS__ (see AttributeConfig.NoBoundary).
var ChunkingTemplates = []Template{
	{{0, -2}}, {{0, -1}}, {{0, 0}}, {{0, 1}}, {{0, 2}},
	{{0, -1}, {0, 0}}, {{0, 0}, {0, 1}},
	{{1, -2}}, {{1, -1}}, {{1, 0}}, {{1, 1}}, {{1, 2}},
	{{1, -2}, {1, -1}}, {{1, -1}, {1, 0}}, {{1, 0}, {1, 1}}, {{1, 1}, {1, 2}},
	{{1, -2}, {1, -1}, {1, 0}}, {{1, -1}, {1, 0}, {1, 1}}, {{1, 0}, {1, 1}, {1, 2}},
}

// DefaultMinCount is the number of training occurrences an attribute needs
// to enter the CoNLL dictionary by default. CRFsuite's example keeps every
// attribute (335,674 on CoNLL-2000, d = 7.4M); the preprocessed CoNLL data
// of Osokin et al. (2016) has 74,658 unary features (d = 1,643,026), close
// to the 75,289 attributes seen at least 3 times, the cutoff used by the
// CRFsuite-based reproduction of the same group (sdca4crf, Le Priol et al.).
const DefaultMinCount = 3

// AttributeConfig configures BuildDictionary.
type AttributeConfig struct {
	// Templates are the attribute templates; nil means ChunkingTemplates.
	Templates []Template
	// NoBoundary leaves out the __BOS__ and __EOS__ attributes of the
	// first and last tokens.
	NoBoundary bool
	// MinCount drops the attributes seen fewer times in the training
	// sentences; 0 and 1 keep every attribute.
	MinCount int
}

// Dictionary numbers the attributes of a training set: feature f of a token
// is the f-th attribute kept (in order of first appearance in the training
// sentences). Attributes of other sentences that are not in the dictionary
// (unseen in training, or rarer than MinCount) are dropped: they get no
// feature, so a test sentence's tokens may have fewer features than a
// training sentence's. A Dictionary is read-only after BuildDictionary and
// safe for concurrent use.
type Dictionary struct {
	templates []Template
	boundary  bool
	vocab     []map[string]int32 // per input column: value -> id
	values    [][]string         // per input column: id -> value
	index     map[string]int32   // attribute key -> feature
	keys      []string           // feature -> attribute key
	counts    []int32            // feature -> training occurrences
	seen      int                // distinct attributes of the training set
}

// The two boundary attributes get the template numbers after the last
// template.
const (
	bosName = "__BOS__"
	eosName = "__EOS__"
)

// attributeColumn is the name of input column c in attribute names: w and pos as
// in CRFsuite's example, then x2, x3, ...
func attributeColumn(c int) string {
	switch c {
	case 0:
		return "w"
	case 1:
		return "pos"
	}
	return fmt.Sprintf("x%d", c)
}

// BuildDictionary collects the attributes of the training sentences and
// keeps those seen at least cfg.MinCount times. It returns an error when a
// template is empty, has more than 255 items, or names an input column that
// a sentence does not have.
func BuildDictionary(train []Sentence, cfg AttributeConfig) (*Dictionary, error) {
	d := &Dictionary{templates: cfg.Templates, boundary: !cfg.NoBoundary}
	if d.templates == nil {
		d.templates = ChunkingTemplates
	}
	cols, err := templateColumns(d.templates)
	if err != nil {
		return nil, err
	}
	if err := checkColumns(train, cols); err != nil {
		return nil, err
	}
	d.vocab = make([]map[string]int32, cols)
	d.values = make([][]string, cols)
	for c := range d.vocab {
		d.vocab[c] = make(map[string]int32)
	}
	// Number every attribute of the training tokens, then keep the
	// frequent ones in the same order.
	tokens := 0
	for k := range train {
		tokens += len(train[k].Tags)
	}
	var (
		// About one distinct attribute in 12 occurrences on CoNLL-2000.
		all    = make(map[string]int32, tokens*(len(d.templates)+2)/12)
		keys   []string
		counts []int32
		e      extractor
	)
	for k := range train {
		s := &train[k]
		e.ids(d, s, true)
		for t := range s.Tags {
			attrs, _ := e.keys(t)
			for _, key := range attrs {
				id, ok := all[string(key)]
				if !ok {
					id = int32(len(keys))
					keys = append(keys, string(key))
					all[keys[id]] = id
					counts = append(counts, 0)
				}
				counts[id]++
			}
		}
	}
	d.seen = len(keys)
	d.index = make(map[string]int32)
	for id, key := range keys {
		if int(counts[id]) >= cfg.MinCount {
			d.index[key] = int32(len(d.keys))
			d.keys = append(d.keys, key)
			d.counts = append(d.counts, counts[id])
		}
	}
	return d, nil
}

// templateColumns checks attribute templates (each of 1 to 255 items over
// non-negative columns, fewer than 2^16-2 of them) and returns the number
// of input columns they read.
func templateColumns(templates []Template) (int, error) {
	cols := 0
	for k, t := range templates {
		if len(t) == 0 || len(t) > 255 {
			return 0, fmt.Errorf("attribute template %d has %d items, want 1..255", k, len(t))
		}
		for _, it := range t {
			if it.Column < 0 {
				return 0, fmt.Errorf("attribute template %d: negative column %d", k, it.Column)
			}
			cols = max(cols, it.Column+1)
		}
	}
	if len(templates)+2 > 1<<16 {
		return 0, fmt.Errorf("%d attribute templates, want fewer than %d", len(templates), 1<<16-2)
	}
	return cols, nil
}

// checkColumns reports a sentence with fewer than cols input columns.
func checkColumns(sents []Sentence, cols int) error {
	for k := range sents {
		if n := len(sents[k].Fields); n < cols {
			return fmt.Errorf("sentence %d (line %d) has %d input columns, but the attribute templates use %d", k, sents[k].Line, n, cols)
		}
	}
	return nil
}

// Len returns the number of features (attributes kept).
func (d *Dictionary) Len() int { return len(d.keys) }

// Seen returns the number of distinct attributes of the training
// sentences, before the MinCount cutoff.
func (d *Dictionary) Seen() int { return d.seen }

// Count returns the number of occurrences of feature f in the training
// sentences.
func (d *Dictionary) Count(f int) int { return int(d.counts[f]) }

// Name returns the attribute of feature f as CRFsuite writes it, e.g.
// "w[-1]|w[0]=He|reckons", "pos[0]=NN" or "__BOS__".
func (d *Dictionary) Name(f int) string {
	key := d.keys[f]
	tpl := int(binary.LittleEndian.Uint16([]byte(key)))
	switch tpl {
	case len(d.templates):
		return bosName
	case len(d.templates) + 1:
		return eosName
	}
	t := d.templates[tpl]
	var name, vals strings.Builder
	for k, it := range t {
		if k > 0 {
			name.WriteByte('|')
			vals.WriteByte('|')
		}
		fmt.Fprintf(&name, "%s[%d]", attributeColumn(it.Column), it.Offset)
		id := binary.LittleEndian.Uint32([]byte(key[2+4*k:]))
		vals.WriteString(d.values[it.Column][id])
	}
	return name.String() + "=" + vals.String()
}

// Vectors returns the binary feature vectors of the tokens of s, one per
// token with the indices of its attributes in the dictionary, and the number
// of attribute occurrences dropped because the dictionary does not hold
// them. The vectors share one backing array.
func (d *Dictionary) Vectors(s *Sentence) ([]oracles.SparseVec, int, error) {
	return d.vectors(new(extractor), s)
}

// vectors is Vectors with the scratch e.
func (d *Dictionary) vectors(e *extractor, s *Sentence) ([]oracles.SparseVec, int, error) {
	if len(s.Fields) < len(d.vocab) {
		return nil, 0, fmt.Errorf("line %d: a sentence of %d input columns, but the attribute templates use %d", s.Line, len(s.Fields), len(d.vocab))
	}
	e.ids(d, s, false)
	T := len(s.Tags)
	vecs := make([]oracles.SparseVec, T)
	var idx []int32
	dropped := 0
	for t := 0; t < T; t++ {
		lo := len(idx)
		attrs, unknown := e.keys(t)
		dropped += unknown
		for _, key := range attrs {
			if f, ok := d.index[string(key)]; ok {
				idx = append(idx, f)
			} else {
				dropped++
			}
		}
		vecs[t].Idx = idx[lo:len(idx):len(idx)]
	}
	ones := make([]float64, 0, len(d.templates)+2)
	for t := range vecs {
		n := len(vecs[t].Idx)
		for len(ones) < n {
			ones = append(ones, 1)
		}
		vecs[t].Val = ones[:n:n]
	}
	return vecs, dropped, nil
}

// extractor computes attribute keys. A key is the template number (2 bytes)
// then the vocabulary id of each of the template's values (4 bytes each);
// values missing from the vocabulary make the attribute unknown.
type extractor struct {
	d      *Dictionary
	s      *Sentence
	vals   [][]int32 // vals[c][t]: vocabulary id of column c at token t, -1 if unknown
	buf    []byte
	starts []int // start of each key in buf
	out    [][]byte
}

// ids maps the sentence's values to vocabulary ids, adding new values when
// grow is set (training).
func (e *extractor) ids(d *Dictionary, s *Sentence, grow bool) {
	e.d, e.s = d, s
	if len(e.vals) < len(d.vocab) {
		e.vals = make([][]int32, len(d.vocab))
	}
	for c, voc := range d.vocab {
		e.vals[c] = e.vals[c][:0]
		for _, v := range s.Fields[c] {
			id, ok := voc[v]
			if !ok {
				id = -1
				if grow {
					id = int32(len(d.values[c]))
					voc[v] = id
					d.values[c] = append(d.values[c], v)
				}
			}
			e.vals[c] = append(e.vals[c], id)
		}
	}
}

// keys returns the keys of the attributes of token t, valid until the next
// call, and the number of attributes left out because one of their values
// is not in the vocabulary.
func (e *extractor) keys(t int) (keys [][]byte, unknown int) {
	T := len(e.s.Tags)
	e.buf, e.out, e.starts = e.buf[:0], e.out[:0], e.starts[:0]
	add := func(tpl int) { // begins a key
		e.starts = append(e.starts, len(e.buf))
		e.buf = binary.LittleEndian.AppendUint16(e.buf, uint16(tpl))
	}
next:
	for k, tpl := range e.d.templates {
		known := true
		for _, it := range tpl {
			p := t + it.Offset
			if p < 0 || p >= T {
				continue next
			}
			known = known && e.vals[it.Column][p] >= 0
		}
		if !known {
			unknown++
			continue
		}
		add(k)
		for _, it := range tpl {
			e.buf = binary.LittleEndian.AppendUint32(e.buf, uint32(e.vals[it.Column][t+it.Offset]))
		}
	}
	if e.d.boundary {
		if t == 0 {
			add(len(e.d.templates))
		}
		if t == T-1 {
			add(len(e.d.templates) + 1)
		}
	}
	for k, lo := range e.starts {
		hi := len(e.buf)
		if k+1 < len(e.starts) {
			hi = e.starts[k+1]
		}
		e.out = append(e.out, e.buf[lo:hi])
	}
	return e.out, unknown
}
