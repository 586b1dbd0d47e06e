package viz

import (
	"strings"

	"gonum.org/v1/plot/vg"
)

// title returns the title of a static figure: the title, then its notes
// on lines of their own.
func (f *Figure) title() string {
	if len(f.Notes) == 0 {
		return f.Title
	}
	parts := append([]string{}, f.Notes...)
	if f.Title != "" {
		parts = append([]string{f.Title}, parts...)
	}
	return strings.Join(parts, "\n")
}

// wrapLines breaks every line of txt at spaces so that no line is wider
// than max as measured by width (a title and its notes stay inside the
// canvas, never clipped at its edges); a single word wider than max stays
// whole on its own line.
func wrapLines(txt string, max vg.Length, width func(string) vg.Length) string {
	var out []string
	for _, line := range strings.Split(txt, "\n") {
		cur := ""
		for _, word := range strings.Fields(line) {
			if cur != "" && width(cur+" "+word) > max {
				out = append(out, cur)
				cur = word
				continue
			}
			if cur == "" {
				cur = word
			} else {
				cur += " " + word
			}
		}
		out = append(out, cur)
	}
	return strings.Join(out, "\n")
}
