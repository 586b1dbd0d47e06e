package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	write := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	if err := WriteFile(path, 0o640, write("first")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "first" {
		t.Fatalf("content %q", b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v, want 0640", fi.Mode())
	}
	// A failing writer leaves the old content and no temporary file.
	boom := errors.New("boom")
	err := WriteFile(path, 0o644, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "first" {
		t.Fatalf("content after a failed write %q", b)
	}
	// Replacing keeps the mode of the replaced file.
	if err := WriteFile(path, 0o600, write("second")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v after replacing, want 0640", fi.Mode())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("folder holds %d entries, want only out.json", len(entries))
	}
}

func TestCheckWritable(t *testing.T) {
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro")
	os.Mkdir(ro, 0o555)
	cases := []struct {
		path string
		want string // "" for success
	}{
		{filepath.Join(dir, "new.json"), ""},
		{dir, "is a folder"},
		{filepath.Join(dir, "missing", "x.json"), "no such file"},
	}
	if os.Geteuid() != 0 { // root writes anywhere
		cases = append(cases, struct{ path, want string }{filepath.Join(ro, "x.json"), "permission denied"})
	}
	for _, tc := range cases {
		err := CheckWritable(tc.path)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.path, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.path)):
			t.Errorf("%s: error %v, want one naming the path and saying %q", tc.path, err, tc.want)
		}
		if tc.want != "" {
			if err := WriteFile(tc.path, 0o644, func(io.Writer) error { return nil }); err == nil {
				t.Errorf("%s: WriteFile succeeded where CheckWritable fails", tc.path)
			}
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("CheckWritable left files behind: %v", entries)
	}
}
