package ssvmnb

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// SessionDir is the folder that holds the sessions of every notebook.
// Empty means $FWSTRUCT_SESSION, else the .fwstruct-session folder of the
// notebook's directory ($GONB_DIR, set by GoNB), else of the working
// directory. Each notebook keeps its runs, kept runs and styles in a
// subfolder of its own (see Notebook).
var SessionDir string

// The notebook whose session this program uses (see Notebook).
var current struct {
	sync.Mutex
	name string
	err  error
}

// Notebook names the notebook whose session this program uses: the runs,
// kept runs and styles of a notebook live in a folder of their own, so
// that runs of the same name in two notebooks of one folder never
// collide, and ForgetAll forgets the current notebook's runs only.
//
// The session follows the notebook's file: recent Jupyter servers pass
// its path to the kernel ($JPY_SESSION_NAME), and when they do, the file
// name without .ipynb names the session, whatever name Notebook was
// given, so that a copy of a notebook gets a session of its own and its
// "start over" cell (ForgetAll) cannot wipe the runs of the notebook it
// was copied from. The name given to Notebook names the session where
// the server does not pass the path (older servers, some headless
// runners): call it at the top of a notebook, in the declarations of the
// first cell, which every cell's program shares in GoNB:
//
//	var _ = ssvmnb.Notebook("11_your_data")
//
// It returns the notebook's session folder. A name that cannot name a
// folder (empty, or with a path separator) makes every later session call
// fail with an error saying so.
func Notebook(name string) string {
	current.Lock()
	current.name, current.err = name, nil
	if !plainName(name) {
		current.err = fmt.Errorf("ssvmnb: Notebook(%q): a notebook's name must be a plain non-empty name, such as its file name without .ipynb", name)
	}
	current.Unlock()
	return sessionDir()
}

// notebookName returns the current notebook's name: the file name of
// $JPY_SESSION_NAME without .ipynb, else Notebook's, else "" (the session
// folder itself).
func notebookName() (string, error) {
	if jpy := os.Getenv("JPY_SESSION_NAME"); jpy != "" {
		if name := strings.TrimSuffix(filepath.Base(jpy), ".ipynb"); plainName(name) {
			return name, nil
		}
	}
	current.Lock()
	defer current.Unlock()
	return current.name, current.err
}

// sessionRoot returns the folder of every notebook's session.
func sessionRoot() string {
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

// sessionFolder returns the current notebook's session folder, or the
// error of an invalid Notebook name.
func sessionFolder() (string, error) {
	name, err := notebookName()
	if err != nil {
		return "", err
	}
	return filepath.Join(sessionRoot(), name), nil
}

// sessionDir is sessionFolder for messages and the styles, which go to
// the root folder when the notebook's name is invalid (the session calls
// report that).
func sessionDir() string {
	dir, err := sessionFolder()
	if err != nil {
		return sessionRoot()
	}
	return dir
}
