package ssvmnb

import (
	"bytes"
	"compress/gzip"
	"encoding/gob"
	"fmt"
	"io"
	"math/bits"
	"strings"

	"github.com/fwstruct/fwstruct/internal/frame"
)

// The session files (a trainer's, a kept run's) are framed as the
// solvers' checkpoints are (internal/frame: magic bytes, the kind of
// content, its length, the content and a CRC-32C of all of it), so that a
// file altered in any bit, truncated or of another kind is refused with a
// one-line error before anything is decoded. The content is the gob
// encoding of the file's record, gzip-compressed: what a record holds
// compresses about 2x (the labelings of the corners, the many zeros of
// the dense vectors).

// sessionKind is the frame of the session files; version 1 of the frame
// is session file version 3 (sessionVersion), the first framed one.
var sessionKind = frame.Kind{Magic: [8]byte{'f', 'w', 's', 'e', 's', 's', 'n', 1}, What: "session file"}

// The kinds of content a session file holds, the frame's name.
const (
	trainerContent = "trainer"
	keptContent    = "kept run"
)

// writeFramed writes v, a record of the given kind of content, to w.
func writeFramed(w io.Writer, content string, v any) error {
	var buf bytes.Buffer
	z, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err != nil {
		return err
	}
	if err := gob.NewEncoder(z).Encode(v); err != nil {
		return fmt.Errorf("ssvmnb: save %s: %w", content, err)
	}
	if err := z.Close(); err != nil {
		return err
	}
	return sessionKind.Write(w, content, buf.Bytes())
}

// readFramed reads the record v (a pointer) of the given kind of content
// from r, as writeFramed wrote it. version, when not nil, returns the
// version v holds once decoded: a file that is not framed but whose gob
// record has an older version is ErrOlder. Every error is one line.
func readFramed(r io.Reader, content string, v any, version func() int) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("ssvmnb: %w", err)
	}
	name, body, err := sessionKind.Read(bytes.NewReader(b))
	if err != nil {
		if version != nil && unframedOlder(b, v, version) {
			return fmt.Errorf("ssvmnb: an unframed %s: %w", content, errOlder)
		}
		return fmt.Errorf("ssvmnb: %w", err)
	}
	if name != content {
		return fmt.Errorf("ssvmnb: the session file holds a %s, not a %s", oneLine(name), content)
	}
	z, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("ssvmnb: corrupt %s: %w", content, err)
	}
	if err := gob.NewDecoder(z).Decode(v); err != nil {
		return fmt.Errorf("ssvmnb: corrupt %s: %s", content, oneLine(err.Error()))
	}
	return nil
}

// unframedOlder reports whether b is the bare gob record of an older
// build (session files before version 3 were not framed), and not a
// frame with a damaged magic (a few bits off).
func unframedOlder(b []byte, v any, version func() int) bool {
	if len(b) < len(sessionKind.Magic) {
		return false
	}
	off := 0
	for k, m := range sessionKind.Magic {
		off += bits.OnesCount8(b[k] ^ m)
	}
	if off <= 8 || gob.NewDecoder(bytes.NewReader(b)).Decode(v) != nil {
		return false
	}
	return version() < sessionVersion
}

// oneLine makes s one line (an error naming bytes read from a file).
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
