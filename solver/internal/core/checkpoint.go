package core

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
)

// A checkpoint file of every solver family is framed so that corruption is
// detected before the state is decoded: the magic bytes, the length of the
// gob-encoded state as 8 bytes little-endian, the state, and the CRC-32C
// (Castagnoli) of everything before it, 4 bytes little-endian. A CRC
// detects every error of up to 5 bits in messages of this size and any
// burst of up to 32, so a flipped bit never decodes. Checkpoints of older
// builds are the bare gob stream, without the frame.
var checkpointMagic = [8]byte{'f', 'w', 's', 't', 'a', 't', 'e', 1}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// WriteCheckpoint ends a solver's Save: it writes the checkpoint c (a
// pointer to the solver's checkpoint struct) with gob, framed and
// checksummed. pkg names the solver's package in errors.
func WriteCheckpoint(w io.Writer, pkg string, c any) error {
	var body bytes.Buffer
	body.Write(checkpointMagic[:])
	body.Write(make([]byte, 8))
	if err := gob.NewEncoder(&body).Encode(c); err != nil {
		return fmt.Errorf("%s: save: %w", pkg, err)
	}
	b := body.Bytes()
	binary.LittleEndian.PutUint64(b[len(checkpointMagic):], uint64(len(b)-16))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("%s: save: %w", pkg, err)
	}
	return nil
}

// ReadCheckpoint begins a solver's Load: it checks the frame and checksum
// of a checkpoint written by WriteCheckpoint, decodes the checkpoint c (a
// pointer to the solver's checkpoint struct) from r, reading no further
// than its end, and checks that its version, read by version once decoded,
// is one this build reads (lo to hi).
func ReadCheckpoint(r io.Reader, pkg string, c any, version func() int, lo, hi int) error {
	reads := fmt.Sprint(hi)
	if lo != hi {
		reads = fmt.Sprintf("%d to %d", lo, hi)
	}
	var head [16]byte
	n, err := io.ReadFull(r, head[:])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: load: %w", pkg, err)
	}
	if n < len(checkpointMagic) || !bytes.Equal(head[:len(checkpointMagic)], checkpointMagic[:]) {
		// An older build's bare gob stream, or not a checkpoint.
		var old struct{ Version int }
		if gob.NewDecoder(io.MultiReader(bytes.NewReader(head[:n]), r)).Decode(&old) == nil && old.Version >= 1 {
			return fmt.Errorf("%s: load: checkpoint version %d of an older build, which recorded too little to check it against the data and for corruption (this build reads %s): start the run again", pkg, old.Version, reads)
		}
		return fmt.Errorf("%s: load: not a readable checkpoint (no checkpoint header)", pkg)
	}
	if n < len(head) {
		return fmt.Errorf("%s: load: corrupt checkpoint: truncated", pkg)
	}
	size := binary.LittleEndian.Uint64(head[len(checkpointMagic):])
	var buf bytes.Buffer
	buf.Write(head[:])
	// Copied, not allocated from size: a corrupt size must not allocate.
	if m, err := io.CopyN(&buf, r, int64(min(size, 1<<62))+4); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%s: load: corrupt checkpoint: truncated (%d bytes of state, %d announced)", pkg, max(m-4, 0), size)
		}
		return fmt.Errorf("%s: load: %w", pkg, err)
	}
	b := buf.Bytes()
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return fmt.Errorf("%s: load: corrupt checkpoint: checksum mismatch (the file was altered or damaged)", pkg)
	}
	dec := gob.NewDecoder(bytes.NewReader(body[len(head):]))
	if err := dec.Decode(c); err != nil {
		return fmt.Errorf("%s: load: not a readable checkpoint: %w", pkg, err)
	}
	if v := version(); v < lo || v > hi {
		return fmt.Errorf("%s: load: checkpoint version %d, this build reads %s", pkg, v, reads)
	}
	return nil
}

// RandomState returns the state of a solver's random generator for its
// checkpoint.
func RandomState(pkg string, pcg *rand.PCG) ([]byte, error) {
	b, err := pcg.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("%s: save: %w", pkg, err)
	}
	return b, nil
}
