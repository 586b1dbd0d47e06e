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

// TestCheckpointFrame: a framed checkpoint reads back; every single-bit
// flip and every truncation is refused before decoding; an older build's
// bare gob stream is named as such; the reader stops at the frame's end.
func TestCheckpointFrame(t *testing.T) {
	in := testState{Version: 2, X: []float64{1, -2.5, 3e-7}, Name: "state"}
	var buf bytes.Buffer
	if err := WriteCheckpoint(&buf, "test", &in); err != nil {
		t.Fatal(err)
	}
	saved := append([]byte(nil), buf.Bytes()...)
	read := func(b []byte) (testState, error) {
		var c testState
		err := ReadCheckpoint(bytes.NewReader(b), "test", &c, func() int { return c.Version }, 2, 2)
		return c, err
	}
	r := bytes.NewReader(append(append([]byte(nil), saved...), "trailing"...))
	var out testState
	err := ReadCheckpoint(r, "test", &out, func() int { return out.Version }, 2, 2)
	if err != nil || out.Name != in.Name || len(out.X) != 3 || out.X[2] != in.X[2] || r.Len() != len("trailing") {
		t.Fatalf("read back %+v, %v, %d bytes left", out, err, r.Len())
	}
	for bit := 0; bit < 8*len(saved); bit++ {
		b := append([]byte(nil), saved...)
		b[bit/8] ^= 1 << (bit % 8)
		if _, err := read(b); err == nil {
			t.Fatalf("bit %d flipped: accepted", bit)
		}
	}
	for n := 0; n < len(saved); n++ {
		if _, err := read(saved[:n]); err == nil {
			t.Fatalf("truncated to %d bytes: accepted", n)
		}
	}
	var bare bytes.Buffer
	if err := gob.NewEncoder(&bare).Encode(&testState{Version: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := read(bare.Bytes()); err == nil || !strings.Contains(err.Error(), "checkpoint version 1 of an older build") {
		t.Fatalf("bare gob: %v", err)
	}
	if _, err := read([]byte("not a checkpoint at all")); err == nil || !strings.Contains(err.Error(), "not a readable checkpoint") {
		t.Fatalf("garbage: %v", err)
	}
}
