// Package viz draws the figures of fwstruct: duality-gap curves, staleness
// of the gap estimates, predicted speed-ups, cache hit rates, losses, and
// bar charts and heat maps of parameter sweeps.
//
// A Figure is a renderer-independent description of a chart (series of
// points with optional min/max bands, log axes, reference lines, bars or
// heat-map cells). The trace helpers (GapCurves, ObjectiveCurves,
// StalenessCurves, SpeedupCurves, CacheHitRates, LossCurves, Aggregate)
// build figures from solver traces, each run in its Style (one color and
// dash pattern per method, see MethodStyle), with the runs' events (a knob
// switched, a fork) as vertical Marks, and Notes saying what a figure
// leaves out (SSG has no duality gap). WorkerFigures draws runs at
// several worker counts against a log axis of workers, with the solver
// time Amdahl's law predicts (AmdahlSeconds). A fork, whose trace starts with its
// parent's history, is drawn from the last point it shares with a run of
// the figure: the shared history once, in the parent's style. A figure
// renders
//
//   - statically with gonum/plot: WritePNG, WriteSVG, WritePDF, Save;
//   - interactively with Apache ECharts (options built with go-echarts):
//     WriteHTML writes a standalone page, IFrame embeds it in an iframe
//     for notebooks (GoNB: gonbui.DisplayHTML(iframe)).
//
// Drawn tells how much data a figure draws; a figure with nothing to draw
// should not be shown as if it had (ssvmnb says why instead). PNG images
// carry that count in a tEXt chunk (PNGDrawnKey) and HTML charts in an
// attribute (DrawnAttr), so that saved notebooks can be checked.
//
// # Sanitization
//
// gonum/plot panics on non-positive values on a log axis and JSON cannot
// hold NaN, so rendering drops, series by series, every point with a NaN
// or infinite coordinate, and on a log axis every point whose coordinate on
// that axis is <= 0 (bands likewise, point by point). A series left
// without points is drawn empty, with its legend entry. Static log axes end
// at 1, 2 or 5 times a power of ten. Inconsistent input (mismatched lengths, unknown colors,
// log axes on bars or heat maps, nothing to draw) is an error, never a
// panic; see Figure.Validate.
//
// # ECharts offline
//
// The HTML pages inline echarts.min.js when a local copy is found (see
// EChartsSource): $FWSTRUCT_ECHARTS, then viz/assets/echarts.min.js under
// the module root (gitignored), then the assets folder next to this
// package's sources. Otherwise, or when FWSTRUCT_ECHARTS=cdn, they load it
// from EChartsCDN, which needs a network connection. IFrames puts several
// figures in one page with one copy of the library. The asset is fetched from the npm registry with:
//
//	tmp=$(mktemp -d)
//	(cd "$tmp" && npm pack --silent echarts@5.6.0)
//	tar -xzf "$tmp/echarts-5.6.0.tgz" -C "$tmp" package/dist/echarts.min.js
//	mkdir -p viz/assets
//	cp "$tmp/package/dist/echarts.min.js" viz/assets/echarts.min.js
//	rm -rf "$tmp"
package viz
