// Package frame is the container of every solver checkpoint: the magic
// bytes, the name of the method that wrote it, the length of the state,
// the state, and the CRC-32C (Castagnoli) of everything before the CRC,
// as written. A CRC detects every error of up to 5 bits in messages of
// this size and any burst of up to 32, so a flipped bit never decodes, and
// the method's name is inside the checksummed bytes, so a frame cannot be
// relabelled or spliced without the check failing.
//
// Layout: magic (8 bytes) | name length (1 byte) | name | state length (8
// bytes, little-endian) | state | CRC-32C (4 bytes, little-endian).
package frame

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// magic opens a frame; its last byte is the frame's version.
var magic = [8]byte{'f', 'w', 's', 't', 'a', 't', 'e', 2}

// olderMagic opened the frames of fwstruct builds before the method
// types, which did not name their method.
var olderMagic = [8]byte{'f', 'w', 's', 't', 'a', 't', 'e', 1}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrOlder marks a checkpoint written by an older fwstruct, whose state
// this build cannot read.
var ErrOlder = errors.New("made by an older fwstruct: train again")

// Write writes state framed, under the method's name (at most 255 bytes).
func Write(w io.Writer, name string, state []byte) error {
	if len(name) == 0 || len(name) > 255 {
		return fmt.Errorf("frame: method name of %d bytes", len(name))
	}
	b := make([]byte, 0, len(magic)+1+len(name)+8+len(state)+4)
	b = append(b, magic[:]...)
	b = append(b, byte(len(name)))
	b = append(b, name...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(state)))
	b = append(b, state...)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	_, err := w.Write(b)
	return err
}

// Read reads one frame from r, no further than its end, checks it and
// returns the method's name and the state. A truncated, altered or
// foreign stream is an error saying which; a frame of an older build
// wraps ErrOlder.
func Read(r io.Reader) (name string, state []byte, err error) {
	var head [len(magic) + 1]byte
	n, err := io.ReadFull(r, head[:])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", nil, err
	}
	switch {
	case n >= len(magic) && bytes.Equal(head[:len(magic)], olderMagic[:]):
		return "", nil, ErrOlder
	case n < len(magic) || !bytes.Equal(head[:len(magic)], magic[:]):
		return "", nil, errors.New("not a checkpoint (no checkpoint header)")
	case n < len(head):
		return "", nil, errors.New("corrupt checkpoint: truncated")
	}
	var buf bytes.Buffer
	buf.Write(head[:])
	rest := int64(head[len(magic)]) + 8
	if m, err := io.CopyN(&buf, r, rest); err != nil {
		if errors.Is(err, io.EOF) {
			return "", nil, fmt.Errorf("corrupt checkpoint: truncated (%d of %d header bytes)", m, rest)
		}
		return "", nil, err
	}
	b := buf.Bytes()
	name = string(b[len(head) : len(b)-8])
	size := binary.LittleEndian.Uint64(b[len(b)-8:])
	// Copied, not allocated from size: a corrupt size must not allocate.
	if m, err := io.CopyN(&buf, r, int64(min(size, 1<<62))+4); err != nil {
		if errors.Is(err, io.EOF) {
			return "", nil, fmt.Errorf("corrupt checkpoint: truncated (%d bytes of state, %d announced)", max(m-4, 0), size)
		}
		return "", nil, err
	}
	b = buf.Bytes()
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return "", nil, errors.New("corrupt checkpoint: checksum mismatch (the file was altered or damaged)")
	}
	return name, body[len(head)+len(name)+8:], nil
}
