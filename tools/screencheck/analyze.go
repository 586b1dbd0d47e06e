package main

import (
	"fmt"
	"image"
	"image/color"
	"math"
)

// Stats describes the pixels of a screenshot.
type Stats struct {
	Width, Height int
	Background    color.RGBA // the most frequent color
	Ink           int        // pixels differing from Background by more than inkDelta
	Colors        int        // quantized non-background colors covering at least colorPixels pixels
	Chromatic     int        // saturated ink pixels
	Hues          int        // 30-degree hue sectors covering at least colorPixels saturated pixels
	// Line is the longest straight run of non-background pixels (difference
	// > lineDelta, so light grid lines count), horizontal as a fraction of
	// the width or vertical as a fraction of the height: an axis or a grid
	// line of a chart, never a line of text.
	Line        float64
	colorPixels int // the MinColorPixels the counts were made with
}

// InkFraction is Ink over the number of pixels.
func (s Stats) InkFraction() float64 {
	if s.Width*s.Height == 0 {
		return 0
	}
	return float64(s.Ink) / float64(s.Width*s.Height)
}

func (s Stats) String() string {
	bg := s.Background
	return fmt.Sprintf("%dx%d, background #%02x%02x%02x, ink %.2f%% (%d px), %d colors and %d hues of >= %d px, %d saturated px, longest line %.0f%%",
		s.Width, s.Height, bg.R, bg.G, bg.B, 100*s.InkFraction(), s.Ink, s.Colors, s.Hues, s.colorPixels, s.Chromatic, 100*s.Line)
}

// Thresholds are the minimums a screenshot must reach to show a chart.
type Thresholds struct {
	MinInk         float64 // fraction of non-background pixels
	MinColors      int     // distinct non-background colors
	MinColorPixels int     // pixels a color or hue must cover to count
	MinChromatic   int     // saturated pixels
	MinHues        int     // distinct hues among the saturated pixels
	MinLine        float64 // longest straight line, as a fraction of the width or height
}

// DefaultThresholds were tuned on 1000x700 screenshots of Chromium 156:
//
//	page                                 ink    colors hues saturated  line
//	sample chart (3 series, log axis)    2.24%  26     3     7,711     86%
//	one-series line chart                0.61%   9     1     1,583     77%
//	bar chart (one series)              26.1%    3     1   179,520     77%
//	blank page, failing chart script     0       0     0         0      0
//	axes without series                  0.18%   1     0         0     77%
//	Chromium error page (file missing)   0.67%   7     0         0      6%
//	a page of black text                21.2%    7     0         0      2%
//	a page of red error text             5.14%   8     1    30,578      4%
//
// Saturated pixels tell data marks from gray text, axes and error pages; the
// longest line tells a chart (axes, grid) from colored text.
var DefaultThresholds = Thresholds{
	MinInk:         0.004,
	MinColors:      3,
	MinColorPixels: 100,
	MinChromatic:   800,
	MinHues:        1,
	MinLine:        0.3,
}

const (
	inkDelta        = 32 // channel difference from the background that counts as ink
	lineDelta       = 8  // channel difference from the background that counts for lines
	saturationDelta = 80 // max - min channel of a saturated pixel
)

// Check returns the thresholds s falls short of (none: a chart).
func (t Thresholds) Check(s Stats) []string {
	var p []string
	if s.InkFraction() < t.MinInk {
		p = append(p, fmt.Sprintf("ink %.3f%% < %.3f%%", 100*s.InkFraction(), 100*t.MinInk))
	}
	if s.Colors < t.MinColors {
		p = append(p, fmt.Sprintf("%d colors < %d", s.Colors, t.MinColors))
	}
	if s.Chromatic < t.MinChromatic {
		p = append(p, fmt.Sprintf("%d saturated px < %d", s.Chromatic, t.MinChromatic))
	}
	if s.Hues < t.MinHues {
		p = append(p, fmt.Sprintf("%d hues < %d", s.Hues, t.MinHues))
	}
	if s.Line < t.MinLine {
		p = append(p, fmt.Sprintf("longest line %.0f%% < %.0f%%", 100*s.Line, 100*t.MinLine))
	}
	return p
}

