// Package atomicfile writes output files so that a reader never sees a
// partial one: the content goes to a temporary file in the destination's
// folder, which is synced and then renamed over the destination. An
// interrupted or failed write leaves the previous file (if any) untouched
// and no temporary file behind; a write killed outright (SIGKILL, a power
// cut) may leave its temporary file, which the next write of the same
// destination removes.
//
// The destination is what the path names, not the path itself:
//   - a symbolic link is followed (through every link of a chain, dangling
//     or not) and its target is replaced, atomically next to the target;
//     the link stays a link;
//   - a character device (/dev/null, a terminal) or a named pipe is
//     written directly, never replaced; a named pipe without a reader is
//     waited for (until the context of WriteFileContext is done);
//   - a read-only file (no write permission bit, e.g. chmod 444) is
//     refused, never replaced: it was protected on purpose;
//   - a folder, a block device or a socket is refused.
//
// Every writer of the project goes through WriteFile.
package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// WriteFile writes the output of write to path atomically. The file gets
// the permissions of the file it replaces, or perm when there is none (the
// umask is not applied). When write returns an error, nothing changes at
// path and that error is returned. A symbolic link at path is followed, a
// character device or a named pipe is written directly, a read-only file
// is refused (see the package documentation).
func WriteFile(path string, perm os.FileMode, write func(w io.Writer) error) error {
	return WriteFileContext(context.Background(), path, perm, write)
}

// WriteFileContext is WriteFile giving up the wait for the reader of a
// named pipe when ctx is done (a command interrupted by SIGINT or
// SIGTERM), with an error saying so.
func WriteFileContext(ctx context.Context, path string, perm os.FileMode, write func(w io.Writer) error) error {
	dest, err := resolve(path)
	if err != nil {
		return err
	}
	if dest.stream {
		return writeStream(ctx, dest, write)
	}
	if dest.exists {
		if err := checkReadOnly(path, dest); err != nil {
			return err
		}
		perm = dest.perm
	}
	removeStale(dest.path)
	return replace(dest.path, perm, write)
}

// checkReadOnly refuses a regular file without any write permission bit.
func checkReadOnly(path string, dest destination) error {
	if dest.perm&0o222 == 0 {
		return fmt.Errorf("cannot write %s: it is read-only (mode %04o): make it writable or remove it to replace it", path, dest.perm)
	}
	return nil
}

// replace writes a temporary file beside path, locked while it is written
// (so that removeStale can tell it from one left by a killed writer), and
// renames it over path.
func replace(path string, perm os.FileMode, write func(w io.Writer) error) (err error) {
	tmp, err := createLocked(path)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(tmp.Name())
		}
		tmp.Close() // releases the lock, after the rename or the removal
	}()
	if err = write(tmp); err != nil {
		return err
	}
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// tempPattern is the os.CreateTemp pattern of the temporary files of path:
// ".NAME.DIGITS.tmp" in its folder.
func tempPattern(path string) string { return "." + filepath.Base(path) + ".*.tmp" }

// createLocked creates a temporary file for path and locks it. A file
// removed by removeStale between its creation and its lock (whose lock the
// other process held) is replaced by a new one.
func createLocked(path string) (*os.File, error) {
	for attempt := 0; ; attempt++ {
		tmp, err := os.CreateTemp(filepath.Dir(path), tempPattern(path))
		if err != nil {
			return nil, err
		}
		lock(tmp)
		fi, err1 := tmp.Stat()
		named, err2 := os.Stat(tmp.Name())
		if err1 == nil && err2 == nil && os.SameFile(fi, named) {
			return tmp, nil
		}
		tmp.Close()
		if attempt == 3 {
			return nil, fmt.Errorf("cannot write %s: its temporary files keep disappearing", path)
		}
	}
}

// pipePoll is how often writeStream looks for the reader of a named pipe.
const pipePoll = 50 * time.Millisecond

// writeStream writes to a character device or a named pipe as it is; a
// pipe without a reader is waited for until ctx is done.
func writeStream(ctx context.Context, dest destination, write func(w io.Writer) error) (err error) {
	var f *os.File
	for {
		if dest.pipe {
			f, err = openPipe(dest.path)
		} else {
			f, err = os.OpenFile(dest.path, os.O_WRONLY, 0)
		}
		if err != nil || f != nil {
			break
		}
		select { // a pipe without a reader yet
		case <-ctx.Done():
			return fmt.Errorf("cannot write %s: a named pipe without a reader, and the wait for one was interrupted", dest.path)
		case <-time.After(pipePoll):
		}
	}
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	return write(f)
}

// CheckWritable reports whether WriteFile can write path, without changing
// it: path (or what its links lead to) must not be a folder; a regular
// file's folder must exist and accept a new file (CheckWritable creates and
// removes one); a character device or a named pipe must be writable (it is
// not opened). Call it before a long computation whose result goes to
// path.
func CheckWritable(path string) error {
	dest, err := resolve(path)
	if err != nil {
		return err
	}
	if dest.stream {
		if err := writable(dest.path); err != nil {
			return fmt.Errorf("cannot write %s: %w", path, err)
		}
		return nil
	}
	if dest.exists {
		if err := checkReadOnly(path, dest); err != nil {
			return err
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest.path), tempPattern(dest.path))
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	tmp.Close()
	return os.Remove(tmp.Name())
}
