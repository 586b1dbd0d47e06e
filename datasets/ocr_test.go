package datasets

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestReadLetterDataValid(t *testing.T) {
	letters := sampleLetters()
	shuffled := []testLetter{letters[1], letters[3], letters[0], letters[6], letters[5], letters[2], letters[4]}
	tests := []struct {
		name string
		data string
	}{
		{"plain", letterFile(letters, "\n")},
		{"trailing tab", letterFile(letters, "\t\n")},
		{"crlf", letterFile(letters, "\r\n")},
		{"no final newline", strings.TrimSuffix(letterFile(letters, "\n"), "\n")},
		{"blank lines", "\n" + letterFile(letters, "\n\n")},
		// Words come out in the order of their first letter; letters are
		// ordered by position.
		{"out of order", letterFile(shuffled, "\n")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			words, err := ReadLetterData(strings.NewReader(tc.data), "x.data")
			if err != nil {
				t.Fatal(err)
			}
			got := make([]string, len(words))
			for k, w := range words {
				got[k] = w.String()
			}
			want := []string{"cat", "dog", "a"}
			if !slices.Equal(got, want) {
				t.Fatalf("words %q, want %q", got, want)
			}
			if words[1].ID != 2 || words[1].Fold != 1 || words[0].Fold != 0 {
				t.Errorf("word 1: id %d fold %d; word 0: fold %d", words[1].ID, words[1].Fold, words[0].Fold)
			}
			if !slices.Equal(words[1].Letters, []int32{3, 14, 6}) {
				t.Errorf("letters of dog = %v", words[1].Letters)
			}
			for k, img := range words[1].Pixels {
				if !slices.Equal(img, pixelsOf(4+k)) {
					t.Errorf("pixels of letter %d differ", k)
				}
			}
		})
	}
}

