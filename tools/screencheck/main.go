// Command screencheck opens an HTML page in headless Chromium, takes a
// screenshot and checks that the page drew a chart rather than a blank or
// error page.
//
// Usage:
//
//	screencheck [flags] PAGE.html
//
// Chromium runs with a fresh profile directory, no network services, and a
// virtual time budget (-budget, milliseconds) so the page's scripts run to
// completion before the screenshot. The screenshot (-width x -height) passes
// when all of these hold (see Thresholds):
//
//   - ink: at least -min-ink of the pixels differ from the background (the
//     most frequent color) by more than 32 in some channel;
//   - colors: at least -min-colors distinct colors (RGB quantized to 3 bits
//     per channel, background excluded) each cover -min-color-pixels pixels;
//   - chromatic: at least -min-chromatic pixels are saturated (max - min
//     channel >= 80), in at least -min-hues hue sectors of 30 degrees with
//     -min-color-pixels pixels each. Chart series are drawn in saturated
//     palette colors; text, axes and error pages are mostly gray;
//   - line: a straight horizontal or vertical run of non-background pixels
//     (difference > 8, so light grid lines count) spans at least -min-line
//     of the width or height: an axis or grid line, which text never has.
//
// Exit status: 0 the page shows a chart, 1 it does not, 2 the check could not
// be made (no Chromium, no screenshot, bad usage).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

func main() {
	chromium := flag.String("chromium", "/usr/bin/chromium", "Chromium executable")
	pngPath := flag.String("png", "", "keep the screenshot in this file (default: a temporary file, removed)")
	width := flag.Int("width", 1000, "window width")
	height := flag.Int("height", 700, "window height")
	budget := flag.Int("budget", 5000, "virtual time budget of the page's scripts, in milliseconds")
	timeout := flag.Duration("timeout", 2*time.Minute, "wall-clock limit of the Chromium run")
	th := DefaultThresholds
	flag.Float64Var(&th.MinInk, "min-ink", th.MinInk, "minimum fraction of non-background pixels")
	flag.IntVar(&th.MinColors, "min-colors", th.MinColors, "minimum number of distinct non-background colors")
	flag.IntVar(&th.MinColorPixels, "min-color-pixels", th.MinColorPixels, "pixels a color (or hue) must cover to count")
	flag.IntVar(&th.MinChromatic, "min-chromatic", th.MinChromatic, "minimum number of saturated pixels")
	flag.IntVar(&th.MinHues, "min-hues", th.MinHues, "minimum number of distinct hues among the saturated pixels")
	flag.Float64Var(&th.MinLine, "min-line", th.MinLine, "minimum length of the longest straight line, as a fraction of the width or height")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: screencheck [flags] PAGE.html\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	page := flag.Arg(0)

	shot := *pngPath
	if shot == "" {
		f, err := os.CreateTemp("", "screencheck-*.png")
		if err != nil {
			fail(2, "%v", err)
		}
		f.Close()
		shot = f.Name()
		defer os.Remove(shot)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := Screenshot(ctx, *chromium, page, shot, *width, *height, *budget); err != nil {
		fail(2, "%s: %v", page, err)
	}
	img, err := readPNG(shot)
	if err != nil {
		fail(2, "%s: screenshot: %v", page, err)
	}
	if b := img.Bounds(); b.Dx() != *width || b.Dy() != *height {
		fail(2, "%s: screenshot is %dx%d, want %dx%d", page, b.Dx(), b.Dy(), *width, *height)
	}
	st := Analyze(img)
	problems := th.Check(st)
	verdict := "chart seen"
	if len(problems) > 0 {
		verdict = "NO CHART: " + strings.Join(problems, "; ")
	}
	fmt.Printf("screencheck: %s: %s -> %s\n", page, st, verdict)
	if *pngPath != "" {
		fmt.Printf("screencheck: screenshot in %s\n", *pngPath)
	}
	if len(problems) > 0 {
		fmt.Println("screencheck: 0 passed, 1 failed")
		os.Exit(1)
	}
	fmt.Println("screencheck: 1 passed, 0 failed")
}

func fail(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "screencheck: "+format+"\n", args...)
	os.Exit(code)
}

// Screenshot renders page (a local file) in headless Chromium into the PNG
// file shot, after a virtual time budget of budgetMS milliseconds.
func Screenshot(ctx context.Context, chromium, page, shot string, width, height, budgetMS int) error {
	abs, err := filepath.Abs(page)
	if err != nil {
		return err
	}
	if _, err := os.Stat(abs); err != nil {
		return err
	}
	absShot, err := filepath.Abs(shot)
	if err != nil {
		return err
	}
	profile, err := os.MkdirTemp("", "screencheck-profile-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(profile)
	if err := os.Remove(absShot); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	args := []string{
		"--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--no-first-run", "--hide-scrollbars",
		"--user-data-dir=" + profile,
		"--screenshot=" + absShot,
		fmt.Sprintf("--window-size=%d,%d", width, height),
		fmt.Sprintf("--virtual-time-budget=%d", budgetMS),
		"file://" + abs,
	}
	cmd := exec.CommandContext(ctx, chromium, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Kill Chromium's helper processes too when the time is up.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return fmt.Errorf("chromium did not finish: %v\n%s", ctx.Err(), tail(out))
	}
	if err != nil {
		return fmt.Errorf("chromium: %v\n%s", err, tail(out))
	}
	if _, err := os.Stat(absShot); err != nil {
		return fmt.Errorf("chromium wrote no screenshot: %v\n%s", err, tail(out))
	}
	return nil
}

// tail returns the last lines of a command's output, for error messages.
func tail(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) > 15 {
		lines = lines[len(lines)-15:]
	}
	return strings.Join(lines, "\n")
}

func readPNG(path string) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return png.Decode(f)
}
