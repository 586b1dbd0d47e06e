package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/fwstruct/fwstruct/internal/atomicfile"
)

// writeFile writes an output file atomically: readers see the old file or
// the whole new one, never a part, even when the command is killed.
func writeFile(path string, write func(io.Writer) error) error {
	return atomicfile.WriteFile(path, 0o644, write)
}

// output is an output file named by a flag.
type output struct {
	flag, path string
}

// checkOutputs checks, before any long computation, that every output
// given can be written and that no two share a file.
func checkOutputs(outs ...output) error {
	seen := map[string]string{}
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		abs, err := filepath.Abs(o.path)
		if err != nil {
			return fmt.Errorf("--%s: %w", o.flag, err)
		}
		if other, dup := seen[abs]; dup {
			return fmt.Errorf("--%s and --%s name the same file %s", other, o.flag, o.path)
		}
		seen[abs] = o.flag
		if err := atomicfile.CheckWritable(o.path); err != nil {
			return fmt.Errorf("--%s: %w", o.flag, err)
		}
	}
	return nil
}
