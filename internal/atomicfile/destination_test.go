package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// mustMode returns the type bits of the file at path, not following links.
func mustMode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Type()
}

// noTemps fails when a folder holds a temporary file of ours.
func noTemps(t *testing.T, dirs ...string) {
	t.Helper()
	for _, dir := range dirs {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".tmp") {
				t.Errorf("%s: temporary file %s left behind", dir, e.Name())
			}
		}
	}
}

// A symbolic link is followed: its target gets the content (and keeps its
// mode), the link stays a link (issue 22, item 1: the link was replaced by
// a regular file and its target left stale).
func TestWriteFileFollowsLinks(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	target := filepath.Join(other, "model.json")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		setup func() (path, target string)
	}{
		{"absolute link", func() (string, string) {
			link := filepath.Join(dir, "abs.json")
			os.Symlink(target, link)
			return link, target
		}},
		{"relative link into another folder", func() (string, string) {
			link := filepath.Join(dir, "rel.json")
			rel, _ := filepath.Rel(dir, target)
			os.Symlink(rel, link)
			return link, target
		}},
		{"chain of links", func() (string, string) {
			mid := filepath.Join(other, "mid.json")
			os.Symlink("model.json", mid)
			link := filepath.Join(dir, "chain.json")
			os.Symlink(mid, link)
			return link, target
		}},
		{"dangling link", func() (string, string) {
			link := filepath.Join(dir, "dangling.json")
			want := filepath.Join(other, "new.json")
			os.Symlink(want, link)
			return link, want
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path, want := tc.setup()
			if err := CheckWritable(path); err != nil {
				t.Fatalf("CheckWritable: %v", err)
			}
			content := "content of " + tc.name
			if err := WriteFile(path, 0o644, writeString(content)); err != nil {
				t.Fatal(err)
			}
			if m := mustMode(t, path); m != os.ModeSymlink {
				t.Errorf("%s is now %v, want a symbolic link still", path, m)
			}
			if b, _ := os.ReadFile(want); string(b) != content {
				t.Errorf("target %s holds %q, want %q", want, b, content)
			}
			if fi, _ := os.Stat(want); want == target && fi.Mode().Perm() != 0o600 {
				t.Errorf("target mode %v, want the replaced file's 0600", fi.Mode().Perm())
			}
			noTemps(t, dir, other)
		})
	}
}

// Folders (also behind a link), link loops and sockets are refused with the
// path named; nothing is written.
func TestWriteFileRefuses(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	os.Symlink(sub, filepath.Join(dir, "tosub"))
	os.Symlink("loop2", filepath.Join(dir, "loop1"))
	os.Symlink("loop1", filepath.Join(dir, "loop2"))
	sock := filepath.Join(dir, "s.sock")
	if fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0); err == nil {
		syscall.Bind(fd, &syscall.SockaddrUnix{Name: sock})
		defer syscall.Close(fd)
	}
	cases := []struct{ path, want string }{
		{sub, "it is a folder"},
		{filepath.Join(dir, "tosub"), "it is a link to " + sub + ", a folder"},
		{filepath.Join(dir, "loop1"), "symbolic links"},
		{sock, "it is a socket"},
	}
	for _, tc := range cases {
		for name, f := range map[string]func(string) error{
			"WriteFile":     func(p string) error { return WriteFile(p, 0o644, writeString("x")) },
			"CheckWritable": CheckWritable,
		} {
			err := f(tc.path)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.path) {
				t.Errorf("%s(%s): error %v, want one naming the path and saying %q", name, tc.path, err, tc.want)
			}
		}
	}
	if m := mustMode(t, sub); !m.IsDir() {
		t.Errorf("the folder became %v", m)
	}
	noTemps(t, dir, sub)
}

// A character device is written in place, never replaced (issue 22, item
// 1: as root, --model /dev/null replaced the device with the model).
func TestWriteFileDevice(t *testing.T) {
	dir := t.TempDir()
	dev := "/dev/null"
	if os.Geteuid() == 0 { // a null device of our own, so that a regression harms nothing
		dev = filepath.Join(dir, "null")
		if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
			t.Skipf("mknod: %v", err)
		}
	}
	link := filepath.Join(dir, "out.json")
	os.Symlink(dev, link)
	for _, p := range []string{dev, link} {
		if err := CheckWritable(p); err != nil {
			t.Errorf("CheckWritable(%s): %v", p, err)
		}
		if err := WriteFile(p, 0o644, writeString("model")); err != nil {
			t.Errorf("WriteFile(%s): %v", p, err)
		}
	}
	if m := mustMode(t, dev); m&os.ModeCharDevice == 0 {
		t.Errorf("%s is now %v, want the character device still", dev, m)
	}
	if m := mustMode(t, link); m != os.ModeSymlink {
		t.Errorf("%s is now %v, want a link still", link, m)
	}
	noTemps(t, dir)
}

// A named pipe is written in place: a reader on the other end gets the
// content, and the pipe is still a pipe.
func TestWriteFilePipe(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "out.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := CheckWritable(fifo); err != nil { // must not block: the pipe is not opened
		t.Fatal(err)
	}
	got := make(chan string)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	if err := WriteFile(fifo, 0o644, writeString("through the pipe")); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-got:
		if s != "through the pipe" {
			t.Errorf("reader got %q", s)
		}
	case <-time.After(10 * time.Second):
		t.Error("the reader of the pipe got nothing: the pipe was replaced")
	}
	if m := mustMode(t, fifo); m&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe is now %v", m)
	}
	noTemps(t, dir)
}
