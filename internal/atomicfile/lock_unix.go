//go:build unix

package atomicfile

import (
	"errors"
	"os"
	"syscall"
)

// lock takes an exclusive lock (flock) on a temporary file being written;
// the kernel releases it when the file is closed or its writer dies, which
// is how removeStale tells a live write from a killed one. A file system
// without locks leaves the file unlocked (tryLock fails on it as well, so
// that nothing is removed there).
func lock(f *os.File) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return
		}
	}
}

// tryLock takes the lock of f if no one holds it.
func tryLock(f *os.File) bool {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			return err == nil
		}
	}
}

// writable reports whether the process may write the file at path (a
// device or a pipe, which CheckWritable must not open).
func writable(path string) error {
	return syscall.Access(path, 0x2) // W_OK
}

// openPipe opens a named pipe for writing without blocking: nil and no
// error when it has no reader yet (ENXIO), so that the caller can wait
// for one and give up.
func openPipe(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ENXIO) {
		return nil, nil
	}
	return f, err
}
