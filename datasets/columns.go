package datasets

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"slices"
)

// ColumnFormat describes a column-format corpus such as CoNLL-2000 chunking
// (`word POS chunk-tag`) or CoNLL-2003 named entities (`word POS chunk
// entity-tag`): one token a line, its fields separated by white space, a
// blank line between sentences. The zero value reads any number of columns
// (the same on every line) with the tag in the last one and every other
// column as an input.
type ColumnFormat struct {
	// Columns is the number of fields of every token line; 0 takes it from
	// the first token line.
	Columns int
	// Tag is the column holding the tag, counted from 1 as in the corpora's
	// descriptions; 0 means the last column.
	Tag int
	// Inputs lists the columns (counted from 1) kept as the token's inputs,
	// in that order; nil means every column but the tag, in file order.
	Inputs []int
	// Sep is the field separator; 0 means any run of white space (space,
	// tab, carriage return, vertical tab, form feed). With a single-byte
	// separator such as '\t', fields may contain spaces, and an empty
	// field is an error.
	Sep byte
}

// Sentence is one sentence of a column-format corpus.
type Sentence struct {
	// Fields[c][t] is input column c (in the order of ColumnFormat.Inputs)
	// of token t: for CoNLL-2000, Fields[0] holds the words and Fields[1]
	// the part-of-speech tags.
	Fields [][]string
	// Tags[t] is the gold tag of token t.
	Tags []string
	// Line is the line number of the sentence's first token in its file.
	Line int
}

// Len returns the number of tokens.
func (s *Sentence) Len() int { return len(s.Tags) }

// docStart is the first field of the document separators of the CoNLL-2003
// files, which are not tokens.
const docStart = "-DOCSTART-"

// maxLineBytes bounds the length of a line.
const maxLineBytes = 1 << 20

// ReadColumns parses a column-format corpus (see ColumnFormat). Lines are
// split into fields by f.Sep; a line that is blank (only white space) ends
// the current sentence, as does a document separator, a line whose first
// field is -DOCSTART- (CoNLL-2003). Carriage returns before the newline are
// ignored and the last sentence needs no blank line after it. Every token
// line must have the same number of fields, a non-empty tag and non-empty
// inputs.
//
// name is used in error messages, which have the form
// "conll: name:line: ...". A gzip stream that ends early is reported as
// truncated. Strings are interned: every occurrence of a word shares one
// string.
func ReadColumns(r io.Reader, name string, f ColumnFormat) ([]Sentence, error) {
	return readColumns(r, name, f, false)
}

// readColumns is ReadColumns; with noTag, the lines hold no tag column
// (data to predict on): f.Tag is ignored, the inputs are f.Inputs or every
// column, and every token's tag is "".
func readColumns(r io.Reader, name string, f ColumnFormat, noTag bool) ([]Sentence, error) {
	if noTag {
		f.Tag = 0
	}
	p, err := newColumnParser(f)
	if err != nil {
		return nil, fmt.Errorf("conll: %s: %w", name, err)
	}
	p.noTag = noTag
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), maxLineBytes)
	line := 0
	for sc.Scan() {
		line++
		if err := p.line(sc.Bytes(), line); err != nil {
			return nil, fmt.Errorf("conll: %s:%d: %w", name, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("conll: %s:%d: %w", name, line+1, readError(err))
	}
	p.end()
	if len(p.out) == 0 {
		return nil, fmt.Errorf("conll: %s: no sentences", name)
	}
	return p.out, nil
}

// readError names the usual ways a file read fails.
func readError(err error) error {
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("truncated input (the compressed stream ends early): %w", err)
	case errors.Is(err, gzip.ErrChecksum), errors.Is(err, gzip.ErrHeader):
		return fmt.Errorf("corrupt gzip data: %w", err)
	case errors.Is(err, bufio.ErrTooLong):
		return fmt.Errorf("line longer than %d bytes: %w", maxLineBytes, err)
	}
	return err
}

