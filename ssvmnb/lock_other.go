//go:build !unix

package ssvmnb

import "os"

// tryLock lets every program through where flock is not available: runs
// are not held there.
func tryLock(*os.File) bool { return true }
