package viz

import (
	"context"
	"math"
	"sync"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
)

var (
	runsOnce sync.Once
	runsVal  []Run
	runsErr  error
)

// solverRuns trains a few solvers on small synthetic OCR data (about 0.3 s
// in all) and returns their traces: BCFW with observe-only evaluations
// (stale gap estimates), BCPFW with gap sampling, cache, averaging and
// both losses, batch FW, and SSG (no gap at all).
func solverRuns(t testing.TB) []Run {
	t.Helper()
	runsOnce.Do(func() {
		train, test, err := datasets.SyntheticOCR(datasets.SyntheticConfig{TrainWords: 60, TestWords: 30, Seed: 1})
		if err != nil {
			runsErr = err
			return
		}
		for _, c := range []struct {
			name   string
			method run.Method
			opts   []run.Option
		}{
			{"BCFW", solver.BCFW{Lambda: 0.01, GapEvery: 4, TraceEvery: 1}, []run.Option{run.WithTest(test)}},
			{"BCPFW gap cache", solver.BCFW{Lambda: 0.01, GapEvery: 1, Sampling: run.GapSampling, Step: solver.Pairwise,
				Cache: &solver.Cache{}, Average: run.WeightedAverage, Seed: 2}, []run.Option{run.WithTest(test), run.WithTrainLoss(true)}},
			{"FW", solver.FW{Lambda: 0.01, GapEvery: 1}, nil},
			{"SSG", solver.SSG{Lambda: 0.01, GapEvery: 1}, nil},
		} {
			s, err := c.method.New(train, c.opts...)
			if err != nil {
				runsErr = err
				return
			}
			if _, err := s.Run(context.Background(), run.Stop{Passes: 20}); err != nil {
				runsErr = err
				return
			}
			runsVal = append(runsVal, Run{Name: c.name, Trace: s.Trace()})
		}
	})
	if runsErr != nil {
		t.Fatal(runsErr)
	}
	return runsVal
}

// nastyRun is a hand-made trace whose values defeat a naive log plot:
// zeros, negative values, NaN and infinities in every field that is plotted.
func nastyRun() Run {
	nan, inf := math.NaN(), math.Inf(1)
	vals := []float64{1, 0.5, 0, -0.1, nan, inf, -inf, 1e-3, 1e-300, 1e300}
	tr := make([]run.Point, len(vals))
	for i, v := range vals {
		tr[i] = run.Point{
			Pass: float64(i), OracleCalls: int64(10 * i), Seconds: float64(i) / 10,
			Primal: v, Dual: -v, Gap: v, GapEstimate: 2 * v, GapAvg: v,
			TrainLoss: v, TestLoss: v, PredictedSpeedup: v,
			CacheHits: int64(3 * i), CacheMisses: int64(i * i),
		}
	}
	tr[3].Seconds = nan
	return Run{Name: "nasty", Trace: tr}
}

// allNaNRun has no finite value at all.
func allNaNRun() Run {
	nan := math.NaN()
	tr := make([]run.Point, 5)
	for i := range tr {
		tr[i] = run.Point{Pass: float64(i), Primal: nan, Dual: nan, Gap: nan, GapEstimate: nan,
			GapAvg: nan, TrainLoss: nan, TestLoss: nan, PredictedSpeedup: nan}
	}
	return Run{Name: "all NaN", Trace: tr}
}

// figureCase is a named figure of the rendering tests.
type figureCase struct {
	name string
	fig  *Figure
}