// Analyze counts the pixels of img, colors and hues counting from
// DefaultThresholds.MinColorPixels pixels on.
func Analyze(img image.Image) Stats {
	return AnalyzeWith(img, DefaultThresholds.MinColorPixels)
}

// AnalyzeWith is Analyze with colors and hues counting from colorPixels
// pixels on.
func AnalyzeWith(img image.Image, colorPixels int) Stats {
	b := img.Bounds()
	st := Stats{Width: b.Dx(), Height: b.Dy(), colorPixels: colorPixels}
	freq := map[color.RGBA]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			freq[rgba(img.At(x, y))]++
		}
	}
	best := -1
	for c, n := range freq {
		if n > best || (n == best && less(c, st.Background)) {
			st.Background, best = c, n
		}
	}
	var bins [512]int
	var hues [12]int
	bg := st.Background
	for c, n := range freq {
		if diff(c.R, bg.R) <= inkDelta && diff(c.G, bg.G) <= inkDelta && diff(c.B, bg.B) <= inkDelta {
			continue
		}
		st.Ink += n
		bins[int(c.R>>5)<<6|int(c.G>>5)<<3|int(c.B>>5)] += n
		hi, lo := max(c.R, c.G, c.B), min(c.R, c.G, c.B)
		if int(hi)-int(lo) >= saturationDelta {
			st.Chromatic += n
			hues[int(hue(c)/30)%12] += n
		}
	}
	for _, n := range bins {
		if n >= colorPixels {
			st.Colors++
		}
	}
	for _, n := range hues {
		if n >= colorPixels {
			st.Hues++
		}
	}
	st.Line = longestLine(img, bg)
	return st
}

// longestLine returns the longest horizontal (over the width) or vertical
// (over the height) run of pixels differing from bg by more than lineDelta.
func longestLine(img image.Image, bg color.RGBA) float64 {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w == 0 || h == 0 {
		return 0
	}
	on := make([]bool, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := rgba(img.At(b.Min.X+x, b.Min.Y+y))
			on[y*w+x] = diff(c.R, bg.R) > lineDelta || diff(c.G, bg.G) > lineDelta || diff(c.B, bg.B) > lineDelta
		}
	}
	best := 0.0
	for y := 0; y < h; y++ {
		run := 0
		for x := 0; x < w; x++ {
			if run = (run + 1) * b2i(on[y*w+x]); float64(run)/float64(w) > best {
				best = float64(run) / float64(w)
			}
		}
	}
	for x := 0; x < w; x++ {
		run := 0
		for y := 0; y < h; y++ {
			if run = (run + 1) * b2i(on[y*w+x]); float64(run)/float64(h) > best {
				best = float64(run) / float64(h)
			}
		}
	}
	return best
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// rgba converts to 8-bit RGBA, composited over white when translucent
// (Chromium's screenshots are opaque).
func rgba(c color.Color) color.RGBA {
	r, g, b, a := c.RGBA()
	if a < 0xffff {
		w := 0xffff - a
		r, g, b = r+w, g+w, b+w
	}
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 0xff}
}

func less(a, b color.RGBA) bool {
	return uint32(a.R)<<16|uint32(a.G)<<8|uint32(a.B) < uint32(b.R)<<16|uint32(b.G)<<8|uint32(b.B)
}

func diff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// hue returns the hue of c in degrees, [0, 360).
func hue(c color.RGBA) float64 {
	r, g, b := float64(c.R), float64(c.G), float64(c.B)
	hi, lo := math.Max(r, math.Max(g, b)), math.Min(r, math.Min(g, b))
	if hi == lo {
		return 0
	}
	var h float64
	switch hi {
	case r:
		h = math.Mod((g-b)/(hi-lo), 6)
	case g:
		h = (b-r)/(hi-lo) + 2
	default:
		h = (r-g)/(hi-lo) + 4
	}
	h *= 60
	if h < 0 {
		h += 360
	}
	return h
}
