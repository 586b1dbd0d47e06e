package viz_test

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/viz"
)

// Train BCFW with and without gap sampling on synthetic OCR-like data and
// plot their duality gaps against the effective passes.
func ExampleGapCurves() {
	train, _, err := datasets.SyntheticOCR(datasets.SyntheticConfig{TrainWords: 50, Seed: 1})
	if err != nil {
		panic(err)
	}
	var runs []viz.Run
	for _, s := range []run.Sampling{run.Uniform, run.GapSampling} {
		sv, err := solver.BCFW{Lambda: 0.01, Sampling: s, GapEvery: 2}.New(train)
		if err != nil {
			panic(err)
		}
		if _, err := sv.Run(context.Background(), run.Stop{Passes: 10}); err != nil {
			panic(err)
		}
		name := map[run.Sampling]string{run.Uniform: "uniform", run.GapSampling: "gap sampling"}[s]
		runs = append(runs, viz.Run{Name: name, Trace: sv.Trace()})
	}
	f := viz.GapCurves(runs, viz.Passes)
	// f.Save("gap.png", 800, 500) writes a file; notebooks display
	// f.IFrame(400) as HTML.
	if err := f.WriteSVG(io.Discard, 640, 400); err != nil {
		panic(err)
	}
	fmt.Printf("%s: %s on a log scale (%v) against %s\n", f.Title, f.YLabel, f.LogY, f.XLabel)
	for _, s := range f.Series {
		n := len(s.Y)
		fmt.Printf("%s (%s): gap decreased %v\n", s.Name, s.Color, n > 1 && s.Y[n-1] < s.Y[0])
	}
	// Output:
	// Duality gap: duality gap on a log scale (true) against effective passes
	// uniform (#1f77b4): gap decreased true
	// gap sampling (#ff7f0e): gap decreased true
}

// An interactive page: zeros, negative values and NaN cannot be drawn on a
// log axis and are dropped.
func ExampleFigure_WriteHTML() {
	f := &viz.Figure{
		Title: "Duality gap", XLabel: "passes", YLabel: "gap", LogY: true,
		Series: []viz.Series{{Name: "BCFW", X: []float64{0, 10, 20, 30}, Y: []float64{1, 0.1, 0, -1}}},
		HLines: []viz.HLine{{Y: 0.01, Label: "target"}},
	}
	var page strings.Builder
	if err := f.WriteHTML(&page); err != nil {
		panic(err)
	}
	html := page.String()
	fmt.Println("animation off:", strings.Contains(html, `"animation":false`))
	fmt.Println("log y axis:", strings.Contains(html, `"type":"log"`))
	fmt.Println("points kept:", strings.Count(html, `{"value":[`)) // 2 of the curve, 2 of the target line
	inline, _ := viz.EChartsSource()
	fmt.Println("self-contained:", inline == strings.Contains(html, "ECharts "+viz.EChartsVersion+" inlined"))
	// Output:
	// animation off: true
	// log y axis: true
	// points kept: 4
	// self-contained: true
}

// The median (line) and min/max (band) over seeds on a common grid. The
// third seed stopped at 10 passes: the curve stops there too, rather than
// continue as the median of the two other seeds.
func ExampleAggregate() {
	seeds := [][]run.Point{
		{{Pass: 0, Gap: 1}, {Pass: 10, Gap: 0.3}, {Pass: 20, Gap: 0.1}},
		{{Pass: 0, Gap: 1}, {Pass: 10, Gap: 0.2}, {Pass: 20, Gap: 0.05}},
		{{Pass: 0, Gap: 1}, {Pass: 10, Gap: 0.5}},
	}
	s := viz.Aggregate("BCFW", seeds, viz.Passes, nil, []float64{0, 5, 10, 15, 20})
	for i := range s.X {
		fmt.Printf("passes %2g: median %.3g in [%.3g, %.3g]\n", s.X[i], s.Y[i], s.Lo[i], s.Hi[i])
	}
	f := &viz.Figure{Title: "3 seeds", LogY: true, Series: []viz.Series{s}}
	fmt.Println("PNG error:", f.WritePNG(io.Discard, 400, 300))
	// Output:
	// passes  0: median 1 in [1, 1]
	// passes  5: median 1 in [1, 1]
	// passes 10: median 0.3 in [0.2, 0.5]
	// PNG error: <nil>
}

// A heat map of a 2-D parameter sweep, e.g. the passes BCFW with a cache
// needs to reach a gap, for each cache parameter pair (F, nu); NaN marks a
// run that never got there.
func ExampleFigure_heatMap() {
	f := &viz.Figure{
		Kind: viz.HeatMap, Title: "Passes to reach gap 0.01", XLabel: "nu", YLabel: "F",
		Rows: []string{"0.1", "0.25", "0.5"}, Cols: []string{"0.001", "0.01", "0.1"},
		Cells: [][]float64{{12, 11, 14}, {10, 9.5, 13}, {15, 16, math.NaN()}},
	}
	fmt.Println(f.WritePNG(io.Discard, 500, 350), f.WriteHTML(io.Discard))
	// Output:
	// <nil> <nil>
}
