package core

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/fwstruct/fwstruct/internal/frame"
)

// WriteCheckpoint ends a solver's Save: it writes the checkpoint c (a
// pointer to the solver's checkpoint struct) with gob, in a frame under the
// name of the method that wrote it (package frame: checksummed, the name
// inside the checksum). pkg names the solver's package in errors.
func WriteCheckpoint(w io.Writer, pkg, method string, c any) error {
	var body bytes.Buffer
	if err := gob.NewEncoder(&body).Encode(c); err != nil {
		return fmt.Errorf("%s: save: %w", pkg, err)
	}
	if err := frame.Checkpoint.Write(w, method, body.Bytes()); err != nil {
		return fmt.Errorf("%s: save: %w", pkg, err)
	}
	return nil
}

// ReadCheckpoint begins a solver's Load: it checks the frame of a
// checkpoint written by WriteCheckpoint, reading no further than its end,
// decodes the checkpoint c (a pointer to the solver's checkpoint struct),
// checks that its version, read by version once decoded, is one this
// build reads (lo to hi), and returns the name of the method that wrote it.
func ReadCheckpoint(r io.Reader, pkg string, c any, version func() int, lo, hi int) (string, error) {
	reads := fmt.Sprint(hi)
	if lo != hi {
		reads = fmt.Sprintf("%d to %d", lo, hi)
	}
	name, state, err := frame.Checkpoint.Read(r)
	if errors.Is(err, frame.ErrOlder) {
		return "", fmt.Errorf("%s: load: checkpoint %w", pkg, err)
	}
	if err != nil {
		return "", fmt.Errorf("%s: load: %w", pkg, err)
	}
	if err := gob.NewDecoder(bytes.NewReader(state)).Decode(c); err != nil {
		return "", fmt.Errorf("%s: load: not a readable checkpoint: %w", pkg, err)
	}
	if v := version(); v < lo || v > hi {
		return "", fmt.Errorf("%s: load: checkpoint version %d (this build reads %s): made by an older fwstruct: train again", pkg, v, reads)
	}
	return name, nil
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
