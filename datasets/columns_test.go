package datasets

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// sentence builds a Sentence from its input columns and tags.
func sentence(line int, tags []string, fields ...[]string) Sentence {
	return Sentence{Fields: fields, Tags: tags, Line: line}
}

func TestReadColumns(t *testing.T) {
	cases := []struct {
		name   string
		format ColumnFormat
		in     string
		want   []Sentence
	}{
		{
			name: "CoNLL-2000 layout",
			in:   "He PRP B-NP\nreckons VBZ B-VP\n\nThe DT B-NP\n\n",
			want: []Sentence{
				sentence(1, []string{"B-NP", "B-VP"}, []string{"He", "reckons"}, []string{"PRP", "VBZ"}),
				sentence(4, []string{"B-NP"}, []string{"The"}, []string{"DT"}),
			},
		},
		{
			name: "CRLF, tabs, runs of blanks, no final blank line",
			in:   "\r\n\r\nHe\tPRP  B-NP\r\n \t \r\nit  PRP\tB-NP  \r\nis VBZ B-VP",
			want: []Sentence{
				sentence(3, []string{"B-NP"}, []string{"He"}, []string{"PRP"}),
				sentence(5, []string{"B-NP", "B-VP"}, []string{"it", "is"}, []string{"PRP", "VBZ"}),
			},
		},
		{
			name: "CoNLL-2003 NER with document separators",
			in:   "-DOCSTART- -X- -X- O\n\nEU NNP B-NP B-ORG\nrejects VBZ B-VP O\n-DOCSTART- -X- -X- O\nPeter NNP B-NP B-PER\n",
			want: []Sentence{
				sentence(3, []string{"B-ORG", "O"}, []string{"EU", "rejects"}, []string{"NNP", "VBZ"}, []string{"B-NP", "B-VP"}),
				sentence(6, []string{"B-PER"}, []string{"Peter"}, []string{"NNP"}, []string{"B-NP"}),
			},
		},
		{
			name:   "tag in the first column, chosen inputs",
			format: ColumnFormat{Tag: 1, Inputs: []int{3, 2}},
			in:     "B-NP He PRP\nB-VP reckons VBZ\n",
			want:   []Sentence{sentence(1, []string{"B-NP", "B-VP"}, []string{"PRP", "VBZ"}, []string{"He", "reckons"})},
		},
		{
			name:   "tab separator keeps spaces inside fields",
			format: ColumnFormat{Sep: '\t'},
			in:     "New York\tNNP\tB-LOC\n",
			want:   []Sentence{sentence(1, []string{"B-LOC"}, []string{"New York"}, []string{"NNP"})},
		},
		{
			name:   "fixed column count",
			format: ColumnFormat{Columns: 2},
			in:     "a X\nb Y\n",
			want:   []Sentence{sentence(1, []string{"X", "Y"}, []string{"a", "b"})},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadColumns(strings.NewReader(tc.in), "in.txt", tc.format)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

// TestReadColumnsInterns checks that equal strings share their storage.
func TestReadColumnsInterns(t *testing.T) {
	s, err := ReadColumns(strings.NewReader("the DT B-NP\nthe DT I-NP\n"), "x", ColumnFormat{})
	if err != nil {
		t.Fatal(err)
	}
	w := s[0].Fields[0]
	if w[0] != "the" || w[1] != "the" {
		t.Fatalf("words %q", w)
	}
	if unsafe.StringData(w[0]) != unsafe.StringData(w[1]) {
		t.Error("the two occurrences of a word do not share a string")
	}
}

func TestReadColumnsErrors(t *testing.T) {
	cases := []struct {
		name   string
		format ColumnFormat
		in     string
		want   string // substring of the error
	}{
		{"wrong column count", ColumnFormat{}, "a X B-NP\n\nb Y\n", "in.txt:3: 2 fields, want 3 as on line 1"},
		{"wrong fixed column count", ColumnFormat{Columns: 3}, "a X\n", "in.txt:1: 2 fields, want 3"},
		{"empty tag", ColumnFormat{Sep: '\t'}, "a\tX\tB-NP\nb\tY\t\n", "in.txt:2: empty tag (column 3)"},
		{"empty input", ColumnFormat{Sep: '\t'}, "a\t\tB-NP\n", "in.txt:1: empty field (column 2)"},
		{"no sentences", ColumnFormat{}, "\n \n-DOCSTART- x\n", "in.txt: no sentences"},
		{"tag column beyond the fields", ColumnFormat{Tag: 4}, "a b c\n", "in.txt:1: 3 fields, but the tag is in column 4"},
		{"input column beyond the fields", ColumnFormat{Inputs: []int{5}}, "a b c\n", "in.txt:1: 3 fields, but input column 5"},
		{"negative tag column", ColumnFormat{Tag: -1}, "a b\n", "bad format"},
		{"input column zero", ColumnFormat{Inputs: []int{0}}, "a b\n", "bad format"},
		{"newline separator", ColumnFormat{Sep: '\n'}, "a b\n", "bad format"},
		{"line too long", ColumnFormat{}, "a b\n" + strings.Repeat("x", maxLineBytes+1) + " B\n", "in.txt:2: line longer than"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadColumns(strings.NewReader(tc.in), "in.txt", tc.format)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "conll: ") {
				t.Errorf("error %q does not start with conll:", err)
			}
		})
	}
}

// TestReadColumnFile reads plain and gzip files whatever their names, and
// reports truncated and corrupt gzip files with their names.
func TestReadColumnFile(t *testing.T) {
	dir := t.TempDir()
	text := []byte(strings.Repeat("He PRP B-NP\nreckons VBZ B-VP\n\n", 2000))
	gz := gzipBytes(t, text)
	corrupt := bytes.Clone(gz)
	corrupt[len(corrupt)-5] ^= 0xff // the CRC-32 of the trailer
	files := []struct {
		name    string
		data    []byte
		wantErr string
	}{
		{"plain.gz", text, ""},
		{"packed.txt", gz, ""},
		{"truncated.gz", gz[:len(gz)/2], "truncated"},
		{"corrupt.gz", corrupt, "corrupt gzip data"},
	}
	for _, f := range files {
		p := writeFile(t, dir, f.name, f.data)
		s, err := ReadColumnFile(p, ColumnFormat{})
		if f.wantErr == "" {
			if err != nil || len(s) != 2000 {
				t.Errorf("%s: %d sentences, error %v; want 2000", f.name, len(s), err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), f.wantErr) || !strings.Contains(err.Error(), p+":") {
			t.Errorf("%s: error %v, want %q naming the file and line", f.name, err, f.wantErr)
		}
	}
	if _, err := ReadColumnFile(filepath.Join(dir, "missing.txt"), ColumnFormat{}); err == nil {
		t.Error("missing file: no error")
	}
}

// writeColumns writes sentences back in the column format (inputs then
// tag, space-separated), for round trips.
func writeColumns(sents []Sentence) string {
	var b strings.Builder
	for _, s := range sents {
		for t := range s.Tags {
			for _, col := range s.Fields {
				b.WriteString(col[t])
				b.WriteByte(' ')
			}
			b.WriteString(s.Tags[t])
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// FuzzReadColumns checks that the reader never panics, that what it accepts
// is well formed (every sentence non-empty, every column as long as the
// tags, no empty field) and that writing it back reads the same sentences.
func FuzzReadColumns(f *testing.F) {
	seeds := []string{
		"He PRP B-NP\nreckons VBZ B-VP\n\nThe DT B-NP\n",
		"-DOCSTART- -X- -X- O\n\nEU NNP B-NP B-ORG\n",
		"a\tb\tc\r\n\r\nd\te\tf",
		"a b\n\nc d e\n",
		"\n\n\n",
		"x\ty\t\n",
		string(gzipBytes(f, []byte("a b c\n"))),
	}
	for _, s := range seeds {
		f.Add(s, uint8(0), uint8(0))
	}
	f.Add("a b c\n", uint8(1), uint8('\t'))
	f.Fuzz(func(t *testing.T, in string, tag, sep uint8) {
		format := ColumnFormat{Tag: int(tag % 4), Sep: sep}
		sents, err := ReadColumns(strings.NewReader(in), "fuzz", format)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "conll: fuzz") {
				t.Fatalf("error %q does not name the input", err)
			}
			return
		}
		cols := -1
		for k, s := range sents {
			if len(s.Tags) == 0 {
				t.Fatalf("sentence %d is empty", k)
			}
			if cols >= 0 && len(s.Fields) != cols {
				t.Fatalf("sentence %d has %d input columns, the first %d", k, len(s.Fields), cols)
			}
			cols = len(s.Fields)
			for _, col := range s.Fields {
				if len(col) != len(s.Tags) {
					t.Fatalf("sentence %d: a column of %d values for %d tags", k, len(col), len(s.Tags))
				}
				for _, v := range col {
					if v == "" {
						t.Fatalf("sentence %d: empty field", k)
					}
				}
			}
			for _, v := range s.Tags {
				if v == "" {
					t.Fatalf("sentence %d: empty tag", k)
				}
			}
		}
		if sep != 0 || tag != 0 {
			return // the round trip writes space-separated columns, tag last
		}
		again, err := ReadColumns(strings.NewReader(writeColumns(sents)), "again", ColumnFormat{})
		if err != nil {
			t.Fatalf("reading back: %v", err)
		}
		if len(again) != len(sents) {
			t.Fatalf("read back %d sentences, want %d", len(again), len(sents))
		}
		for k := range sents {
			if !reflect.DeepEqual(again[k].Fields, sents[k].Fields) || !reflect.DeepEqual(again[k].Tags, sents[k].Tags) {
				t.Fatalf("sentence %d read back as %v, want %v", k, again[k], sents[k])
			}
		}
	})
}
