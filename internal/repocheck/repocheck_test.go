package repocheck

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// maxSize is the largest file the repository may track outside testdata/.
const maxSize = 1 << 20

// entry is one file of the index: its mode (100644, 100755, 120000 for a
// symbolic link, 160000 for a submodule) and its slash-separated path.
type entry struct{ mode, path string }

// moduleRoot walks up from the working directory (the package's folder
// under go test) to the folder holding go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// trackedFiles returns the module root and the files git tracks there,
// skipping the test when git or the root's .git (a folder, or a file in a
// worktree) is absent.
func trackedFiles(t *testing.T) (root string, files []entry) {
	t.Helper()
	root = moduleRoot(t)
	if _, err := os.Lstat(filepath.Join(root, ".git")); err != nil {
		t.Skipf("not a git checkout (%v): the tracked files cannot be listed", err)
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skipf("git not found (%v): the tracked files cannot be listed", err)
	}
	cmd := exec.Command(git, "-C", root, "ls-files", "-s", "-z")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files -s in %s: %v\n%s", root, err, stderr.Bytes())
	}
	files, err = parseLsFiles(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("git ls-files lists no file in %s", root)
	}
	return root, files
}

// parseLsFiles parses the output of git ls-files -s -z: records
// "MODE OBJECT STAGE\tPATH" ended by NUL bytes.
func parseLsFiles(out []byte) ([]entry, error) {
	var files []entry
	for _, rec := range strings.Split(string(out), "\x00") {
		if rec == "" {
			continue
		}
		meta, p, ok := strings.Cut(rec, "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 3 || p == "" {
			return nil, fmt.Errorf("git ls-files -s: cannot read the record %q", rec)
		}
		files = append(files, entry{mode: fields[0], path: p})
	}
	return files, nil
}

// inTestdata reports whether a slash-separated path lies in a testdata
// folder.
func inTestdata(p string) bool {
	for _, dir := range strings.Split(path.Dir(p), "/") {
		if dir == "testdata" {
			return true
		}
	}
	return false
}

// nativeFormat returns the name of the native-binary format of a file
// whose first bytes are head (at least 64 when the file is that long),
// reading further through r when the format says where to look, or "" for
// anything else.
func nativeFormat(head []byte, r io.ReaderAt) string {
	has := func(magic string) bool { return bytes.HasPrefix(head, []byte(magic)) }
	switch {
	case has("\x7fELF"):
		return "ELF"
	case has("\xfe\xed\xfa\xce"), has("\xce\xfa\xed\xfe"), has("\xfe\xed\xfa\xcf"), has("\xcf\xfa\xed\xfe"):
		return "Mach-O"
	case has("\xca\xfe\xba\xbe"), has("\xbe\xba\xfe\xca"):
		return "Mach-O universal (or Java class)"
	case has("\x00asm"):
		return "WebAssembly"
	case has("!<arch>\n"):
		return "ar archive (static library, Go package archive)"
	case has("MZ") && len(head) >= 64:
		// A PE image: "PE\0\0" at the offset stored at 0x3c.
		var sig [4]byte
		off := int64(binary.LittleEndian.Uint32(head[0x3c:]))
		if _, err := r.ReadAt(sig[:], off); err == nil && string(sig[:]) == "PE\x00\x00" {
			return "PE (Windows)"
		}
		if bytes.IndexByte(head[:64], 0) >= 0 {
			return "MS-DOS MZ"
		}
	}
	return ""
}

// problem returns what is wrong with a tracked file (empty when nothing
// is): a native binary, an executable bit on a file that is not a #!
// script, more than maxSize bytes outside testdata/.
func problem(e entry, size int64, r io.ReaderAt) (string, error) {
	head := make([]byte, 64)
	n, err := r.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	head = head[:n]
	var why []string
	if f := nativeFormat(head, r); f != "" {
		why = append(why, "a native executable or object ("+f+")")
	} else if e.mode == "100755" && !bytes.HasPrefix(head, []byte("#!")) {
		why = append(why, "has the executable bit but is not a script starting with #!")
	}
	if size > maxSize && !inTestdata(e.path) {
		why = append(why, fmt.Sprintf("%d bytes, over the limit of %d outside a testdata/ folder", size, maxSize))
	}
	return strings.Join(why, "; "), nil
}

