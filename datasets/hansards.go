package datasets

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fwstruct/fwstruct/align"
)

// The file formats of the HLT-NAACL 2003 word-alignment shared task
// (Mihalcea and Pedersen 2003), English-French Hansards:
//
//   - sentences (test.e, test.f), one a line: "<s snum=0001> words </s>";
//   - gold links (test.wa.nonullalign), one a line:
//     "sentence English-position French-position [S|P]" with 1-based
//     positions (0 is the NULL word) and S (sure) or P (possible);
//   - unaligned sentence pairs, one a line: "french words ||| english words".
//
// The readers below parse them into align.Pair values; LoadHansards puts
// them together.

// snumSentence is one line of a test.e or test.f file.
type snumSentence struct {
	num   int
	words []string
	line  int
}

// readSnumSentences reads a sentence file of the shared task, one
// "<s snum=N> words </s>" a line (blank lines are skipped). A line that is
// valid UTF-8 is read as such, any other as ISO-8859-1 (Latin-1), the
// encoding of the original test.e and test.f (their guillemets are bytes
// 0xAB and 0xBB). Errors name the file and line.
func readSnumSentences(r io.Reader, name string) ([]snumSentence, error) {
	lr := newLineReader(r, "hansards", name, 1<<20)
	var out []snumSentence
	seen := map[int]int{}
	for {
		b, ok := lr.next()
		if !ok {
			break
		}
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			continue
		}
		line := latin1OrUTF8(b)
		rest, ok := strings.CutPrefix(line, "<s snum=")
		if !ok {
			return nil, lr.errorf("want <s snum=N> words </s>, got %s", quote(line))
		}
		num, rest, ok := strings.Cut(rest, ">")
		if !ok {
			return nil, lr.errorf("no > closing <s snum=%s", quote(num))
		}
		n, err := strconv.Atoi(num)
		if err != nil || n < 0 {
			return nil, lr.errorf("sentence number %s is not a non-negative integer", quote(num))
		}
		rest, ok = strings.CutSuffix(strings.TrimSpace(rest), "</s>")
		if !ok {
			return nil, lr.errorf("sentence %d does not end with </s>", n)
		}
		if prev, dup := seen[n]; dup {
			return nil, lr.errorf("sentence number %d repeats line %d", n, prev)
		}
		seen[n] = lr.line
		words := strings.Fields(rest)
		if len(words) == 0 {
			return nil, lr.errorf("sentence %d has no words", n)
		}
		out = append(out, snumSentence{num: n, words: words, line: lr.line})
	}
	if err := lr.err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, lr.fileErrorf("no sentences")
	}
	return out, nil
}

// latin1OrUTF8 returns b as a string: unchanged when it is valid UTF-8,
// else decoded from ISO-8859-1, where every byte is the code point of the
// same value.
func latin1OrUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	for _, c := range b {
		sb.WriteRune(rune(c))
	}
	return sb.String()
}

// wordLink is one line of a gold links file.
type wordLink struct {
	sentence, english, french int // 1-based positions; 0 is NULL
	sure                      bool
	line                      int
}

// readWordLinks reads a links file of the shared task: one link a line,
// "sentence english french [S|P] [confidence]", the reading of the
// task's scorer wa_eval_align.pl: three fields, a fourth field S, or a
// fourth field that is a number (a confidence) make a sure link; a
// fourth field P a possible one; with five fields, S or P is the fourth or
// the fifth. Positions are 1-based, 0 standing for the NULL word. Blank
// lines are skipped; errors name the file and line.
func readWordLinks(r io.Reader, name string) ([]wordLink, error) {
	lr := newLineReader(r, "hansards", name, 1<<16)
	var out []wordLink
	var f []string
	for {
		b, ok := lr.next()
		if !ok {
			break
		}
		f = fields(f[:0], string(b))
		if len(f) == 0 {
			continue
		}
		if len(f) < 3 || len(f) > 5 {
			return nil, lr.errorf("want sentence english french [S|P] [confidence], got %d fields", len(f))
		}
		var v [3]int
		for k, name := range []string{"sentence number", "English position", "French position"} {
			n, err := strconv.Atoi(f[k])
			if err != nil || n < 0 {
				return nil, lr.errorf("%s %s is not a non-negative integer", name, quote(f[k]))
			}
			v[k] = n
		}
		sure, err := linkKind(f[3:])
		if err != nil {
			return nil, lr.errorf("%v", err)
		}
		out = append(out, wordLink{sentence: v[0], english: v[1], french: v[2], sure: sure, line: lr.line})
	}
	if err := lr.err(); err != nil {
		return nil, err
	}
	return out, nil
}

