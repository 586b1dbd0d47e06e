package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
)

// removeStale removes the temporary files of path that writes killed
// before their rename left behind (".NAME.DIGITS.tmp" beside path, the
// files replace creates): those no live writer holds locked. Failures are
// ignored: a file that cannot be removed is left as it was.
func removeStale(path string) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !isTempName(e.Name(), base) {
			continue
		}
		name := filepath.Join(dir, e.Name())
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		if tryLock(f) {
			// Still locked by us while it goes: a writer that created it
			// just now finds it gone after its own lock and makes another.
			os.Remove(name)
		}
		f.Close()
	}
}

// isTempName reports whether name is that of a temporary file of base:
// "." + base + "." + decimal digits + ".tmp" (os.CreateTemp's pattern).
func isTempName(name, base string) bool {
	rest, ok := strings.CutPrefix(name, "."+base+".")
	if !ok {
		return false
	}
	digits, ok := strings.CutSuffix(rest, ".tmp")
	if !ok || digits == "" {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
