package core

import (
	"encoding/gob"
	"fmt"
	"io"
	"math/rand/v2"
)

// WriteCheckpoint ends a solver's Save: it writes the checkpoint c (a
// pointer to the solver's checkpoint struct) with gob. pkg names the
// solver's package in errors.
func WriteCheckpoint(w io.Writer, pkg string, c any) error {
	if err := gob.NewEncoder(w).Encode(c); err != nil {
		return fmt.Errorf("%s: save: %w", pkg, err)
	}
	return nil
}

// ReadCheckpoint begins a solver's Load: it decodes the checkpoint c (a
// pointer to the solver's checkpoint struct) from r and checks that its
// version, read by version once decoded, is one this build reads (lo to
// hi).
func ReadCheckpoint(r io.Reader, pkg string, c any, version func() int, lo, hi int) error {
	if err := gob.NewDecoder(r).Decode(c); err != nil {
		return fmt.Errorf("%s: load: not a readable checkpoint: %w", pkg, err)
	}
	if v := version(); v < lo || v > hi {
		reads := fmt.Sprint(hi)
		if lo != hi {
			reads = fmt.Sprintf("%d to %d", lo, hi)
		}
		if v >= 1 && v < lo {
			return fmt.Errorf("%s: load: checkpoint version %d of an older build, which recorded too little to check it against the data (this build reads %s): start the run again", pkg, v, reads)
		}
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
