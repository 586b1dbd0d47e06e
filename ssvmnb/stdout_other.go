//go:build !linux

package ssvmnb

// drainStdout does nothing where the unread bytes of a pipe cannot be
// counted (see the Linux version).
func drainStdout() {}