// ReadColumnFile reads a column-format file, plain or gzip-compressed
// (detected by the gzip magic bytes), with ReadColumns.
func ReadColumnFile(path string, f ColumnFormat) ([]Sentence, error) {
	rc, err := openData("conll", path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return ReadColumns(rc, path, f)
}

// columnParser accumulates sentences line by line.
type columnParser struct {
	f       ColumnFormat
	columns int   // fields per token line once known
	first   int   // line that fixed columns
	inputs  []int // 0-based input columns, once columns is known
	tag     int   // 0-based tag column, once columns is known; -1 with noTag
	noTag   bool  // the lines hold no tag (readColumns)
	fields  [][]byte
	strs    map[string]string // interned strings
	cur     Sentence
	out     []Sentence
}

func newColumnParser(f ColumnFormat) (*columnParser, error) {
	if f.Columns < 0 || f.Tag < 0 || (f.Columns > 0 && f.Tag > f.Columns) {
		return nil, fmt.Errorf("bad format: %d columns with the tag in column %d", f.Columns, f.Tag)
	}
	if f.Sep == '\n' || f.Sep == '\r' {
		return nil, fmt.Errorf("bad format: separator %q", f.Sep)
	}
	for _, c := range f.Inputs {
		if c < 1 || (f.Columns > 0 && c > f.Columns) {
			return nil, fmt.Errorf("bad format: input column %d outside 1..%d", c, f.Columns)
		}
	}
	return &columnParser{f: f, strs: make(map[string]string)}, nil
}

// setColumns fixes the layout once the number of columns is known.
func (p *columnParser) setColumns(n, line int) error {
	p.columns, p.first = n, line
	p.tag = n - 1
	switch {
	case p.noTag:
		p.tag = -1
	case p.f.Tag > 0:
		p.tag = p.f.Tag - 1
	}
	if p.tag >= n {
		return fmt.Errorf("%d fields, but the tag is in column %d", n, p.tag+1)
	}
	if p.f.Inputs != nil {
		p.inputs = make([]int, len(p.f.Inputs))
		for k, c := range p.f.Inputs {
			if c > n {
				return fmt.Errorf("%d fields, but input column %d is asked for", n, c)
			}
			p.inputs[k] = c - 1
		}
		return nil
	}
	for c := 0; c < n; c++ {
		if c != p.tag {
			p.inputs = append(p.inputs, c)
		}
	}
	return nil
}

// split cuts b into fields, reusing p.fields.
func (p *columnParser) split(b []byte) [][]byte {
	p.fields = p.fields[:0]
	if p.f.Sep != 0 {
		for {
			k := bytes.IndexByte(b, p.f.Sep)
			if k < 0 {
				return append(p.fields, b)
			}
			p.fields = append(p.fields, b[:k])
			b = b[k+1:]
		}
	}
	for len(b) > 0 {
		k := 0
		for k < len(b) && !isSpace(b[k]) {
			k++
		}
		if k > 0 {
			p.fields = append(p.fields, b[:k])
		}
		for k < len(b) && isSpace(b[k]) {
			k++
		}
		b = b[k:]
	}
	return p.fields
}

// isSpace reports whether c is ASCII white space other than a newline.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
}

// blank reports whether b holds only white space.
func blank(b []byte) bool {
	for _, c := range b {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

// line parses one line.
func (p *columnParser) line(b []byte, line int) error {
	b = bytes.TrimSuffix(b, []byte{'\r'})
	if blank(b) {
		p.end()
		return nil
	}
	fields := p.split(b)
	if string(fields[0]) == docStart {
		p.end()
		return nil
	}
	if p.columns == 0 {
		want := p.f.Columns
		if want == 0 {
			want = len(fields)
		}
		if err := p.setColumns(want, line); err != nil {
			return err
		}
	}
	if len(fields) != p.columns {
		if p.f.Columns > 0 {
			return fmt.Errorf("%d fields, want %d", len(fields), p.columns)
		}
		return fmt.Errorf("%d fields, want %d as on line %d", len(fields), p.columns, p.first)
	}
	if p.tag >= 0 && len(fields[p.tag]) == 0 {
		return fmt.Errorf("empty tag (column %d)", p.tag+1)
	}
	for _, c := range p.inputs {
		if len(fields[c]) == 0 {
			return fmt.Errorf("empty field (column %d)", c+1)
		}
	}
	if p.cur.Tags == nil {
		p.cur = Sentence{Fields: make([][]string, len(p.inputs)), Line: line}
	}
	for k, c := range p.inputs {
		p.cur.Fields[k] = append(p.cur.Fields[k], p.intern(fields[c]))
	}
	tag := ""
	if p.tag >= 0 {
		tag = p.intern(fields[p.tag])
	}
	p.cur.Tags = append(p.cur.Tags, tag)
	return nil
}

// end closes the current sentence, if any.
func (p *columnParser) end() {
	if p.cur.Tags == nil {
		return
	}
	s := p.cur
	for k := range s.Fields {
		s.Fields[k] = slices.Clip(s.Fields[k])
	}
	s.Tags = slices.Clip(s.Tags)
	p.out = append(p.out, s)
	p.cur = Sentence{}
}

// intern returns the shared string equal to b.
func (p *columnParser) intern(b []byte) string {
	if s, ok := p.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	p.strs[s] = s
	return s
}
