//go:build unix

package ssvmnb

import (
	"os"
	"syscall"
)

// tryLock takes the exclusive lock (flock) of a run's lock file unless
// another program holds it; a file system without locks lets it through.
func tryLock(f *os.File) bool {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch err {
		case syscall.EINTR:
			continue
		case syscall.EWOULDBLOCK:
			return false
		}
		return true
	}
}
