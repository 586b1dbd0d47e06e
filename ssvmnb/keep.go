package ssvmnb

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fwstruct/fwstruct/viz"
)

// keptSuffix tells the session files of kept runs from those of trainers.
const keptSuffix = ".run"

// KeepRun stores a finished run (its name and trace) in the session
// folder, so that a later cell, a fresh program in GoNB, can draw it with
// KeptRun: e.g. the runs of a comparison too long for one cell, each
// measured in a cell of its own. A run kept under the same name before is
// replaced; ForgetAll forgets kept runs too.
func KeepRun(r viz.Run) error {
	path, err := sessionFile(r.Name + keptSuffix)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := writeFramed(&buf, keptContent, r); err != nil {
		return fmt.Errorf("ssvmnb: keep run %q: %w", r.Name, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("ssvmnb: keep run %q: %w", r.Name, err)
	}
	if err := writeBytes(path, buf.Bytes()); err != nil {
		return fmt.Errorf("ssvmnb: keep run %q: %w", r.Name, err)
	}
	return nil
}

// KeptRun returns the run kept under name by KeepRun, in its style (its
// method's, StyleOf, unless it was kept with one), or an error saying which
// cell to run first when there is none.
func KeptRun(name string) (viz.Run, error) {
	path, err := sessionFile(name + keptSuffix)
	if err != nil {
		return viz.Run{}, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return viz.Run{}, fmt.Errorf("ssvmnb: no run %q kept in this session (run the cell that measures it first): %w", name, err)
	}
	var r viz.Run
	if err := readFramed(bytes.NewReader(b), keptContent, &r, nil); err != nil {
		return viz.Run{}, fmt.Errorf("ssvmnb: kept run %q: %s: %w (keep it again)", name, path, err)
	}
	r.Style = RunStyle(r)
	return r, nil
}

// Restyle gives the series of f the colors of their methods (StyleOf), so
// that a figure built by hand, or by a helper that colors its runs by
// position, shows every method in its notebook-wide color (the figures of
// this package already draw every run in its style): a series named after a method, or after a method
// followed by a space and a suffix (" g_rho"), takes that method's color;
// the longest matching method wins. Other series keep theirs. It returns f.
func Restyle(f *viz.Figure, methods ...string) *viz.Figure {
	for k := range f.Series {
		s := &f.Series[k]
		best := ""
		for _, m := range methods {
			if (s.Name == m || strings.HasPrefix(s.Name, m+" ")) && len(m) > len(best) {
				best = m
			}
		}
		if best != "" {
			s.Color = StyleOf(best).Color
		}
	}
	return f
}