// TestTrackedFiles fails on every tracked file that is an executable or
// too large: build outputs and data do not belong in the repository.
func TestTrackedFiles(t *testing.T) {
	root, files := trackedFiles(t)
	checked := 0
	for _, e := range files {
		if e.mode != "100644" && e.mode != "100755" {
			continue // a symbolic link or a submodule: no content of its own here
		}
		f, err := os.Open(filepath.Join(root, filepath.FromSlash(e.path)))
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted from the work tree, not yet from the index
		}
		if err != nil {
			t.Error(err)
			continue
		}
		st, err := f.Stat()
		var why string
		if err == nil {
			why, err = problem(e, st.Size(), f)
		}
		f.Close()
		if err != nil {
			t.Errorf("%s: %v", e.path, err)
			continue
		}
		checked++
		if why != "" {
			t.Errorf("%s (mode %s): %s; remove it from the repository (git rm --cached) and ignore it in .gitignore", e.path, e.mode, why)
		}
	}
	if checked == 0 {
		t.Fatalf("none of the %d tracked files could be checked", len(files))
	}
}

// TestProblem checks the rules on made-up files.
func TestProblem(t *testing.T) {
	pe := make([]byte, 0x90)
	copy(pe, "MZ\x90\x00")
	binary.LittleEndian.PutUint32(pe[0x3c:], 0x80)
	copy(pe[0x80:], "PE\x00\x00")
	big := bytes.Repeat([]byte("x"), maxSize+1)
	for _, tc := range []struct {
		name, mode, path string
		content          []byte
		want             string // a part of the problem; "" for none
	}{
		{"Go source", "100644", "a/b.go", []byte("package b\n"), ""},
		{"empty", "100644", "empty", nil, ""},
		{"script", "100755", ".ci/run", []byte("#!/usr/bin/env bash\nmake test\n"), ""},
		{"executable text", "100755", "notes.txt", []byte("not a script\n"), "executable bit"},
		{"executable empty", "100755", "x", nil, "executable bit"},
		{"ELF", "100755", "appendixfigs", append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 100)...), "ELF"},
		{"ELF without the bit", "100644", "tool", append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 100)...), "ELF"},
		{"Mach-O 64", "100644", "tool", append([]byte("\xcf\xfa\xed\xfe"), make([]byte, 60)...), "Mach-O"},
		{"Mach-O universal", "100644", "tool", append([]byte("\xca\xfe\xba\xbe"), make([]byte, 60)...), "universal"},
		{"PE", "100644", "tool.exe", pe, "PE"},
		{"DOS", "100644", "tool.com", append([]byte("MZ\x00\x01"), make([]byte, 60)...), "MZ"},
		{"text starting with MZ", "100644", "names.txt", []byte("MZ is a name, and this text is long enough to look at its header bytes\n"), ""},
		{"wasm", "100644", "main.wasm", []byte("\x00asm\x01\x00\x00\x00"), "WebAssembly"},
		{"archive", "100644", "lib.a", []byte("!<arch>\n__.PKGDEF"), "ar archive"},
		{"gzip data", "100644", "datasets/testdata/x.gz", []byte("\x1f\x8b\x08\x00"), ""},
		{"large", "100644", "data/big.json", big, "over the limit"},
		{"large in testdata", "100644", "viz/testdata/big.json", big, ""},
		{"large in nested testdata", "100644", "a/testdata/b/big.json", big, ""},
		{"large named testdata", "100644", "testdata.json", big, "over the limit"},
		{"large binary", "100755", "fwstruct", append([]byte("\x7fELF"), big...), "ELF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := problem(entry{tc.mode, tc.path}, int64(len(tc.content)), bytes.NewReader(tc.content))
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("problem = %q, want %q", got, tc.want)
			}
		})
	}
	if got, _ := problem(entry{"100755", "fwstruct"}, maxSize+1, bytes.NewReader(append([]byte("\x7fELF"), big...))); !strings.Contains(got, "over the limit") {
		t.Errorf("a large binary reports only %q", got)
	}
}

func TestParseLsFiles(t *testing.T) {
	out := []byte("100644 0123 0\tREADME.md\x00100755 4567 0\t.ci/run\x00120000 89ab 0\tlink with space\x00")
	got, err := parseLsFiles(out)
	if err != nil {
		t.Fatal(err)
	}
	want := []entry{{"100644", "README.md"}, {"100755", ".ci/run"}, {"120000", "link with space"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if _, err := parseLsFiles([]byte("100644 0123\tREADME.md\x00")); err == nil {
		t.Error("a record without a stage was accepted")
	}
}
