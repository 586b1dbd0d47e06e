package ssvmnb

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/fwstruct/fwstruct/viz"
)

// Every method keeps one style (color and dash pattern) in every figure of
// a notebook. Since each GoNB cell is a program of its own, the styles are
// kept in the session folder (styles.json), assigned in the order the
// methods first appear in a figure (viz.MethodStyle); ForgetAll clears them,
// so that a notebook run from the top assigns them alike every time.

var stylesMu sync.Mutex

func stylesFile() string { return filepath.Join(sessionDir(), "styles.json") }

// seedSuffix matches the " (seed 3)" Seeds appends to its trainers' names.
var seedSuffix = regexp.MustCompile(` \(seed \d+\)$`)

// methodOf returns the method a run name belongs to.
func methodOf(name string) string { return seedSuffix.ReplaceAllString(name, "") }

// StyleOf returns the style of a method (a trainer's or group's name, the
// seed suffix of Seeds aside), assigning the first free one of
// viz.MethodStyle when the method has none yet.
func StyleOf(method string) viz.Style {
	stylesMu.Lock()
	defer stylesMu.Unlock()
	method = methodOf(method)
	styles := readStyles()
	if st, ok := styles[method]; ok {
		return st
	}
	st := styles.Of(method)
	writeStyles(styles) // best effort: without a session folder styles last one cell
	return st
}

// RunStyle returns the style of a run: its own, else its method's
// (StyleOf).
func RunStyle(r viz.Run) viz.Style {
	if r.Style.Color != "" {
		return r.Style
	}
	return StyleOf(r.Name)
}

// SetStyle fixes the style of a method for the figures that follow.
func SetStyle(method string, st viz.Style) error {
	if st.Color == "" {
		return errors.New("ssvmnb: a style needs a color")
	}
	stylesMu.Lock()
	defer stylesMu.Unlock()
	styles := readStyles()
	styles[methodOf(method)] = st
	return writeStyles(styles)
}

// memStyles holds the styles of each session folder in this program, for
// when the folder cannot be written.
var memStyles = map[string]viz.Styles{}

func readStyles() viz.Styles {
	out := viz.Styles{}
	if b, err := os.ReadFile(stylesFile()); err == nil && json.Unmarshal(b, &out) == nil {
		return out
	}
	for k, v := range memStyles[sessionDir()] {
		out[k] = v
	}
	return out
}

func writeStyles(styles viz.Styles) error {
	memStyles[sessionDir()] = styles
	b, err := json.Marshal(styles)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(sessionDir(), 0o755); err != nil {
		return fmt.Errorf("ssvmnb: styles: %w", err)
	}
	if err := writeBytes(stylesFile(), b); err != nil {
		return fmt.Errorf("ssvmnb: styles: %w", err)
	}
	return nil
}

// forgetStyles clears the styles of the session.
func forgetStyles() error {
	stylesMu.Lock()
	defer stylesMu.Unlock()
	delete(memStyles, sessionDir())
	if err := os.Remove(stylesFile()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
