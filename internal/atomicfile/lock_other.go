//go:build !unix

package atomicfile

import (
	"os"
	"time"
)

// staleAge is how old an unlocked temporary file must be for removeStale
// to take it for a leftover where files cannot be locked.
const staleAge = 24 * time.Hour

// lock does nothing where flock is not available.
func lock(*os.File) {}

// tryLock reports whether f is old enough to be a leftover.
func tryLock(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && time.Since(fi.ModTime()) > staleAge
}

// writable lets the write itself report a device or pipe it cannot open.
func writable(string) error { return nil }

// openPipe opens a named pipe for writing.
func openPipe(path string) (*os.File, error) { return os.OpenFile(path, os.O_WRONLY, 0) }
