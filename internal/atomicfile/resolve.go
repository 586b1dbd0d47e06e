package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// maxLinks bounds the symbolic links followed from one path (Linux's
// limit, beyond which open fails with ELOOP).
const maxLinks = 40

// destination is what a path given to WriteFile leads to.
type destination struct {
	path   string      // the file to write: the path with its links followed
	exists bool        // a file exists there
	perm   os.FileMode // its permissions, when it exists
	stream bool        // a character device or a named pipe: written in place
	pipe   bool        // a named pipe
}

// resolve follows the symbolic links of path to the file they lead to,
// which may not exist yet, and refuses what WriteFile must not write.
func resolve(path string) (destination, error) {
	p := path
	for links := 0; ; links++ {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return destination{path: p}, nil
		}
		if err != nil {
			return destination{}, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
		}
		mode := fi.Mode()
		switch {
		case mode&fs.ModeSymlink != 0:
			if links == maxLinks {
				return destination{}, fmt.Errorf("cannot write %s: more than %d symbolic links", path, maxLinks)
			}
			target, err := os.Readlink(p)
			if err != nil {
				return destination{}, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(p), target)
			}
			p = target
		case mode.IsRegular():
			return destination{path: p, exists: true, perm: mode.Perm()}, nil
		case mode&fs.ModeCharDevice != 0, mode&fs.ModeNamedPipe != 0:
			return destination{path: p, exists: true, stream: true, pipe: mode&fs.ModeNamedPipe != 0}, nil
		default:
			return destination{}, fmt.Errorf("cannot write %s: %s", path, describe(path, p, mode))
		}
	}
}

// describe says what an unwritable file is, and where the links of path
// led when they did.
func describe(path, p string, mode fs.FileMode) string {
	var what string
	switch {
	case mode.IsDir():
		what = "a folder"
	case mode&fs.ModeDevice != 0:
		what = "a block device"
	case mode&fs.ModeSocket != 0:
		what = "a socket"
	default:
		what = "not a regular file (" + mode.Type().String() + ")"
	}
	if p != path {
		return "it is a link to " + p + ", " + what
	}
	return "it is " + what
}

// unwrapPath returns the cause of a *fs.PathError, whose path the caller
// names itself.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
