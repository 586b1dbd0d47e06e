package realdata

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDirFromEnv(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvVar, dir)
	if got := Dir(t); got != dir {
		t.Errorf("Dir = %q, want %q", got, dir)
	}
	if got, want := File(t, "a.txt"), filepath.Join(dir, "a.txt"); got != want {
		t.Errorf("File = %q, want %q", got, want)
	}
}

func TestFileSkipsWhenMissing(t *testing.T) {
	t.Setenv(EnvVar, t.TempDir())
	ok := t.Run("missing", func(t *testing.T) {
		File(t, "no/such/file")
		t.Error("File did not skip")
	})
	if !ok {
		t.Error("subtest failed instead of skipping")
	}
}

func TestModuleRoot(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Errorf("module root %s has no go.mod: %v", root, err)
	}
}
