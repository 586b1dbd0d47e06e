package ssvmnb

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
)

// SessionDir is where Session keeps its trainers. Empty means
// $FWSTRUCT_SESSION, else the .fwstruct-session folder of the notebook's
// directory ($GONB_DIR, set by GoNB), else of the working directory.
var SessionDir string

func sessionDir() string {
	switch {
	case SessionDir != "":
		return SessionDir
	case os.Getenv("FWSTRUCT_SESSION") != "":
		return os.Getenv("FWSTRUCT_SESSION")
	case os.Getenv("GONB_DIR") != "":
		return filepath.Join(os.Getenv("GONB_DIR"), ".fwstruct-session")
	}
	return ".fwstruct-session"
}

func sessionFile(name string) (string, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return "", fmt.Errorf("ssvmnb: session name %q must be a plain non-empty name", name)
	}
	return filepath.Join(sessionDir(), name+".gob"), nil
}

// Session returns the trainer called name from the session store, or a new
// one when there is none, and makes every Run save it back. In GoNB every
// cell runs as a fresh program: a trainer obtained through Session in each
// cell continues the same run from cell to cell, and after a kernel restart.
//
// The stored trainer must have been created with the same problems and the
// same configuration (the Test problem and the Progress callback aside);
// otherwise Session returns an error: Forget the old run or pick another
// name.
func Session(name string, p, test oracles.Problem, cfg solver.Config) (*Trainer, error) {
	path, err := sessionFile(name)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		t, err := New(name, p, test, cfg)
		if err != nil {
			return nil, err
		}
		t.store = path
		return t, t.save()
	}
	t, err := LoadFile(path, p, test)
	if err != nil {
		return nil, fmt.Errorf("ssvmnb: session %q: %w (Forget it to start over)", name, err)
	}
	if !sameConfig(t.s.Config(), cfg) {
		return nil, fmt.Errorf("ssvmnb: session %q was started with another configuration; call ssvmnb.Forget(%q) to start over, or use another name", name, name)
	}
	t.store = path
	return t, nil
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

// save writes a session trainer to its store.
func (t *Trainer) save() error {
	if t.store == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(t.store), 0o755); err != nil {
		return err
	}
	tmp := t.store + ".tmp"
	if err := t.SaveFile(tmp); err != nil {
		return err
	}
	return os.Rename(tmp, t.store)
}

// sameConfig compares a stored configuration with a requested one, after
// the solver's defaults, on what a checkpoint keeps; Lambda is left out, as
// SetLambda may have changed it since.
func sameConfig(stored, cfg solver.Config) bool {
	norm := func(c solver.Config) solver.Config {
		c = c.WithDefaults()
		c.Lambda = 0
		return c
	}
	return reflect.DeepEqual(norm(stored), norm(cfg))
}

// ForgetAll deletes every stored trainer of the session: run it at the top
// of a notebook that must start from scratch when executed again.
func ForgetAll() error {
	matches, err := filepath.Glob(filepath.Join(sessionDir(), "*.gob"))
	if err != nil {
		return err
	}
	for _, m := range matches {
		if err := os.Remove(m); err != nil {
			return err
		}
	}
	return nil
}
