// Package frame is the container of the files whose content must be
// trusted: every solver checkpoint, and the session files of the notebook
// layer. A frame holds the magic bytes of its kind, a name (a checkpoint's:
// the method that wrote it), the length of the content, the content, and
// the CRC-32C (Castagnoli) of everything before the CRC, as written. A CRC
// detects every error of up to 5 bits in messages of this size and any
// burst of up to 32, so a flipped bit never decodes, and the name is inside
// the checksummed bytes, so a frame cannot be relabelled or spliced without
// the check failing.
//
// Layout: magic (8 bytes) | name length (1 byte) | name | content length (8
// bytes, little-endian) | content | CRC-32C (4 bytes, little-endian).
package frame

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// A Kind is one kind of framed file: the magic bytes that open its frames
// and what messages call it.
type Kind struct {
	// Magic opens every frame of the kind; its last byte is the version
	// of the frame.
	Magic [8]byte
	// Older opened the frames of the kind written by older builds, which
	// this build reads as ErrOlder (nil: none).
	Older [][8]byte
	// What names the kind in errors ("checkpoint").
	What string
}

// Checkpoint is the kind of the solvers' checkpoints; its frames are named
// after the method that wrote them. The builds before the method types
// wrote frames of version 1, which did not name their method.
var Checkpoint = Kind{
	Magic: [8]byte{'f', 'w', 's', 't', 'a', 't', 'e', 2},
	Older: [][8]byte{{'f', 'w', 's', 't', 'a', 't', 'e', 1}},
	What:  "checkpoint",
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrOlder marks a file written by an older fwstruct, whose content this
// build cannot read.
var ErrOlder = errors.New("made by an older fwstruct: train again")

// Write writes content framed as a file of kind k, under name (1 to 255
// bytes).
func (k Kind) Write(w io.Writer, name string, content []byte) error {
	if len(name) == 0 || len(name) > 255 {
		return fmt.Errorf("frame: name of %d bytes", len(name))
	}
	b := make([]byte, 0, len(k.Magic)+1+len(name)+8+len(content)+4)
	b = append(b, k.Magic[:]...)
	b = append(b, byte(len(name)))
	b = append(b, name...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(content)))
	b = append(b, content...)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	_, err := w.Write(b)
	return err
}

// Read reads one frame of kind k from r, no further than its end, checks
// it and returns its name and content. A truncated, altered or foreign
// stream is an error saying which, in one line; a frame of an older build
// wraps ErrOlder.
func (k Kind) Read(r io.Reader) (name string, content []byte, err error) {
	var head [len(k.Magic) + 1]byte
	n, err := io.ReadFull(r, head[:])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", nil, err
	}
	if n >= len(k.Magic) {
		for _, old := range k.Older {
			if bytes.Equal(head[:len(k.Magic)], old[:]) {
				return "", nil, ErrOlder
			}
		}
	}
	switch {
	case n < len(k.Magic) || !bytes.Equal(head[:len(k.Magic)], k.Magic[:]):
		return "", nil, fmt.Errorf("not a %s (no %s header)", k.What, k.What)
	case n < len(head):
		return "", nil, fmt.Errorf("corrupt %s: truncated", k.What)
	}
	var buf bytes.Buffer
	buf.Write(head[:])
	rest := int64(head[len(k.Magic)]) + 8
	if m, err := io.CopyN(&buf, r, rest); err != nil {
		if errors.Is(err, io.EOF) {
			return "", nil, fmt.Errorf("corrupt %s: truncated (%d of %d header bytes)", k.What, m, rest)
		}
		return "", nil, err
	}
	b := buf.Bytes()
	name = string(b[len(head) : len(b)-8])
	size := binary.LittleEndian.Uint64(b[len(b)-8:])
	// Copied, not allocated from size: a corrupt size must not allocate.
	if m, err := io.CopyN(&buf, r, int64(min(size, 1<<62))+4); err != nil {
		if errors.Is(err, io.EOF) {
			return "", nil, fmt.Errorf("corrupt %s: truncated (%d bytes of content, %d announced)", k.What, max(m-4, 0), size)
		}
		return "", nil, err
	}
	b = buf.Bytes()
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return "", nil, fmt.Errorf("corrupt %s: checksum mismatch (the file was altered or damaged)", k.What)
	}
	return name, body[len(head)+len(name)+8:], nil
}
