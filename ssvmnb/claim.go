package ssvmnb

import (
	"fmt"
	"math"
	"strings"
	"sync/atomic"

	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/viz"
)

// ClaimFailedMarker is written into the output of a claim that does not
// hold for the run shown (an HTML comment in the Markdown display, invisible
// once rendered); tools/nbcheck fails a notebook whose outputs hold it.
const ClaimFailedMarker = "fwstruct-claim-failed"

// Claims are the statements a notebook cell's text makes about the runs it
// shows, each built from those runs: the numbers the text quotes (Quote)
// and the comparisons and orderings it makes (Check: "BCFW below FW at
// every time", "the cache drops below BCFW after pass k", a ratio of two
// measured times). Show displays them as Markdown under the cell's figures,
// each with a mark: ✓ when it holds, ✗ when the run shown contradicts it,
// which also writes ClaimFailedMarker into the output so that the notebook
// check fails. A notebook's text then says what the claims are about and
// never types a number of a run itself:
//
//	var c ssvmnb.Claims
//	o := ssvmnb.Order(bcfw.Curve(viz.Seconds, nil), fw.Curve(viz.Seconds, nil))
//	c.Check(o.Always(), "BCFW's gap is below FW's at every solver time both reach (%s)", o)
//	c.Quote("gap at pass 40: BCFW %s, FW %s", ssvmnb.Cell(bcfw.Current().Gap), ssvmnb.Cell(fw.Current().Gap))
//	c.Show()
//
// The zero value is an empty list.
type Claims struct {
	// Title, when set, heads the list.
	Title string
	items []claim
}

// standIn is set once this program loaded stand-in data (the synthetic
// fallback of OCR): the comparisons of a notebook's text are about the real
// data, so Claims shows them as not checked rather than failed.
var standIn atomic.Bool

type claim struct {
	text    string
	checked bool // a comparison, not only a quoted number
	holds   bool
}

// Quote adds a statement quoting numbers of the run (formatted like
// fmt.Sprintf): shown, nothing to check.
func (c *Claims) Quote(format string, args ...any) {
	c.items = append(c.items, claim{text: fmt.Sprintf(format, args...), holds: true})
}

// Check adds a comparison the text makes, formatted like fmt.Sprintf from
// the numbers that decide it; holds says whether the run shown bears it out.
// It returns holds.
func (c *Claims) Check(holds bool, format string, args ...any) bool {
	c.items = append(c.items, claim{text: fmt.Sprintf(format, args...), checked: true, holds: holds})
	return holds
}

// Failed returns the text of the comparisons that do not hold (none on
// stand-in data, see Markdown).
func (c *Claims) Failed() []string {
	var out []string
	for _, it := range c.items {
		if !it.holds && !standIn.Load() {
			out = append(out, it.text)
		}
	}
	return out
}

// Markdown renders the claims as a Markdown list: ✓ before a comparison
// that holds, ✗ and ClaimFailedMarker with one that does not, a plain
// bullet before a quoted number. In a program that loaded stand-in data
// (Load's synthetic fallback of OCR) the comparisons, made by the text
// about the real data, are marked as not checked, with what this run gives.
func (c *Claims) Markdown() string {
	var b strings.Builder
	if c.Title != "" {
		fmt.Fprintf(&b, "**%s**\n\n", c.Title)
	}
	for _, it := range c.items {
		switch {
		case !it.checked:
			fmt.Fprintf(&b, "- %s\n", it.text)
		case standIn.Load():
			fmt.Fprintf(&b, "- ○ *not checked: the text is about the real data, this run is on stand-in data (%s here):* %s\n",
				map[bool]string{true: "holds", false: "does not hold"}[it.holds], it.text)
		case it.holds:
			fmt.Fprintf(&b, "- ✓ %s\n", it.text)
		default:
			fmt.Fprintf(&b, "- ✗ **does not hold for this run:** %s <!-- %s -->\n", it.text, ClaimFailedMarker)
		}
	}
	return b.String()
}

// Show displays the claims in a notebook (see Markdown). Elsewhere it
// writes the failed ones to Notes.
func (c *Claims) Show() {
	if len(c.items) == 0 {
		return
	}
	if !output.Active() {
		if Notes != nil {
			for _, f := range c.Failed() {
				fmt.Fprintln(Notes, "ssvmnb: claim does not hold: "+f)
			}
		}
		return
	}
	output.Markdown(c.Markdown())
	output.Sync()
}

