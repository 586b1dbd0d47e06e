package ssvmnb

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fwstruct/fwstruct/internal/atomicfile"
	"github.com/fwstruct/fwstruct/solver/auto"
	"github.com/fwstruct/fwstruct/solver/run"
)

// writeBytes writes b to a session file atomically (internal/atomicfile).
func writeBytes(path string, b []byte) error {
	return atomicfile.WriteFile(path, 0o644, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

func sessionFile(name string) (string, error) {
	if !plainName(name) {
		return "", fmt.Errorf("ssvmnb: session name %q must be a plain non-empty name", name)
	}
	dir, err := sessionFolder()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, name+".gob"), nil
}

// plainName reports whether name can name a file of its own.
func plainName(name string) bool {
	return name != "" && !strings.ContainsAny(name, `/\`) && name != "." && name != ".."
}

// Session returns the trainer called name from the session store, or a new
// one on data with method m (and the execution x when one is given: see
// New) when there is none, and saves it after every Run and every change.
// In GoNB every cell runs as a fresh program: a trainer obtained through
// Session (or Resume) in each cell continues the same run from cell to
// cell, and after a kernel restart.
//
// The stored trainer must be on the same problems (checked by their
// fingerprint) and have exactly the method m asks for, lambda included (a
// field left zero compares equal to the default it stands for), and the
// same execution. Otherwise Session returns an error saying what differs
// and what changed it during the run: a cell never gets a run other than
// the one it asks for. Then Resume(name) continues the stored run as it
// is, Forget(name) (or ForgetAll) starts over, and Fork makes a variant
// under another name. A session file made by an older fwstruct is an
// error too ("train again"), and so is one altered in any bit (session
// files are checksummed).
//
// The run is held by this program until it ends: Session, Resume and Fork
// of a run held by another program that is still running are errors
// naming it (see hold), so that two programs never save over each other's
// work.
func Session(name string, data *Data, m run.Method, x ...run.Execution) (*Trainer, error) {
	if data == nil {
		return nil, errors.New("ssvmnb: Session needs data (see Load and NewData)")
	}
	if m == nil || typedNil(m) {
		return nil, fmt.Errorf("ssvmnb: session %q needs a method (auto.Method{Lambda: lambda}, the default, chosen from the data; solver.Recommended(lambda), solver.BCFW{...}, ...)%s", name, nilText(m))
	}
	exec, err := oneExecution(x)
	if err != nil {
		return nil, fmt.Errorf("ssvmnb: session %q: %w", name, err)
	}
	path, err := sessionFile(name)
	if err != nil {
		return nil, err
	}
	if err := hold(name, path); err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		t, err := New(name, data, m, x...)
		if err != nil {
			return nil, err
		}
		t.store = path
		return t, t.save()
	}
	tf, err := readSession(name, path)
	if err != nil {
		return nil, err
	}
	if stored, err := tf.method(); err == nil && stored.Name() != m.Name() && !tf.askedFor(m) {
		return nil, fmt.Errorf("ssvmnb: session %q holds a %s run, the cell asks for %s; "+
			"call ssvmnb.Resume(%q) to continue the stored run as it is, ssvmnb.Forget(%q) to start over, or pick another name",
			name, stored.Name(), m.Name(), name, name)
	}
	t, err := openSession(name, path, tf, data)
	if err != nil {
		return nil, err
	}
	if diff := t.differs(m, exec); diff != "" {
		return nil, fmt.Errorf("ssvmnb: session %q holds another run than this cell asks for: %s%s; "+
			"call ssvmnb.Resume(%q) to continue the stored run as it is, ssvmnb.Forget(%q) to start over, or Fork it under another name",
			name, diff, t.changes(), name, name)
	}
	return t, nil
}

// askedFor reports whether the stored run was asked for a method of m's
// type (auto: the run is the method auto chose).
func (tf *trainerFile) askedFor(m run.Method) bool {
	asked, err := run.Decode(tf.Asked)
	return err == nil && asked.Name() == m.Name()
}

// differs describes how t differs from a run of method m with execution x
// (nil: sequential), "" when it does not (see methodDiff).
func (t *Trainer) differs(m run.Method, x run.Execution) string {
	var diffs []string
	if d := methodDiff(t.current(), t.s.Method(), m); d != "" {
		diffs = append(diffs, d)
	}
	_, chosen := m.(auto.Method) // auto asked without one chose the execution too
	if !(chosen && x == nil) && !sameExecution(t.s.Execution(), x) {
		diffs = append(diffs, fmt.Sprintf("the execution is %s, the cell asks for %s", executionLabel(t.s.Execution()), executionLabel(x)))
	}
	return strings.Join(diffs, "; ")
}

// Resume returns the stored trainer called name as it is: the dataset it
// was trained on is loaded again (as Load would; the session remembers its
// name and options) and the run continues with its stored method,
// changes made during the run included. A later cell is then one line:
//
//	t := ssvmnb.Must(ssvmnb.Resume("bcfw"))
func Resume(name string) (*Trainer, error) {
	path, err := sessionFile(name)
	if err != nil {
		return nil, err
	}
	if err := hold(name, path); err != nil {
		return nil, err
	}
	tf, err := readFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("ssvmnb: no session %q in %s: start it with ssvmnb.Session", name, sessionDir())
		}
		return nil, fmt.Errorf("ssvmnb: session %q: %w (ssvmnb.Forget(%q) starts over)", name, err, name)
	}
	if tf.Data == nil {
		return nil, fmt.Errorf("ssvmnb: session %q was started on problems, not on data loaded by name: get it with ssvmnb.Session and the same problems", name)
	}
	data, err := tf.Data.load()
	if err != nil {
		return nil, fmt.Errorf("ssvmnb: session %q: %w", name, err)
	}
	return openSession(name, path, tf, data)
}

// readSession reads the stored trainer name from path.
func readSession(name, path string) (trainerFile, error) {
	tf, err := readFile(path)
	if err != nil {
		return tf, fmt.Errorf("ssvmnb: session %q: %w (ssvmnb.Forget(%q) starts over)", name, err, name)
	}
	return tf, nil
}

// openSession restores the stored trainer name, read from path, on the
// problems of data.
func openSession(name, path string, tf trainerFile, data *Data) (*Trainer, error) {
	t, err := fromFile(tf, data)
	if err != nil {
		return nil, fmt.Errorf("ssvmnb: session %q: %w (ssvmnb.Forget(%q) starts over)", name, err, name)
	}
	t.store = path
	if t.data == nil {
		t.data = data.spec
	}
	return t, nil
}

func readFile(path string) (trainerFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return trainerFile{}, err
	}
	defer f.Close()
	return readTrainerFile(f)
}

// Forget deletes the stored trainer called name (no error if there is
// none) and says how much it frees. A run held by another program that is
// still running is not deleted: that is an error naming it.
func Forget(name string) error {
	path, err := sessionFile(name)
	if err != nil {
		return err
	}
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err := hold(name, path); err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	inform(fmt.Sprintf("forgot the run %q of session %s: %s freed", name, sessionLabel(), sizeText(fi.Size())))
	return nil
}

// ForgetAll deletes every stored trainer of the notebook's session (see
// Notebook; the runs of other notebooks stay), its kept runs and the
// styles of its methods (see StyleOf), and says how much it frees: run it
// at the top of a notebook so that "Run All" starts from scratch every
// time and gives the same results. When a run is held by another program
// that is still running, nothing is deleted: that is an error naming it.
func ForgetAll() error {
	dir, err := sessionFolder()
	if err != nil {
		return err
	}
	matches, err := filepath.Glob(filepath.Join(dir, "*.gob"))
	if err != nil {
		return err
	}
	for _, m := range matches {
		if name := strings.TrimSuffix(filepath.Base(m), ".gob"); !strings.HasSuffix(name, keptSuffix) {
			if err := hold(name, m); err != nil {
				return fmt.Errorf("ssvmnb: ForgetAll deleted nothing: %w", err)
			}
		}
	}
	var runs, kept int
	var freed int64
	for _, m := range matches {
		fi, err := os.Stat(m)
		if err != nil {
			continue
		}
		if err := os.Remove(m); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		freed += fi.Size()
		if strings.HasSuffix(m, keptSuffix+".gob") {
			kept++
		} else {
			runs++
		}
	}
	if fi, err := os.Stat(stylesFile()); err == nil {
		freed += fi.Size()
	}
	if err := forgetStyles(); err != nil {
		return err
	}
	if runs+kept > 0 {
		inform(fmt.Sprintf("forgot %s and %s of session %s: %s freed", count(runs, "run"), count(kept, "kept run"), sessionLabel(), sizeText(freed)))
	}
	return nil
}

// StoredSize returns the bytes of the trainer's session file, 0 when it
// is not kept in the session (New) or not saved yet.
func (t *Trainer) StoredSize() int64 {
	if t.store == "" {
		return 0
	}
	fi, err := os.Stat(t.store)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// SessionSize returns the bytes the notebook's session folder holds (see
// Notebook): its runs, kept runs and styles (the lock files, a line each,
// left out).
func SessionSize() (int64, error) {
	dir, err := sessionFolder()
	if err != nil {
		return 0, err
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var n int64
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && !strings.HasSuffix(e.Name(), ".lock") {
			n += fi.Size()
		}
	}
	return n, nil
}

// sessionLabel names the notebook's session in messages.
func sessionLabel() string {
	if name, err := notebookName(); err == nil && name != "" {
		return fmt.Sprintf("%q", name)
	}
	return sessionDir()
}

// sizeText writes a number of bytes for people: "262 KB", "1.3 MB".
func sizeText(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d bytes", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.3g KB", float64(n)/1e3)
	case n < 1000*1000*1000:
		return fmt.Sprintf("%.3g MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.3g GB", float64(n)/1e9)
}

// count writes "1 run", "3 runs".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// save writes a session trainer to its store.
func (t *Trainer) save() error {
	if t.store == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(t.store), 0o755); err != nil {
		return err
	}
	return t.saveFile(t.store)
}

// changes lists what changed during the stored run (events of its trace),
// for error messages; "" when nothing did.
func (t *Trainer) changes() string {
	var ev []string
	if t.origin != "" {
		ev = append(ev, "forked from "+t.origin)
	}
	for _, p := range t.Trace() {
		if p.Event != "" {
			ev = append(ev, fmt.Sprintf("at pass %.4g: %s", p.Pass, p.Event))
		}
	}
	if len(ev) == 0 {
		return ""
	}
	return " (the stored run: " + strings.Join(ev, "; ") + ")"
}