// allFigures returns every kind of figure on realistic and nasty data.
func allFigures(t testing.TB) []figureCase {
	runs := solverRuns(t)
	mixed := append(append([]Run(nil), runs...), nastyRun(), allNaNRun(), Run{Name: "empty"})
	seeds := [][]run.Point{runs[0].Trace, runs[1].Trace, nastyRun().Trace}
	agg := &Figure{Title: "Median and min/max", XLabel: "passes", YLabel: "gap", LogY: true,
		Series: []Series{
			Aggregate("BCFW seeds", seeds, Passes, nil, nil),
			Aggregate("test loss", seeds, Passes, func(p run.Point) float64 { return p.TestLoss }, []float64{0, 5, 10, 15, 20}),
		},
		HLines: []HLine{{Y: 0.1, Label: "target gap"}, {Y: -1, Label: "dropped"}, {Y: math.NaN()}}}
	logBoth := &Figure{Title: "log-log <&\"'>", LogX: true, LogY: true, Series: []Series{
		{Name: "zeros & negatives", X: []float64{0, 1, 2, -3, 4, 1e-9}, Y: []float64{1, 0, -1, 2, math.Inf(1), 3}, Markers: true},
		{Name: "band", X: []float64{1, 2, 3, 4}, Y: []float64{2, 3, 4, 5}, Lo: []float64{1, 0, 3, math.NaN()}, Hi: []float64{3, 4, 5, 6}, Dashed: true, Color: "#000"},
		{Name: "single point", X: []float64{5}, Y: []float64{5}},
		{Name: "nothing left", X: []float64{-1, 0}, Y: []float64{1, 1}},
	}}
	allDropped := &Figure{Title: "all dropped", LogY: true, Series: []Series{{Name: "zero", X: []float64{1, 2}, Y: []float64{0, 0}}}}
	hit := CacheHitRates(mixed)
	hit.YRange = [2]float64{0, 1}
	bars := &Figure{Kind: Bars, Title: "Passes to reach gap 0.1", XLabel: "sampling", YLabel: "passes",
		Categories: []string{"uniform", "perm", "gap"},
		Series: []Series{
			{Name: "FW steps", Y: []float64{run.PassesToGap(runs[0].Trace, 0.2), 12, math.NaN()}},
			{Name: "pairwise", Y: []float64{-3, 0, math.Inf(1)}},
		}}
	heat := &Figure{Kind: HeatMap, Title: "Cache sweep", XLabel: "nu", YLabel: "F", BlankLabel: "not reached",
		Rows: []string{"0.1", "0.25", "0.5"}, Cols: []string{"0.001", "0.01", "0.1", "1"},
		Cells: [][]float64{{1, 2, 3, 4}, {5, math.NaN(), 7, math.Inf(1)}, {9, 10, 11, 12.5}}}
	constHeat := &Figure{Kind: HeatMap, Rows: []string{"a"}, Cols: []string{"b", "c"}, Cells: [][]float64{{0, 0}}, CellFormat: "%.1f"}
	nanHeat := &Figure{Kind: HeatMap, Rows: []string{"a"}, Cols: []string{"b"}, Cells: [][]float64{{math.NaN()}}}
	workersPasses, workersSeconds := WorkerFigures(scalingStudy())
	return []figureCase{
		{"gap-passes", GapCurves(mixed, Passes)},
		{"gap-seconds", GapCurves(mixed, Seconds)},
		{"gap-calls", GapCurves(runs, OracleCalls)},
		{"objective", ObjectiveCurves(mixed, Passes)},
		{"staleness", StalenessCurves(mixed)},
		{"speedup", SpeedupCurves(mixed)},
		{"cache", hit},
		{"loss", LossCurves(mixed)},
		{"aggregate", agg},
		{"log-log", logBoth},
		{"styled", styledFigure()},
		{"all-dropped", allDropped},
		{"hlines-only", &Figure{LogY: true, HLines: []HLine{{Y: 2, Label: "two"}}}},
		{"bars", bars},
		{"heatmap", heat},
		{"heatmap-constant", constHeat},
		{"heatmap-nan", nanHeat},
		{"workers-passes", workersPasses},
		{"workers-seconds", workersSeconds},
		{"validation", validationFigure(true)},
		{"validation-one-fold", validationFigure(false)},
	}
}

// styledFigure has every dash pattern, several reference lines, marks
// (one outside the data) and notes.
func styledFigure() *Figure {
	f := &Figure{Title: "Styles", XLabel: "passes", YLabel: "gap", LogY: true,
		Notes:  []string{"not shown: ssg (no duality gap)", "second note"},
		HLines: []HLine{{Y: 0.5, Label: "epsilon"}, {Y: 0.25, Label: "kappa epsilon"}, {Y: 0.1, Label: "long", Dash: LongDash}},
		Marks:  []Mark{{X: 2, Label: "fork: sampling uniform -> gap"}, {X: 100, Label: "outside"}}}
	for d := Solid; d <= LongDash; d++ {
		st := MethodStyle(int(d))
		f.Series = append(f.Series, Series{Name: d.String(), X: []float64{0, 1, 2, 3}, Y: []float64{1, 0.8 / float64(d+1), 0.5 / float64(d+1), 0.2 / float64(d+1)},
			Color: st.Color, Dash: d})
	}
	return f
}
