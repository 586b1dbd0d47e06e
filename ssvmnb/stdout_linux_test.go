package ssvmnb

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestDrainStdout: a display waits until what the cell printed has been
// read from the pipe of its standard output (issue 34 item 8: a Printf
// before ShowPredictions appeared after it), returns at once when nothing
// is pending or the output is no pipe, and gives up after drainLimit when
// nobody reads.
func TestDrainStdout(t *testing.T) {
	oldOut, oldLimit := stdout, drainLimit
	t.Cleanup(func() { stdout, drainLimit = oldOut, oldLimit })
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	stdout = w

	start := time.Now()
	drainStdout()
	if d := time.Since(start); d > 10*time.Millisecond {
		t.Errorf("nothing pending: waited %v", d)
	}

	if _, err := w.WriteString("pass 10: gap 0.31\n"); err != nil {
		t.Fatal(err)
	}
	if n, ok := unread(w); !ok || n != 18 {
		t.Fatalf("unread = %d, %v; want 18 bytes of a pipe", n, ok)
	}
	const delay = 50 * time.Millisecond
	go func() {
		time.Sleep(delay)
		buf := make([]byte, 64)
		r.Read(buf)
	}()
	start = time.Now()
	drainStdout()
	if d := time.Since(start); d < delay {
		t.Errorf("returned after %v, before the reader read (after %v)", d, delay)
	}
	if n, _ := unread(w); n != 0 {
		t.Errorf("%d bytes unread on return", n)
	}

	drainLimit = 30 * time.Millisecond
	w.WriteString("nobody reads this\n")
	start = time.Now()
	drainStdout()
	if d := time.Since(start); d < drainLimit || d > drainLimit+500*time.Millisecond {
		t.Errorf("nobody reading: waited %v, want about %v", d, drainLimit)
	}

	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stdout = f // a regular file (output redirected): nothing to wait for
	f.WriteString("printed\n")
	start = time.Now()
	drainStdout()
	if d := time.Since(start); d > 10*time.Millisecond {
		t.Errorf("a file: waited %v", d)
	}
}
