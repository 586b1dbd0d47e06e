package viz

import (
	"fmt"
	"strconv"

	"gonum.org/v1/plot/vg"
)

// Dash is the dash pattern of a line.
type Dash int

const (
	// Solid is an unbroken line (the default).
	Solid Dash = iota
	// Dashed is a line of medium dashes.
	Dashed
	// Dotted is a line of dots.
	Dotted
	// DashDot alternates dashes and dots.
	DashDot
	// LongDash is a line of long dashes.
	LongDash
)

// dashNames are the names of the patterns; the first three are also
// ECharts' names of them.
var dashNames = [...]string{"solid", "dashed", "dotted", "dash-dot", "long dash"}

// String returns the name of the pattern.
func (d Dash) String() string {
	if d.valid() {
		return dashNames[d]
	}
	return "Dash(" + strconv.Itoa(int(d)) + ")"
}

// pattern returns the on/off lengths of the pattern in points (nil for a
// solid line).
func (d Dash) pattern() []float64 {
	switch d {
	case Dashed:
		return []float64{5, 3}
	case Dotted:
		return []float64{1, 2.5}
	case DashDot:
		return []float64{6, 2.5, 1.5, 2.5}
	case LongDash:
		return []float64{11, 3}
	}
	return nil
}

// vgDashes returns the pattern as gonum/plot dashes.
func (d Dash) vgDashes() []vg.Length {
	var out []vg.Length
	for _, v := range d.pattern() {
		out = append(out, vg.Points(v))
	}
	return out
}

// echartsType returns the pattern as an ECharts lineStyle.type: a name, or
// the on/off lengths in pixels.
func (d Dash) echartsType() interface{} {
	if d <= Dotted {
		return dashNames[d]
	}
	var px []float64
	for _, v := range d.pattern() {
		px = append(px, v*DPI/72)
	}
	return px
}

func (d Dash) valid() bool { return d >= Solid && d <= LongDash }

// Style is how one method is drawn: a color and a dash pattern, the same
// in every figure that shows it.
type Style struct {
	// Color is a "#rrggbb" color; empty means the default color of the
	// series' position.
	Color string
	// Dash is the dash pattern of the method's main curve.
	Dash Dash
}

// methodColors are the colors of MethodStyle: the palette without its gray,
// which is kept for reference lines.
var methodColors = func() []string {
	var out []string
	for _, c := range palette {
		if c != "#7f7f7f" {
			out = append(out, c)
		}
	}
	return out
}()

// methodDashes are the patterns of MethodStyle once the colors run out;
// Dashed and Dotted are left to the companion curves (averaged iterate,
// training loss) of a solid or patterned method.
var methodDashes = []Dash{Solid, LongDash, DashDot}

// MethodStyle returns the k-th of a sequence of distinct styles for
// methods (k >= 0): the 9 non-gray palette colors with solid lines, then
// with long dashes, then dash-dot (cycling after 27). Reference lines are
// gray, so no method looks like one.
func MethodStyle(k int) Style {
	if k < 0 {
		k = -k
	}
	n := len(methodColors)
	return Style{Color: methodColors[k%n], Dash: methodDashes[(k/n)%len(methodDashes)]}
}

// Styles is a table of method styles, one per method name: a method keeps
// its style in every figure that shows it, live or comparison, static or
// interactive (both renderers draw a series in its Color and Dash). Of
// assigns a method without one the first MethodStyle no method of the
// table has. ssvmnb keeps one table per notebook session (ssvmnb.StyleOf)
// and gives every run it draws its method's style.
type Styles map[string]Style

// Of returns the style of method, assigning one (and recording it in t)
// when the method has none yet.
func (t Styles) Of(method string) Style {
	if st, ok := t[method]; ok {
		return st
	}
	used := map[Style]bool{}
	for _, st := range t {
		used[st] = true
	}
	var st Style
	for k := 0; ; k++ {
		if st = MethodStyle(k); !used[st] || k > 3*len(t)+27 {
			break
		}
	}
	t[method] = st
	return st
}

// companion returns the dash of a companion curve (the averaged iterate's
// gap, the training loss) of a method drawn with d: dashed for a solid or
// dotted method, dotted otherwise.
func (d Dash) companion() Dash {
	if d == Solid || d == Dotted {
		return Dashed
	}
	return Dotted
}

// refDashes are the patterns of successive reference lines.
var refDashes = []Dash{Dashed, Dotted, DashDot, LongDash}

// lineDash returns the effective pattern of a series.
func (s Series) lineDash() Dash {
	if s.Dash == Solid && s.Dashed {
		return Dashed
	}
	return s.Dash
}

func checkDash(d Dash, what string) error {
	if !d.valid() {
		return fmt.Errorf("viz: %s: unknown dash pattern %d", what, int(d))
	}
	return nil
}
