package viz

import (
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// TestWrapLinesKeepsTitlesInside: a note longer than the canvas is broken at
// spaces into lines that fit, no word is lost or split, and existing line
// breaks stay.
func TestWrapLinesKeepsTitlesInside(t *testing.T) {
	width := func(s string) vg.Length { return vg.Length(len(s)) }
	cases := []struct {
		in   string
		max  vg.Length
		want string
	}{
		{"short", 20, "short"},
		{"one two three four five", 9, "one two\nthree\nfour five"},
		{"title\na long note that wraps", 12, "title\na long note\nthat wraps"},
		{"averyveryverylongword x", 5, "averyveryverylongword\nx"},
		{"", 10, ""},
	}
	for _, c := range cases {
		got := wrapLines(c.in, c.max, width)
		if got != c.want {
			t.Errorf("wrapLines(%q, %v) = %q, want %q", c.in, c.max, got, c.want)
		}
		for _, line := range strings.Split(got, "\n") {
			if width(line) > c.max && strings.Contains(line, " ") {
				t.Errorf("line %q wider than %v", line, c.max)
			}
		}
		if strings.Join(strings.Fields(got), " ") != strings.Join(strings.Fields(c.in), " ") {
			t.Errorf("words changed: %q -> %q", c.in, got)
		}
	}
}

// TestLongNoteStaysInsideTheCanvas renders a figure whose note is far wider
// than the canvas: the title text is wrapped so that every line fits.
func TestLongNoteStaysInsideTheCanvas(t *testing.T) {
	f := &Figure{Title: "Primal suboptimality", Kind: Lines, XLabel: "x", YLabel: "y",
		Notes:  []string{strings.Repeat("a fork's history shared with its parent run (drawn once) ", 4)},
		Series: []Series{{Name: "s", X: []float64{0, 1}, Y: []float64{1, 2}}}}
	p, err := f.plot(px(720), px(400))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(p.Title.Text, "\n") {
		if w := p.Title.TextStyle.Width(line); w > px(720) {
			t.Errorf("title line %q is %v wide, the canvas %v", line, w, px(720))
		}
	}
	if n := strings.Count(p.Title.Text, "\n"); n < 3 {
		t.Errorf("a note 4 canvas widths long was not wrapped: %d line breaks", n)
	}
}
