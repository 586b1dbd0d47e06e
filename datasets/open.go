package datasets

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
)

// gzipMagic are the first two bytes of every gzip stream (RFC 1952).
var gzipMagic = [2]byte{0x1f, 0x8b}

// openData opens a plain or gzip-compressed file. Compression is detected
// from the content, not the name.
func openData(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := maybeGunzip(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return readCloser{Reader: r, Closer: f}, nil
}

// maybeGunzip wraps r in a gzip reader when it starts with the gzip magic
// bytes.
func maybeGunzip(r io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, err := br.Peek(2)
	if err != nil && err != io.EOF {
		return nil, err
	}
	if len(head) == 2 && head[0] == gzipMagic[0] && head[1] == gzipMagic[1] {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		return zr, nil
	}
	return br, nil
}

// readCloser reads through a (possibly decompressing) reader and closes the
// underlying file.
type readCloser struct {
	io.Reader
	io.Closer
}
