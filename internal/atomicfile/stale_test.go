package atomicfile

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestIsTempName(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{".out.json.123.tmp", true},
		{".out.json.0.tmp", true},
		{".out.json..tmp", false},
		{".out.json.12a.tmp", false},
		{".out.json.123.tmp.x", false},
		{"out.json.123.tmp", false},
		{".out.jsonx.123.tmp", false},
		{".other.json.123.tmp", false},
	} {
		if got := isTempName(tc.name, "out.json"); got != tc.want {
			t.Errorf("isTempName(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// names returns the sorted names in dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// The next write removes the temporary files of its destination that no
// writer holds, and only those (issue 22, item 13).
func TestWriteFileRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	for _, name := range []string{".out.json.111.tmp", ".out.json.222.tmp", ".out.json.x.tmp", ".other.json.333.tmp", "keep.tmp"} {
		os.WriteFile(filepath.Join(dir, name), []byte("left"), 0o644)
	}
	// A live writer's file: locked.
	live, err := os.Open(filepath.Join(dir, ".out.json.222.tmp"))
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	lock(live)
	if err := WriteFile(path, 0o644, writeString("new")); err != nil {
		t.Fatal(err)
	}
	want := []string{".other.json.333.tmp", ".out.json.222.tmp", ".out.json.x.tmp", "keep.tmp", "out.json"}
	if got := names(t, dir); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("folder holds %v, want %v", got, want)
	}
}

// TestHelperKilledWriter is not a test: TestWriteFileAfterSIGKILL runs the
// test binary with it to have a writer killed in the middle of a write.
func TestHelperKilledWriter(t *testing.T) {
	path := os.Getenv("ATOMICFILE_KILLED_WRITER")
	if path == "" {
		t.Skip("helper process")
	}
	WriteFile(path, 0o644, func(w io.Writer) error {
		io.WriteString(w, "partial")
		fmt.Println("writing")
		os.Stdout.Sync()
		time.Sleep(time.Minute)
		return nil
	})
}

// A writer killed by SIGKILL leaves its temporary file; the next write of
// the same path removes it and leaves only the destination.
func TestWriteFileAfterSIGKILL(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ck.bin")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperKilledWriter$")
	cmd.Env = append(os.Environ(), "ATOMICFILE_KILLED_WRITER="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 7)
	if _, err := io.ReadFull(out, buf); err != nil || string(buf) != "writing" {
		cmd.Process.Kill()
		t.Fatalf("helper: %q, %v", buf, err)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	left := names(t, dir)
	if len(left) != 1 || !isTempName(left[0], "ck.bin") {
		t.Fatalf("after SIGKILL the folder holds %v, want one temporary file", left)
	}
	if err := WriteFile(path, 0o644, writeString("whole")); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); len(got) != 1 || got[0] != "ck.bin" {
		t.Errorf("after the next write the folder holds %v, want only ck.bin", got)
	}
}

// Writers of one path at the same time never remove each other's
// temporary files: every write succeeds, the file holds one whole content.
func TestWriteFileConcurrent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	const writers, writes = 4, 25
	var wg sync.WaitGroup
	errs := make(chan error, writers*writes)
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			content := strings.Repeat(fmt.Sprint(g), 1000)
			for range writes {
				errs <- WriteFile(path, 0o644, writeString(content))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(path)
	if len(b) != 1000 || strings.Count(string(b), string(b[:1])) != 1000 {
		t.Errorf("content of %d bytes mixes writers", len(b))
	}
	if got := names(t, dir); len(got) != 1 {
		t.Errorf("folder holds %v", got)
	}
}