func TestReadLetterDataErrors(t *testing.T) {
	good := sampleLetters()
	// replace returns the file with line k (0-based) replaced.
	replace := func(k int, line string) string {
		lines := strings.Split(strings.TrimSuffix(letterFile(good, "\n"), "\n"), "\n")
		lines[k] = line
		return strings.Join(lines, "\n") + "\n"
	}
	fields := func(k int) []string { return strings.Split(good[k].line(), "\t") }
	setField := func(k, f int, v string) string {
		fs := fields(k)
		fs[f] = v
		return replace(k, strings.Join(fs, "\t"))
	}
	modify := func(k int, fn func(*testLetter)) string {
		ls := slices.Clone(good)
		fn(&ls[k])
		return letterFile(ls, "\n")
	}
	tests := []struct {
		name string
		data string
		want string // substring of the error after "f.data: "
	}{
		{"empty file", "", "f.data: no letters"},
		{"only blank lines", "\n\n  \n", "f.data: no letters"},
		{"truncated line", replace(2, strings.Join(fields(2)[:40], "\t")), ":3: 40 fields, want 134"},
		{"127 pixels", replace(1, strings.Join(fields(1)[:133], "\t")), ":2: 133 fields"},
		{"129 pixels", replace(4, good[4].line()+"\t0"), ":5: 135 fields"},
		{"non-numeric id", setField(0, 0, "one"), `:1: id (field 1) "one" is not an integer`},
		{"non-numeric next", setField(1, 2, "3x"), ":2: next_id (field 3)"},
		{"non-numeric word", setField(1, 3, ""), ":2: word_id (field 4)"},
		{"fold not int", setField(5, 5, "1.5"), `:6: fold (field 6) "1.5" is not an integer`},
		{"negative fold", setField(5, 5, "-1"), ":6: fold (field 6) is -1"},
		{"position zero", setField(5, 4, "0"), ":6: position (field 5) is 0"},
		{"pixel 2", setField(3, 6+17, "2"), `:4: pixel p_2_1 (field 24) is "2", want 0 or 1`},
		{"pixel text", setField(6, 133, "x"), ":7: pixel p_15_7"},
		{"uppercase letter", setField(0, 1, "C"), `:1: letter (field 2) is "C"`},
		{"two letters", setField(0, 1, "ca"), ":1: letter (field 2)"},
		{"position gap", modify(2, func(l *testLetter) { l.pos = 4 }), ":3: word 1: position 4, want 3"},
		{"position repeated", modify(2, func(l *testLetter) { l.pos = 2 }), "word 1: position 2, want 3"},
		{"broken chain", modify(0, func(l *testLetter) { l.next = 99 }), ":1: word 1: next_id 99 is the id of no letter (broken chain)"},
		{"early end", modify(1, func(l *testLetter) { l.next = -1 }), ":2: word 1: next_id -1 ends the word after 2 letters, but the letter on line 3 (position 3) belongs to it too"},
		{"unterminated word", modify(6, func(l *testLetter) { l.next = 8 }), ":7: word 3: next_id 8 is the id of no letter"},
		{"fold mismatch", modify(4, func(l *testLetter) { l.fold = 2 }), ":5: word 2: fold 2, but its other letters have fold 1 (line 4)"},
		// Issue 22, item 12: the error names the line that breaks the
		// word, not a neighbour: the first letter's fold, a position off
		// the chain, a chain into another word, a loop, a second start.
		{"first letter's fold", modify(0, func(l *testLetter) { l.fold = 4 }), ":1: word 1: fold 4, but its other letters have fold 0 (line 2)"},
		{"position off the chain", modify(1, func(l *testLetter) { l.pos = 3 }), ":2: word 1: position 3, want 2: the letter follows id 1 (line 1) by next_id"},
		{"chain into another word", modify(1, func(l *testLetter) { l.next = 4 }), ":2: word 1: next_id 4 is the letter on line 4, of word 2 (broken chain)"},
		{"loop", modify(1, func(l *testLetter) { l.next = 1 }), ":2: word 1: next_id 1 points back to position 1 (line 1): the chain loops"},
		{"two starts", modify(2, func(l *testLetter) { l.pos = 1 }), ":3: word 1: a second letter at position 1 (the first is on line 1)"},
		{"duplicate id", modify(6, func(l *testLetter) { l.id = 5 }), ":7: id 5 already used on line 5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			words, err := ReadLetterData(strings.NewReader(tc.data), "f.data")
			if err == nil {
				t.Fatalf("no error; got %d words", len(words))
			}
			if !strings.HasPrefix(err.Error(), "ocr: f.data:") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

func TestReadLetterDataLongLine(t *testing.T) {
	data := strings.Repeat("1\t", 1<<20)
	_, err := ReadLetterData(strings.NewReader(data), "long.data")
	if err == nil || !strings.Contains(err.Error(), "long.data:1:") {
		t.Errorf("error %v, want one naming long.data line 1", err)
	}
}

func TestReadLetterFile(t *testing.T) {
	dir := t.TempDir()
	data := []byte(letterFile(sampleLetters(), "\n"))
	tests := []struct {
		name string
		rel  string
		body []byte
	}{
		{"plain", "letter.data", data},
		{"gzip", "letter.data.gz", gzipBytes(t, data)},
		{"gzip without extension", "letters.txt", gzipBytes(t, data)},
		{"plain with gz extension", "odd.gz", data},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, dir, tc.rel, tc.body)
			words, err := ReadLetterFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if len(words) != 3 || words[0].String() != "cat" {
				t.Errorf("got %d words, first %q", len(words), words[0])
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		p := filepath.Join(dir, "nope.data")
		if _, err := ReadLetterFile(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("error %v, want one naming %s", err, p)
		}
	})
	t.Run("corrupt gzip", func(t *testing.T) {
		gz := gzipBytes(t, data)
		p := writeFile(t, dir, "bad.gz", gz[:len(gz)/2])
		_, err := ReadLetterFile(p)
		if err == nil || !strings.Contains(err.Error(), p) || !errors.Is(err, ErrTruncated) || strings.Contains(err.Error(), "fields") {
			t.Errorf("error %v, want one naming %s and saying it is truncated (not a field count)", err, p)
		}
	})
	t.Run("error names path and line", func(t *testing.T) {
		p := writeFile(t, dir, "err.data.gz", gzipBytes(t, []byte(letterFile(sampleLetters(), "\n")+"junk\n")))
		_, err := ReadLetterFile(p)
		if err == nil || !strings.Contains(err.Error(), "ocr: "+p+":8:") {
			t.Errorf("error %v, want one naming %s line 8", err, p)
		}
	})
}

func TestSplit(t *testing.T) {
	tests := []struct {
		in      string
		want    Split
		wantErr bool
	}{
		{"small", SplitSmall, false},
		{"large", SplitLarge, false},
		{"Small", 0, true},
		{"", 0, true},
	}
	for _, tc := range tests {
		got, err := ParseSplit(tc.in)
		if (err != nil) != tc.wantErr || (err == nil && got != tc.want) {
			t.Errorf("ParseSplit(%q) = %v, %v", tc.in, got, err)
		}
		if err == nil && got.String() != tc.in {
			t.Errorf("%v.String() = %q, want %q", got, got.String(), tc.in)
		}
	}
	if s := Split(7).String(); s != "Split(7)" {
		t.Errorf("Split(7).String() = %q", s)
	}
}

func TestSplitWords(t *testing.T) {
	words := []Word{{ID: 1, Fold: 0}, {ID: 2, Fold: 3}, {ID: 3, Fold: 0}, {ID: 4, Fold: 9}}
	ids := func(ws []Word) []int {
		var out []int
		for _, w := range ws {
			out = append(out, w.ID)
		}
		return out
	}
	tests := []struct {
		split            Split
		wantTr, wantTest []int
	}{
		{SplitSmall, []int{1, 3}, []int{2, 4}},
		{SplitLarge, []int{2, 4}, []int{1, 3}},
		{Split(5), nil, nil},
	}
	for _, tc := range tests {
		tr, te := SplitWords(words, tc.split)
		if !slices.Equal(ids(tr), tc.wantTr) || !slices.Equal(ids(te), tc.wantTest) {
			t.Errorf("%v: train %v test %v, want %v %v", tc.split, ids(tr), ids(te), tc.wantTr, tc.wantTest)
		}
	}
}

func TestOCRChain(t *testing.T) {
	words, err := ReadLetterData(strings.NewReader(letterFile(sampleLetters(), "\n")), "x")
	if err != nil {
		t.Fatal(err)
	}
	c, err := OCRChain(words)
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != 3 || c.Dim() != 4082 || c.NumLabels() != 26 || c.NumFeatures() != 128 {
		t.Fatalf("Len %d Dim %d K %d F %d", c.Len(), c.Dim(), c.NumLabels(), c.NumFeatures())
	}
	if !slices.Equal(c.Truth(1), []int32{3, 14, 6}) {
		t.Errorf("truth of dog = %v", c.Truth(1))
	}
	for tt := 0; tt < 3; tt++ {
		f := c.Features(1, tt)
		var want []int32
		for p, v := range pixelsOf(4 + tt) {
			if v == 1 {
				want = append(want, int32(p))
			}
		}
		if !slices.Equal(f.Idx, want) {
			t.Errorf("features of position %d: %v, want %v", tt, f.Idx, want)
		}
		for _, v := range f.Val {
			if v != 1 {
				t.Fatalf("feature value %v, want 1", v)
			}
		}
	}

	img := pixelsOf(1)
	bad := slices.Clone(img)
	bad[3] = 2
	errTests := []struct {
		name string
		w    Word
		want string
	}{
		{"empty word", Word{ID: 9}, "word 0 (id 9) is empty"},
		{"missing image", Word{ID: 9, Letters: []int32{1, 2}, Pixels: [][]uint8{img}}, "2 letters but 1 images"},
		{"label out of range", Word{ID: 9, Letters: []int32{26}, Pixels: [][]uint8{img}}, "label 26 outside 0..25"},
		{"negative label", Word{ID: 9, Letters: []int32{-1}, Pixels: [][]uint8{img}}, "label -1"},
		{"short image", Word{ID: 9, Letters: []int32{1}, Pixels: [][]uint8{img[:100]}}, "100 pixels, want 128"},
		{"pixel value", Word{ID: 9, Letters: []int32{1}, Pixels: [][]uint8{bad}}, "pixel 3 is 2"},
	}
	for _, tc := range errTests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := OCRChain([]Word{tc.w})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestLoadOCR(t *testing.T) {
	root := t.TempDir()
	p := writeFile(t, root, "ocr/letter.data.gz", gzipBytes(t, []byte(letterFile(sampleLetters(), "\n"))))
	for _, path := range []string{p, root, filepath.Dir(p)} {
		for _, tc := range []struct {
			split        Split
			ntr, ntest   int
			firstTrainID int
		}{{SplitSmall, 2, 1, 1}, {SplitLarge, 1, 2, 2}} {
			tr, te, err := LoadOCR(path, tc.split)
			if err != nil {
				t.Fatalf("LoadOCR(%s, %v): %v", path, tc.split, err)
			}
			if tr.Len() != tc.ntr || te.Len() != tc.ntest {
				t.Errorf("LoadOCR(%s, %v): %d train, %d test; want %d, %d", path, tc.split, tr.Len(), te.Len(), tc.ntr, tc.ntest)
			}
		}
	}
	if _, _, err := LoadOCR(p, Split(3)); err == nil {
		t.Error("LoadOCR accepted an unknown split")
	}
	empty := t.TempDir()
	if _, _, err := LoadOCR(empty, SplitSmall); err == nil || !strings.Contains(err.Error(), empty) {
		t.Errorf("LoadOCR(empty dir) error %v, want one naming %s", err, empty)
	}
	if _, _, err := LoadOCR(filepath.Join(empty, "x.gz"), SplitSmall); err == nil {
		t.Error("LoadOCR(missing file) returned no error")
	}
}
