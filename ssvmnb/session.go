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
// error too ("train again").
func Session(name string, data *Data, m run.Method, x ...run.Execution) (*Trainer, error) {
	if data == nil {
		return nil, errors.New("ssvmnb: Session needs data (see Load and NewData)")
	}
	if m == nil {
		return nil, fmt.Errorf("ssvmnb: session %q needs a method (auto.Method{Lambda: lambda}, the default, chosen from the data; solver.Recommended(lambda), solver.BCFW{...}, ...)", name)
	}
	exec, err := oneExecution(x)
	if err != nil {
		return nil, fmt.Errorf("ssvmnb: session %q: %w", name, err)
	}
	path, err := sessionFile(name)
	if err != nil {
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

// Forget deletes the stored trainer called name (no error if there is none).
func Forget(name string) error {
	path, err := sessionFile(name)
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// ForgetAll deletes every stored trainer of the notebook's session (see
// Notebook; the runs of other notebooks stay) and the styles of its
// methods (see StyleOf): run it at the top of a notebook so that "Run All"
// starts from scratch every time and gives the same results.
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
		if err := os.Remove(m); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return forgetStyles()
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
