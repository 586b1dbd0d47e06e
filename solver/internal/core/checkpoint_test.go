package core

import (
	"bytes"
	"encoding/gob"
	"strings"
	"testing"
)

type testState struct {
	Version int
	X       []float64
	Name    string
}

// TestCheckpointFrame: a framed checkpoint reads back with the name of its
// method; every single-bit flip (the method's name included) and every
// truncation is refused before decoding; an older build's bare gob stream,
// an older frame and another state version say an older fwstruct made
// them; the reader stops at the frame's end.
func TestCheckpointFrame(t *testing.T) {
	in := testState{Version: 2, X: []float64{1, -2.5, 3e-7}, Name: "state"}
	var buf bytes.Buffer
	if err := WriteCheckpoint(&buf, "test", "bcfw", &in); err != nil {
		t.Fatal(err)
	}
	saved := append([]byte(nil), buf.Bytes()...)
	read := func(b []byte) (testState, string, error) {
		var c testState
		name, err := ReadCheckpoint(bytes.NewReader(b), "test", &c, func() int { return c.Version }, 2, 2)
		return c, name, err
	}
	r := bytes.NewReader(append(append([]byte(nil), saved...), "trailing"...))
	var out testState
	name, err := ReadCheckpoint(r, "test", &out, func() int { return out.Version }, 2, 2)
	if err != nil || name != "bcfw" || out.Name != in.Name || len(out.X) != 3 || out.X[2] != in.X[2] || r.Len() != len("trailing") {
		t.Fatalf("read back %+v of %q, %v, %d bytes left", out, name, err, r.Len())
	}
	for bit := 0; bit < 8*len(saved); bit++ {
		b := append([]byte(nil), saved...)
		b[bit/8] ^= 1 << (bit % 8)
		if _, _, err := read(b); err == nil {
			t.Fatalf("bit %d flipped: accepted", bit)
		}
	}
	for n := 0; n < len(saved); n++ {
		if _, _, err := read(saved[:n]); err == nil {
			t.Fatalf("truncated to %d bytes: accepted", n)
		}
	}
	var bare bytes.Buffer
	if err := gob.NewEncoder(&bare).Encode(&testState{Version: 1}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := read(bare.Bytes()); err == nil || !strings.Contains(err.Error(), "not a checkpoint") {
		t.Fatalf("bare gob: %v", err)
	}
	older := append([]byte("fwstate\x01"), saved[8:]...)
	if _, _, err := read(older); err == nil || !strings.Contains(err.Error(), "made by an older fwstruct: train again") {
		t.Fatalf("older frame: %v", err)
	}
	buf.Reset()
	if err := WriteCheckpoint(&buf, "test", "bcfw", &testState{Version: 1}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := read(buf.Bytes()); err == nil || !strings.Contains(err.Error(), "checkpoint version 1") || !strings.Contains(err.Error(), "made by an older fwstruct") {
		t.Fatalf("older state version: %v", err)
	}
	if _, _, err := read([]byte("not a checkpoint at all")); err == nil || !strings.Contains(err.Error(), "not a checkpoint") {
		t.Fatalf("garbage: %v", err)
	}
}
