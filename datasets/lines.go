package datasets

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// lineReader reads a text file line by line for the readers of this
// package, numbering the lines and formatting every error alike:
//
//	format: name:line: message
//
// (e.g. "svmlight: train.txt:12: feature index 0 with 1-based indices"), or
// "format: name: message" for an error about the whole file.
//
// A read error of the source (ErrTruncated for a cut gzip stream) takes
// precedence over an error about the content: a partial last line is its
// symptom, not the problem.
type lineReader struct {
	format, name string
	src          *stickyReader
	sc           *bufio.Scanner
	maxLine      int
	line         int // number of the line last returned by next
}

// newLineReader reads r, whose lines are at most maxLine bytes long.
func newLineReader(r io.Reader, format, name string, maxLine int) *lineReader {
	src := &stickyReader{r: r}
	sc := bufio.NewScanner(src)
	sc.Buffer(make([]byte, 0, min(maxLine, 64<<10)), maxLine)
	return &lineReader{format: format, name: name, src: src, sc: sc, maxLine: maxLine}
}

// next returns the next line without its line ending ("\n" or "\r\n"),
// valid until the following call, or false at the end of the input or on a
// read error (see err).
func (l *lineReader) next() ([]byte, bool) {
	if !l.sc.Scan() {
		return nil, false
	}
	l.line++
	b := l.sc.Bytes()
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b, true
}

// err returns nil when next stopped at the end of the input, else the read
// error.
func (l *lineReader) err() error {
	err := l.sc.Err()
	switch {
	case err == nil:
		return nil
	case errors.Is(err, bufio.ErrTooLong):
		return l.errorAt(l.line+1, "line longer than %d bytes", l.maxLine)
	default:
		return l.errorAt(l.line, "%w", err)
	}
}

// errorf returns an error about the current line, or the read error of the
// source when there is one.
func (l *lineReader) errorf(format string, args ...any) error {
	if err := l.src.err; err != nil {
		return l.errorAt(l.line, "%w", err)
	}
	return l.errorAt(l.line, format, args...)
}

// errorAt returns an error about the given line.
func (l *lineReader) errorAt(line int, format string, args ...any) error {
	return fmt.Errorf("%s: %s:%d: %w", l.format, l.name, line, fmt.Errorf(format, args...))
}

// fileErrorf returns an error about the whole file.
func (l *lineReader) fileErrorf(format string, args ...any) error {
	return fmt.Errorf("%s: %s: %w", l.format, l.name, fmt.Errorf(format, args...))
}

// stickyReader remembers the first error of r other than io.EOF.
type stickyReader struct {
	r   io.Reader
	err error
}

func (s *stickyReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF && s.err == nil {
		s.err = err
	}
	return n, err
}

// maxQuoted is the longest field an error message quotes in full.
const maxQuoted = 40

// quote returns s quoted for an error message, cut after maxQuoted bytes
// (a corrupt file can hold a field of megabytes).
func quote[T ~string | ~[]byte](s T) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(string(s))
	}
	return strconv.Quote(string(s[:maxQuoted])) + "..."
}

// fields splits s at runs of spaces and tabs, appending to dst.
func fields(dst []string, s string) []string {
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return dst
		}
		k := strings.IndexAny(s, " \t")
		if k < 0 {
			return append(dst, s)
		}
		dst = append(dst, s[:k])
		s = s[k:]
	}
}
