package datasets

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testLetter describes one line of a letter.data file.
type testLetter struct {
	id     int
	letter byte
	next   int
	word   int
	pos    int
	fold   int
}

// pixelsOf returns a deterministic 0/1 image for a letter id.
func pixelsOf(id int) []uint8 {
	p := make([]uint8, LetterPixels)
	for k := range p {
		if (k*7+id*13)%5 == 0 {
			p[k] = 1
		}
	}
	return p
}

// line formats l with the pixels of pixelsOf(l.id).
func (l testLetter) line() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d\t%c\t%d\t%d\t%d\t%d", l.id, l.letter, l.next, l.word, l.pos, l.fold)
	for _, v := range pixelsOf(l.id) {
		fmt.Fprintf(&sb, "\t%d", v)
	}
	return sb.String()
}

// wordLetters returns the letters of a word spelled s with consecutive ids
// starting at firstID.
func wordLetters(s string, firstID, wordID, fold int) []testLetter {
	out := make([]testLetter, len(s))
	for k := range s {
		next := firstID + k + 1
		if k == len(s)-1 {
			next = -1
		}
		out[k] = testLetter{id: firstID + k, letter: s[k], next: next, word: wordID, pos: k + 1, fold: fold}
	}
	return out
}

// letterFile joins the lines of the letters, each followed by sep.
func letterFile(letters []testLetter, sep string) string {
	var sb strings.Builder
	for _, l := range letters {
		sb.WriteString(l.line())
		sb.WriteString(sep)
	}
	return sb.String()
}

// sampleLetters is a small valid file: "cat" (fold 0), "dog" (fold 1), "a"
// (fold 0).
func sampleLetters() []testLetter {
	var ls []testLetter
	ls = append(ls, wordLetters("cat", 1, 1, 0)...)
	ls = append(ls, wordLetters("dog", 4, 2, 1)...)
	ls = append(ls, wordLetters("a", 7, 3, 0)...)
	return ls
}

// gzipBytes compresses b.
func gzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeFile writes b to dir/rel, creating folders, and returns the path.
func writeFile(t testing.TB, dir, rel string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// uspsLine formats a digit line with the given label text and values.
func uspsLine(label string, vals []float64) string {
	var sb strings.Builder
	sb.WriteString(label)
	for _, v := range vals {
		fmt.Fprintf(&sb, " %.4f", v)
	}
	return sb.String()
}

// uspsValues returns 256 deterministic values in [-1, 1] with some zeros.
func uspsValues(seed int) []float64 {
	v := make([]float64, USPSFeatures)
	for k := range v {
		switch (k + seed) % 4 {
		case 0:
			v[k] = -1
		case 1:
			v[k] = 0
		case 2:
			v[k] = 0.5
		default:
			v[k] = 1
		}
	}
	return v
}
