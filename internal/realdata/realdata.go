// Package realdata locates the real research datasets used by the tests and
// benchmarks of fwstruct.
//
// The datasets live beside the project, at ../shared/data from the module
// root, and never inside it. Tests that need them call Dir or File, which
// skip the test with a message naming the path they tried when the data is
// missing, so the test suite passes on machines without the data.
package realdata

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// EnvVar is the environment variable that points at the data root.
const EnvVar = "FWSTRUCT_DATA"

// Dir returns the root of the real datasets: $FWSTRUCT_DATA when it is set
// and names an existing directory, else <module root>/../shared/data, where
// the module root is the nearest folder above the working directory that
// holds a go.mod. When neither exists, Dir skips the test (tb.Skipf), naming
// every path it tried.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir, tried := find()
	if dir == "" {
		tb.Skipf("real data not found: set %s or place the datasets at %s", EnvVar, strings.Join(tried, " or "))
	}
	return dir
}

// File returns filepath.Join(Dir(tb), rel) and skips the test when that file
// does not exist.
func File(tb testing.TB, rel string) string {
	tb.Helper()
	p := filepath.Join(Dir(tb), filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("real data not found: %s is missing (set %s to the data root)", p, EnvVar)
	}
	return p
}

// find returns the data root, or "" and the list of paths it tried.
func find() (dir string, tried []string) {
	if env := os.Getenv(EnvVar); env != "" {
		if isDir(env) {
			return env, nil
		}
		tried = append(tried, env+" ($"+EnvVar+")")
	}
	root, err := moduleRoot()
	if err != nil {
		return "", append(tried, "../shared/data (no go.mod found above the working directory)")
	}
	p := filepath.Join(filepath.Dir(root), "shared", "data")
	if isDir(p) {
		return p, nil
	}
	return "", append(tried, p)
}

// moduleRoot walks up from the working directory to the folder holding
// go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
