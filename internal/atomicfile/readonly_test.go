//go:build unix

package atomicfile

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadOnlyRefused: a file without write permission is neither
// replaced nor accepted by CheckWritable (even for root, who could).
func TestReadOnlyRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kept.json")
	if err := os.WriteFile(path, []byte("kept"), 0o444); err != nil {
		t.Fatal(err)
	}
	write := func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }
	for name, err := range map[string]error{"CheckWritable": CheckWritable(path), "WriteFile": WriteFile(path, 0o644, write)} {
		if err == nil || !strings.Contains(err.Error(), "read-only (mode 0444)") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != "kept" {
		t.Errorf("the read-only file now holds %q", b)
	}
}

// TestPipeWithoutReaderGivesUp: a write to a named pipe that has no reader
// waits for one and gives up when its context is done; with a reader it
// goes through.
func TestPipeWithoutReaderGivesUp(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	write := func(w io.Writer) error { _, err := io.WriteString(w, "hello"); return err }
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := WriteFileContext(ctx, fifo, 0o644, write)
	if err == nil || !strings.Contains(err.Error(), "without a reader") || time.Since(start) > 5*time.Second {
		t.Fatalf("no reader: %v after %v", err, time.Since(start))
	}
	got := make(chan string)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if err := WriteFileContext(context.Background(), fifo, 0o644, write); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "hello" {
		t.Fatalf("the reader got %q", s)
	}
}
