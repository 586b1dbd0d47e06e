package frame

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

var other = Kind{Magic: [8]byte{'t', 'e', 's', 't', 'k', 'i', 'n', 'd'}, What: "test file"}

// TestRoundTrip: what Write frames, Read returns, reading no further than
// the frame's end.
func TestRoundTrip(t *testing.T) {
	for _, k := range []Kind{Checkpoint, other} {
		for _, content := range [][]byte{nil, []byte("x"), bytes.Repeat([]byte{0, 1, 2}, 1000)} {
			var buf bytes.Buffer
			if err := k.Write(&buf, "bcfw", content); err != nil {
				t.Fatal(err)
			}
			buf.WriteString("after")
			name, got, err := k.Read(&buf)
			if err != nil || name != "bcfw" || !bytes.Equal(got, content) {
				t.Fatalf("%s: read %q, %d bytes, %v", k.What, name, len(got), err)
			}
			if buf.String() != "after" {
				t.Fatalf("%s: read beyond the frame", k.What)
			}
		}
	}
}

// TestRefused: every flipped bit, every truncation, a frame of another kind
// and one of an older build are refused with a one-line error naming the
// kind.
func TestRefused(t *testing.T) {
	var buf bytes.Buffer
	if err := other.Write(&buf, "name", []byte("some content of a few bytes")); err != nil {
		t.Fatal(err)
	}
	saved := buf.Bytes()
	check := func(what string, b []byte) {
		t.Helper()
		_, _, err := other.Read(bytes.NewReader(b))
		if err == nil {
			t.Fatalf("%s: accepted", what)
		}
		if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "test file") {
			t.Fatalf("%s: %q is not one line naming the kind", what, msg)
		}
	}
	flipped := make([]byte, len(saved))
	for bit := 0; bit < 8*len(saved); bit++ {
		copy(flipped, saved)
		flipped[bit/8] ^= 1 << (bit % 8)
		check("a flipped bit", flipped)
	}
	for n := range saved {
		check("truncated", saved[:n])
	}
	buf.Reset()
	if err := Checkpoint.Write(&buf, "name", []byte("content")); err != nil {
		t.Fatal(err)
	}
	check("another kind", buf.Bytes())
	old := append(Checkpoint.Older[0][:], make([]byte, 40)...)
	if _, _, err := Checkpoint.Read(bytes.NewReader(old)); !errors.Is(err, ErrOlder) {
		t.Fatalf("an older frame: %v", err)
	}
	if err := other.Write(&buf, "", nil); err == nil {
		t.Fatal("an empty name was written")
	}
}
