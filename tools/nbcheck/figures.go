package main

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"html"
	"image"
	"image/png"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// What fwstruct's figures carry for this check (package viz): the number of
// things a figure draws, in a PNG tEXt chunk and on every chart element of
// an interactive page, and the comment before an inlined copy of ECharts.
const (
	pngDrawnKey  = "fwstruct:drawn"
	drawnAttr    = "data-fwstruct-drawn"
	inlineMarker = "/* ECharts "
	omittedClass = `class="fwstruct-omitted"`
)

var (
	srcdocAttr = regexp.MustCompile(`srcdoc="([^"]*)"`)
	drawnRe    = regexp.MustCompile(drawnAttr + `="(\d+)"`)
	dataPNG    = regexp.MustCompile(`data:image/png;base64,([A-Za-z0-9+/=]+)`)
	tagRe      = regexp.MustCompile(`<[^>]*>`)
)

// checkOutput checks the figures one output displays: every PNG image
// (alone or inside HTML) draws something, and every interactive chart
// draws something and has ECharts inlined (a chart that loads it from the
// network shows "ECharts could not be loaded" offline).
func checkOutput(o output, r Rules) []error {
	if o.OutputType != "display_data" && o.OutputType != "execute_result" {
		return nil
	}
	var errs []error
	errs = append(errs, failedClaims(o)...)
	if b64 := strings.TrimSpace(string(o.Data["image/png"])); b64 != "" {
		if err := checkPNG(b64); err != nil {
			errs = append(errs, fmt.Errorf("PNG figure: %w", err))
		}
	}
	h := string(o.Data["text/html"])
	for _, m := range dataPNG.FindAllStringSubmatch(h, -1) {
		if err := checkPNG(m[1]); err != nil {
			errs = append(errs, fmt.Errorf("image in HTML: %w", err))
		}
	}
	for _, m := range srcdocAttr.FindAllStringSubmatch(h, -1) {
		errs = append(errs, checkChartPage(html.UnescapeString(m[1]), r)...)
	}
	return errs
}

// claimFailedMarker is ssvmnb.ClaimFailedMarker, which ssvmnb writes into
// the display of a claim that the run shown contradicts.
const claimFailedMarker = "fwstruct-claim-failed"

// claimPrefix starts the Markdown line of a failed claim (ssvmnb.Claims).
var claimPrefix = regexp.MustCompile(`^\s*-?\s*✗?\s*(\*\*does not hold for this run:\*\*)?\s*`)

// failedClaims returns an error per claim of o that does not hold (its
// line carries claimFailedMarker), in one MIME type of o only (the first
// that has any, sorted).
func failedClaims(o output) []error {
	mimes := make([]string, 0, len(o.Data))
	for m := range o.Data {
		mimes = append(mimes, m)
	}
	slices.Sort(mimes)
	for _, m := range mimes {
		var errs []error
		for _, l := range strings.Split(string(o.Data[m]), "\n") {
			if !strings.Contains(l, claimFailedMarker) {
				continue
			}
			l = strings.TrimSpace(strings.Replace(l, "<!-- "+claimFailedMarker+" -->", "", 1))
			errs = append(errs, fmt.Errorf("claim does not hold for the run shown: %s", claimPrefix.ReplaceAllString(l, "")))
		}
		if len(errs) > 0 {
			return errs
		}
	}
	return nil
}

// checkChartPage checks an interactive chart page (an iframe's srcdoc).
func checkChartPage(page string, r Rules) []error {
	charts := drawnRe.FindAllStringSubmatch(page, -1)
	if len(charts) == 0 && !strings.Contains(page, "echarts") {
		return nil // not a chart
	}
	var errs []error
	if !r.AllowCDN && !strings.Contains(page, inlineMarker) {
		errs = append(errs, fmt.Errorf("interactive chart without an inlined ECharts: it loads the library from the network and shows \"ECharts could not be loaded\" offline (run `make notebook-deps`, which fetches viz/assets/echarts.min.js)"))
	}
	if len(charts) == 0 {
		errs = append(errs, fmt.Errorf("interactive chart without %s: cannot tell whether it draws anything", drawnAttr))
	}
	for k, c := range charts {
		if n, _ := strconv.Atoi(c[1]); n < 1 {
			errs = append(errs, fmt.Errorf("interactive chart %d of its page draws no data (%s=%s)", k+1, drawnAttr, c[1]))
		}
	}
	return errs
}

// checkPNG checks a base64 PNG: fwstruct figures say how much they draw;
// other images must not be blank (a single color).
func checkPNG(b64 string) error {
	b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(b64), ""))
	if err != nil {
		return fmt.Errorf("not base64: %v", err)
	}
	if v, ok := pngText(b)[pngDrawnKey]; ok {
		if n, _ := strconv.Atoi(v); n < 1 {
			return fmt.Errorf("the figure draws no data (%s=%s)", pngDrawnKey, v)
		}
		return nil
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("not a PNG image: %v", err)
	}
	if blank(img) {
		return fmt.Errorf("blank image (one color)")
	}
	return nil
}

// pngText returns the tEXt chunks of a PNG image.
func pngText(b []byte) map[string]string {
	out := map[string]string{}
	if len(b) < 8 || string(b[:8]) != "\x89PNG\r\n\x1a\n" {
		return out
	}
	for p := 8; p+12 <= len(b); {
		n := int(binary.BigEndian.Uint32(b[p:]))
		if n < 0 || p+12+n > len(b) {
			break
		}
		typ := string(b[p+4 : p+8])
		if typ == "tEXt" {
			if k, v, ok := bytes.Cut(b[p+8:p+8+n], []byte{0}); ok {
				out[string(k)] = string(v)
			}
		} else if typ == "IEND" {
			break
		}
		p += 12 + n
	}
	return out
}

// blank reports whether every pixel of img has the same color.
func blank(img image.Image) bool {
	r := img.Bounds()
	if r.Empty() {
		return true
	}
	first := img.At(r.Min.X, r.Min.Y)
	r0, g0, b0, a0 := first.RGBA()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if r1, g1, b1, a1 := img.At(x, y).RGBA(); r1 != r0 || g1 != g0 || b1 != b0 || a1 != a0 {
				return false
			}
		}
	}
	return true
}

// omittedNote returns the text of an output that is a note about a figure
// not drawn (ssvmnb.Show of a figure without data), "" otherwise.
func omittedNote(o output) string {
	h := string(o.Data["text/html"])
	if !strings.Contains(h, omittedClass) {
		return ""
	}
	return strings.TrimSpace(html.UnescapeString(tagRe.ReplaceAllString(h, "")))
}
