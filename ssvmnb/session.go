package ssvmnb

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/fwstruct/fwstruct/internal/atomicfile"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/kernel"
	"github.com/fwstruct/fwstruct/solver/soft"
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
// one on data with configuration cfg when there is none (a solver.Config,
// soft.Config or kernel.Config: see New), and saves it
// after every Run and every change. In GoNB every cell runs as a fresh
// program: a trainer obtained through Session (or Resume) in each cell
// continues the same run from cell to cell, and after a kernel restart.
//
// The stored trainer must be on the same problems (checked by their
// fingerprint) and have exactly the configuration cfg asks for, lambda
// included (after the solver's defaults). Otherwise Session returns an
// error saying what differs and what changed it during the run: a cell
// never gets a run other than the one it asks for. Then Resume(name)
// continues the stored run as it is, Forget(name) (or ForgetAll) starts
// over, and Fork makes a variant under another name.
func Session(name string, data *Data, cfg any) (*Trainer, error) {
	if data == nil {
		return nil, errors.New("ssvmnb: Session needs data (see Load and NewData)")
	}
	path, err := sessionFile(name)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		t, err := New(name, data, cfg)
		if err != nil {
			return nil, err
		}
		t.store = path
		return t, t.save()
	}
	if tf, err := readFile(path); err == nil && tf.family() != familyOf(cfg) {
		return nil, fmt.Errorf("ssvmnb: session %q holds a run of the %s family, the cell asks for a %T; "+
			"call ssvmnb.Resume(%q) to continue the stored run as it is, ssvmnb.Forget(%q) to start over, or pick another name",
			name, tf.family(), cfg, name, name)
	}
	t, err := readSession(name, path, data)
	if err != nil {
		return nil, err
	}
	if diff := configDiff(t.Config(), cfg); diff != "" {
		return nil, fmt.Errorf("ssvmnb: session %q holds another configuration than this cell asks for: %s%s; "+
			"call ssvmnb.Resume(%q) to continue the stored run as it is, ssvmnb.Forget(%q) to start over, or Fork it under another name",
			name, diff, t.changes(), name, name)
	}
	return t, nil
}

// MustSession is Session that panics on error (for notebook cells).
func MustSession(name string, data *Data, cfg any) *Trainer {
	return Must(Session(name, data, cfg))
}

// Resume returns the stored trainer called name as it is: the dataset it
// was trained on is loaded again (as Load would; the session remembers its
// name and options) and the run continues with its stored configuration,
// changes made during the run included. A later cell is then one line:
//
//	t := ssvmnb.MustResume("bcfw")
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
		return nil, fmt.Errorf("ssvmnb: session %q: %w", name, err)
	}
	if tf.Data == nil {
		return nil, fmt.Errorf("ssvmnb: session %q was started on problems, not on data loaded by name: get it with ssvmnb.Session and the same problems", name)
	}
	data, err := tf.Data.load()
	if err != nil {
		return nil, fmt.Errorf("ssvmnb: session %q: %w", name, err)
	}
	t, err := fromFile(tf, data)
	if err != nil {
		return nil, fmt.Errorf("ssvmnb: session %q: %w (Forget it to start over)", name, err)
	}
	t.store = path
	return t, nil
}

// MustResume is Resume that panics on error (for notebook cells).
func MustResume(name string) *Trainer { return Must(Resume(name)) }

// readSession loads the stored trainer name from path on the problems of
// data.
func readSession(name, path string, data *Data) (*Trainer, error) {
	tf, err := readFile(path)
	if err != nil {
		return nil, fmt.Errorf("ssvmnb: session %q: %w (Forget it to start over)", name, err)
	}
	t, err := fromFile(tf, data)
	if err != nil {
		return nil, fmt.Errorf("ssvmnb: session %q: %w (Forget it to start over)", name, err)
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
	return t.SaveFile(t.store)
}

// configDiff describes how the stored configuration differs from the one
// asked for (both of one family, after its defaults), field by field; ""
// when they are equal.
func configDiff(stored, asked any) string {
	stored, asked = withDefaults(stored), withDefaults(asked)
	a, b := reflect.ValueOf(stored), reflect.ValueOf(asked)
	if a.Type() != b.Type() {
		return fmt.Sprintf("the run is a %T, the cell asks for a %T", stored, asked)
	}
	var diffs []string
	for i := 0; i < a.NumField(); i++ {
		x, y := a.Field(i).Interface(), b.Field(i).Interface()
		if !reflect.DeepEqual(x, y) {
			diffs = append(diffs, fmt.Sprintf("%s is %s, the cell asks for %s", a.Type().Field(i).Name, describe(x), describe(y)))
		}
	}
	return strings.Join(diffs, "; ")
}

// withDefaults applies the defaults of a configuration's family.
func withDefaults(cfg any) any {
	switch c := cfg.(type) {
	case solver.Config:
		return c.WithDefaults()
	case soft.Config:
		return c.WithDefaults()
	case kernel.Config:
		return c.WithDefaults()
	}
	return cfg
}

func describe(v any) string {
	switch x := v.(type) {
	case *solver.Box:
		if x == nil {
			return "none"
		}
		return "a box"
	case solver.Cache:
		return cacheLabel(x)
	}
	return fmt.Sprint(v)
}

func cacheLabel(c solver.Cache) string {
	if !c.Enabled {
		return "off"
	}
	return fmt.Sprintf("on (F %g, nu %g, size %d)", c.F, c.Nu, c.MaxSize)
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
