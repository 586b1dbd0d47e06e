//go:build linux

package ssvmnb

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// unread returns the bytes written to f, a pipe, that its reader has not
// read yet; ok is false when f is no pipe (or the count is unknown).
func unread(f *os.File) (n int, ok bool) {
	n, err := unix.IoctlGetInt(int(f.Fd()), unix.TIOCINQ /* FIONREAD */)
	return n, err == nil
}

// drainStdout waits, at most drainLimit, until the cell program's standard
// output, the pipe GoNB copies into the cell's stream output, has been
// read. GoNB reads that pipe and the pipe of the displays (gonbui) in two
// goroutines of its own, so that without this wait a line printed just
// before a display (fmt.Printf, then ShowPredictions) may reach the
// notebook after the display.
func drainStdout() {
	deadline := time.Now().Add(drainLimit)
	waited := false
	for {
		n, ok := unread(stdout)
		if !ok || n == 0 {
			if waited {
				time.Sleep(drainSettle) // the bytes just read on their way to the front end
			}
			return
		}
		if time.Now().After(deadline) {
			return
		}
		waited = true
		time.Sleep(2 * time.Millisecond)
	}
}
