// Package atomicfile writes output files so that a reader never sees a
// partial one: the content goes to a temporary file in the destination's
// folder, which is synced and then renamed over the destination. An
// interrupted or failed write leaves the previous file (if any) untouched
// and no temporary file behind.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteFile writes the output of write to path atomically. The file gets
// the permissions of the file it replaces, or perm when there is none (the
// umask is not applied). When write returns an error, nothing changes at
// path and that error is returned.
func WriteFile(path string, perm os.FileMode, write func(w io.Writer) error) (err error) {
	if err := notDir(path); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = write(tmp); err != nil {
		return err
	}
	if fi, serr := os.Stat(path); serr == nil {
		perm = fi.Mode().Perm()
	}
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// CheckWritable reports whether WriteFile can write path, without changing
// it: path must not be a folder and its folder must exist and accept a new
// file (CheckWritable creates and removes one). Call it before a long
// computation whose result goes to path.
func CheckWritable(path string) error {
	if err := notDir(path); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	tmp.Close()
	return os.Remove(tmp.Name())
}

// notDir returns an error when path names an existing folder.
func notDir(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("cannot write %s: it is a folder", path)
	}
	return nil
}
