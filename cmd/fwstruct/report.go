package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fwstruct/fwstruct/internal/jsonerr"
	solverrun "github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/viz"
)

const reportUsage = `Usage: fwstruct report [flags] TRACE.json [NAME=TRACE.json ...]

Draws the figures of one or several traces written by fwstruct train --trace:
duality gap against passes and time, primal/dual, staleness of the gap estimate,
cache hit rates and losses, as PNG, SVG, PDF or interactive HTML (offline ECharts).
A figure without data for any of the traces (cache hits without a cache) is not
drawn; a line on stderr says why.`

// reportLine is the command line of fwstruct report.
type reportLine struct {
	outDir, formats string
	width, height   int
}

// declareReport declares the flags of report.
func declareReport(f *flagSet) *reportLine {
	r := &reportLine{outDir: "report", formats: "png,html", width: 800, height: 480}
	f.section("Output", "")
	f.String(&r.outDir, "out", "folder to write the figures to")
	f.String(&r.formats, "formats", "comma-separated formats: png, svg, pdf, html")
	f.Int(&r.width, "width", "width of static figures in pixels (100 to 10000)")
	f.Int(&r.height, "height", "height of static figures in pixels (100 to 10000)")
	pixels := func(name string, v int) flagCheck {
		return flagCheck{name, "between 100 and 10000 pixels", float64(v), v >= 100 && v <= 10000}
	}
	f.check(func() error { return checkFlags(pixels("width", r.width), pixels("height", r.height)) })
	return r
}

func runReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := newFlagSet("report")
	r := declareReport(f)
	f.help = f.simpleHelp(stderr, reportUsage)
	files, err := f.parseFiles(args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usageErrorf("report", "report needs at least one trace file (TRACE.json or NAME=TRACE.json)")
	}
	var runs []viz.Run
	var inputs []input
	for _, arg := range files {
		name, path, ok := strings.Cut(arg, "=")
		if !ok {
			name, path = strings.TrimSuffix(filepath.Base(arg), filepath.Ext(arg)), arg
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		inputs = append(inputs, input{"the trace", path})
		trace, err := parseTrace(raw)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		runs = append(runs, viz.Run{Name: name, Trace: trace})
	}
	exts := strings.Split(r.formats, ",")
	for _, e := range exts {
		switch e {
		case "png", "svg", "pdf", "html":
		default:
			return fmt.Errorf("unknown format %q (want png, svg, pdf or html)", e)
		}
	}
	if err := os.MkdirAll(r.outDir, 0o755); err != nil {
		return err
	}
	figs := reportFigures(runs)
	var outs []output
	for _, f := range figs {
		for _, e := range exts {
			outs = append(outs, output{"out", filepath.Join(r.outDir, f.name+"."+e)})
		}
	}
	if err := checkOutputs(outs...); err != nil {
		return err
	}
	if err := checkNotInputs(inputs, outs...); err != nil {
		return err
	}
	for _, f := range figs {
		if f.fig.Drawn() == 0 { // e.g. cache hits of runs without a cache: say so, draw nothing
			why := strings.Join(f.fig.Notes, "; ")
			if why == "" {
				why = "no data"
			}
			fmt.Fprintf(stderr, "report: %s not drawn: %s\n", f.name, why)
			continue
		}
		for _, e := range exts {
			path := filepath.Join(r.outDir, f.name+"."+e)
			write, err := f.fig.Encoder(path, r.width, r.height)
			if err == nil {
				err = writeFile(path, write)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			fmt.Fprintln(stdout, path)
		}
	}
	return nil
}

// figure is a named figure of a report.
type figure struct {
	name string
	fig  *viz.Figure
}

// reportFigures returns the figures of a report of runs.
func reportFigures(runs []viz.Run) []figure {
	return []figure{
		{"gap-passes", viz.GapCurves(runs, viz.Passes)},
		{"gap-time", viz.GapCurves(runs, viz.Seconds)},
		{"objectives", viz.ObjectiveCurves(runs, viz.Passes)},
		{"staleness", viz.StalenessCurves(runs)},
		{"cache-hits", viz.CacheHitRates(runs)},
		{"losses", viz.LossCurves(runs)},
	}
}

// parseTrace reads a trace written by fwstruct train --trace: a non-empty
// JSON array of trace points, with non-negative counters.
func parseTrace(b []byte) ([]solverrun.Point, error) {
	var trace []solverrun.Point
	if err := json.Unmarshal(b, &trace); err != nil {
		return nil, fmt.Errorf("not a trace (a JSON array of trace points): %w", jsonerr.Restate(err))
	}
	if len(trace) == 0 {
		return nil, errors.New("empty trace")
	}
	for k, p := range trace {
		if p.Pass < 0 || p.OracleCalls < 0 || p.Steps < 0 || p.Seconds < 0 || p.CacheHits < 0 || p.CacheMisses < 0 || p.DropSteps < 0 {
			return nil, fmt.Errorf("trace point %d: negative counter", k)
		}
	}
	return trace, nil
}