// linkKind reads the optional fields after the positions as
// wa_eval_align.pl does and reports whether the link is sure.
func linkKind(extra []string) (sure bool, err error) {
	isNum := func(s string) bool { _, ok := parseDecimal(s); return ok }
	switch len(extra) {
	case 0:
		return true, nil
	case 1:
		switch {
		case extra[0] == "S", isNum(extra[0]):
			return true, nil
		case extra[0] == "P":
			return false, nil
		}
		return false, fmt.Errorf("link kind %s, want S, P or a confidence", quote(extra[0]))
	default:
		a, b := extra[0], extra[1]
		switch {
		case a == "S" && isNum(b), b == "S" && isNum(a):
			return true, nil
		case a == "P" && isNum(b), b == "P" && isNum(a):
			return false, nil
		}
		return false, fmt.Errorf("link kind and confidence %s %s, want S or P and a number", quote(a), quote(b))
	}
}

// parallelSeparator separates the French and the English side of a line
// of an unaligned pairs file.
const parallelSeparator = "|||"

// readParallel reads sentence pairs "french words ||| english words", one
// a line (UTF-8; a line that is not valid UTF-8 is read as Latin-1), the
// ID of a pair being its 1-based line. Both sides must hold words, and the
// separator appear once as a word. Blank lines are errors (they would
// shift the line numbers the IDs of automatically labelled pairs refer
// to); errors name the file and line.
func readParallel(r io.Reader, name string) ([]align.Pair, error) {
	lr := newLineReader(r, "hansards", name, 1<<20)
	var out []align.Pair
	for {
		b, ok := lr.next()
		if !ok {
			break
		}
		words := strings.Fields(latin1OrUTF8(b))
		sep := -1
		for k, w := range words {
			if w == parallelSeparator {
				if sep >= 0 {
					return nil, lr.errorf("%s appears twice; want french words ||| english words", parallelSeparator)
				}
				sep = k
			}
		}
		switch {
		case sep < 0:
			return nil, lr.errorf("no %s separator; want french words ||| english words", parallelSeparator)
		case sep == 0:
			return nil, lr.errorf("no French words before %s", parallelSeparator)
		case sep == len(words)-1:
			return nil, lr.errorf("no English words after %s", parallelSeparator)
		}
		out = append(out, align.Pair{ID: lr.line, French: words[:sep:sep], English: words[sep+1:]})
	}
	if err := lr.err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, lr.fileErrorf("no sentence pairs")
	}
	return out, nil
}

// writeWordLinks writes links in the format of the shared task's gold
// files, "snum english french S|P" with 1-based positions, sure links then
// possible ones for each pair, as wa_eval_align.pl reads them.
func writeWordLinks(w io.Writer, pairs []align.Pair) error {
	var buf bytes.Buffer
	for _, p := range pairs {
		for _, set := range []struct {
			links [][2]int32
			kind  string
		}{{p.Sure, "S"}, {p.Possible, "P"}} {
			for _, l := range set.links {
				fmt.Fprintf(&buf, "%04d %d %d %s\n", p.ID, l[0]+1, l[1]+1, set.kind)
			}
		}
	}
	_, err := w.Write(buf.Bytes())
	return err
}
