package ssvmnb

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// A session's run is held by the program that opened it (Session, Resume,
// Fork, Forget), until that program ends: a second program that asks for
// it while the first runs (two notebooks on one session folder, a cell
// program and a go run) gets an error naming the holder, instead of the
// two saving over each other's work. The hold is an exclusive lock
// (flock) on the run's lock file, NAME.lock beside NAME.gob, which also
// names the holder (its pid, host, program and since when); the system
// releases it when the holder ends however it ends, so that the lock of a
// program that died is taken over by the next one. Where the file system
// has no locks, runs are not held.

// holds are the lock files of the runs this program holds.
var holds = struct {
	sync.Mutex
	files map[string]*os.File
}{files: map[string]*os.File{}}

// lockFile returns the lock file of the session file path.
func lockFile(path string) string { return strings.TrimSuffix(path, ".gob") + ".lock" }

// hold makes this program the holder of the run name stored at path, or
// returns an error naming the program that holds it.
func hold(name, path string) error {
	lp := lockFile(path)
	holds.Lock()
	defer holds.Unlock()
	if _, ok := holds.files[lp]; ok {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(lp), 0o755); err != nil {
		return fmt.Errorf("ssvmnb: session %q: %w", name, err)
	}
	f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("ssvmnb: session %q: %w", name, err)
	}
	if !tryLock(f) {
		b, _ := io.ReadAll(io.LimitReader(f, 512))
		f.Close()
		holder := oneLine(string(b))
		if holder == "" {
			holder = "a program starting"
		}
		return fmt.Errorf("ssvmnb: session %q is in use by another program (%s): two programs on one session would lose each other's work; "+
			"let it end (or stop it) and run the cell again, or use another name", name, holder)
	}
	host, _ := os.Hostname()
	prog, _ := os.Executable()
	info := fmt.Sprintf("pid %d on host %s since %s, %s\n", os.Getpid(), host, time.Now().Format(time.DateTime), filepath.Base(prog))
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(info), 0)
	}
	holds.files[lp] = f
	return nil
}
