package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/fwstruct/fwstruct/internal/atomicfile"
)

// writeCtx is the context of the output writes of a command: canceled by
// SIGINT or SIGTERM, so that a write waiting for a named pipe's reader
// gives up (execute sets it).
var writeCtx = context.Background()

// writeFile writes an output file atomically: readers see the old file or
// the whole new one, never a part, even when the command is killed. A
// named pipe without a reader is waited for until the command is
// interrupted.
func writeFile(path string, write func(io.Writer) error) error {
	return atomicfile.WriteFileContext(writeCtx, path, 0o644, write)
}

// output is an output file named by a flag.
type output struct {
	flag, path string
}

// input is a file a command reads: the data, a checkpoint, a model, a
// trace. what names it in errors ("--resume", "the data").
type input struct {
	what, path string
}

// checkOutputs checks, before any long computation, that every output
// given can be written (atomicfile.CheckWritable: a folder that exists, a
// file that is not read-only) and that no two are one file: the same path,
// or paths whose links lead to the same file.
func checkOutputs(outs ...output) error {
	var seen []output
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		if err := atomicfile.CheckWritable(o.path); err != nil {
			return fmt.Errorf("--%s: %w", o.flag, err)
		}
		for _, prev := range seen {
			if sameFile(prev.path, o.path) {
				return fmt.Errorf("--%s and --%s name the same file %s", prev.flag, o.flag, o.path)
			}
		}
		seen = append(seen, o)
	}
	return nil
}

// checkNotInputs refuses an output that is one of the inputs of the run,
// compared by identity (the file every link leads to: device and inode),
// so that a typo never replaces a dataset, a checkpoint or a model.
func checkNotInputs(inputs []input, outs ...output) error {
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		for _, in := range inputs {
			if in.path != "" && sameFile(o.path, in.path) {
				what := in.what
				if what != "the data" {
					what += " " + in.path
				} else {
					what += " (" + in.path + ")"
				}
				return fmt.Errorf("--%s %s is %s, an input of this run: name another output file", o.flag, o.path, what)
			}
		}
	}
	return nil
}

// sameFile reports whether two paths name one file: both exist and are
// the same file (os.SameFile, links followed), or neither exists and they
// resolve to the same absolute path.
func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	switch {
	case errA == nil && errB == nil:
		return os.SameFile(fa, fb)
	case errA == nil || errB == nil:
		return false
	}
	return resolved(a) == resolved(b)
}

// resolved returns the absolute path of p with the links of its folder
// followed (p itself may not exist).
func resolved(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}