// Curve returns the run's value (nil: the duality gap) against x at its
// trace points with a finite value: the curve its figures draw.
func (t *Trainer) Curve(x viz.XAxis, value func(run.Point) float64) viz.Series {
	if value == nil {
		value = func(p run.Point) float64 { return p.Gap }
	}
	s := viz.Series{Name: t.Name}
	for _, p := range t.Trace() {
		if xv, v := x.Of(p), value(p); finite(xv) && finite(v) {
			s.X, s.Y = append(s.X, xv), append(s.Y, v)
		}
	}
	return s
}

// Curve returns the median over the group's seeds of value (nil: the
// duality gap) against x, the bold line Compare draws.
func (g Group) Curve(x viz.XAxis, value func(run.Point) float64) viz.Series {
	return viz.Aggregate(g.Name, g.traces(), x, value, nil)
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// ValueAt returns the value of curve s at x, linearly interpolated between
// its points (x coordinates non-decreasing); NaN outside the range of s.
func ValueAt(s viz.Series, x float64) float64 {
	n := len(s.X)
	if n == 0 || x < s.X[0] || x > s.X[n-1] {
		return math.NaN()
	}
	for i := 1; i < n; i++ {
		if x <= s.X[i] {
			x0, x1 := s.X[i-1], s.X[i]
			if x1 == x0 {
				return s.Y[i]
			}
			return s.Y[i-1] + (s.Y[i]-s.Y[i-1])*(x-x0)/(x1-x0)
		}
	}
	return s.Y[n-1]
}

// Ordering is how one curve lies against another over the x range both
// cover, compared at the points of the first (the other interpolated
// there).
type Ordering struct {
	// A and B name the curves.
	A, B string
	// Compared counts the points of A inside B's x range where the two
	// differ, Below those of them where A's value is below B's; Level
	// counts the points where they are equal (runs from the same start, a
	// fork before it moves), which are left out.
	Compared, Below, Level int
	// Since is the x of the first point of A's last stretch of points
	// below B (NaN when A's last compared point is not below): from Since
	// on, A stays below B.
	Since float64
	// From and To are the x range compared (NaN when nothing is).
	From, To float64
}

// Order compares curve a with curve b (see Ordering).
func Order(a, b viz.Series) Ordering {
	o := Ordering{A: a.Name, B: b.Name, Since: math.NaN(), From: math.NaN(), To: math.NaN()}
	for i, x := range a.X {
		vb := ValueAt(b, x)
		if !finite(vb) || !finite(a.Y[i]) {
			continue
		}
		if math.Abs(a.Y[i]-vb) <= 1e-12*math.Max(math.Abs(a.Y[i]), math.Abs(vb)) {
			o.Level++
			continue
		}
		if o.Compared == 0 {
			o.From = x
		}
		o.To = x
		o.Compared++
		if a.Y[i] < vb {
			o.Below++
			if math.IsNaN(o.Since) {
				o.Since = x
			}
		} else {
			o.Since = math.NaN()
		}
	}
	return o
}

// Always reports whether A is below B at every point compared (and some
// point is).
func (o Ordering) Always() bool { return o.Compared > 0 && o.Below == o.Compared }

// Never reports whether A is below B at no point compared (and some point
// is): B is below or level with A throughout.
func (o Ordering) Never() bool { return o.Compared > 0 && o.Below == 0 }

// String says how the curves compare, e.g. "bcfw below fw at 9 of 9
// points, x from 1 to 40".
func (o Ordering) String() string {
	if o.Compared == 0 {
		return fmt.Sprintf("%s and %s differ nowhere on a shared x range", o.A, o.B)
	}
	s := fmt.Sprintf("%s below %s at %d of %d points, x from %s to %s", o.A, o.B, o.Below, o.Compared, Cell(o.From), Cell(o.To))
	if !math.IsNaN(o.Since) && o.Below < o.Compared {
		s += fmt.Sprintf(", below from x = %s on", Cell(o.Since))
	}
	if o.Level > 0 {
		s += fmt.Sprintf(" (level at %d more)", o.Level)
	}
	return s
}

// Within returns the points of curve s with from <= x <= to: a claim about
// part of a run ("after the first pass", "after the fork").
func Within(s viz.Series, from, to float64) viz.Series {
	out := viz.Series{Name: s.Name}
	for i, x := range s.X {
		if x >= from && x <= to {
			out.X, out.Y = append(out.X, x), append(out.Y, s.Y[i])
		}
	}
	return out
}
