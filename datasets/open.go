package datasets

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
)

// gzipMagic are the first two bytes of every gzip stream (RFC 1952).
var gzipMagic = [2]byte{0x1f, 0x8b}

// ErrTruncated reports a gzip-compressed file that ends before its
// compressed stream does, typically an interrupted download or copy.
var ErrTruncated = errors.New("truncated gzip stream (the file ends early: an interrupted download or copy?)")

// openData opens a plain or gzip-compressed file for the reader of format
// (e.g. "svmlight"), which prefixes its errors. Compression is detected from
// the content, not the name. Every reader opens its files through it, so
// that all of them accept the same files and report them alike.
func openData(format, path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", format, err)
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s: %s is a folder, not a data file", format, path)
	}
	r, err := maybeGunzip(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %s: %w", format, path, err)
	}
	return readCloser{Reader: r, Closer: f}, nil
}

// maybeGunzip wraps r in a gzip reader when it starts with the gzip magic
// bytes. A compressed stream that ends early reads as ErrTruncated.
func maybeGunzip(r io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, err := br.Peek(2)
	if err != nil && err != io.EOF {
		return nil, err
	}
	if len(head) == 2 && head[0] == gzipMagic[0] && head[1] == gzipMagic[1] {
		zr, err := gzip.NewReader(br)
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
				return nil, ErrTruncated
			}
			return nil, fmt.Errorf("gzip: %w", err)
		}
		return truncationReader{zr}, nil
	}
	return br, nil
}

// truncationReader reports io.ErrUnexpectedEOF of a gzip stream as
// ErrTruncated.
type truncationReader struct{ r io.Reader }

func (t truncationReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = ErrTruncated
	}
	return n, err
}

// readCloser reads through a (possibly decompressing) reader and closes the
// underlying file.
type readCloser struct {
	io.Reader
	io.Closer
}
