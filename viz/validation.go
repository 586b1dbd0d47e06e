package viz

import "math"

// ValidationSeries is one validation curve: the mean of a metric over the
// folds at every value X of a hyperparameter, and its standard error
// (NaN when not computed, e.g. with one fold).
type ValidationSeries struct {
	Name            string
	X, Mean, StdErr []float64
}

// ValidationCurve returns the figure of validation curves (package tune):
// the mean metric against the hyperparameter (xLabel, log scale) with a
// band of one standard error on each side where it is known, markers at
// the values computed, and the chosen point (chosenX, chosenY) drawn as a
// marker of its own whose legend entry is label (a legend entry, unlike a
// vertical mark's label, is never clipped at the edge of the plot, where
// the chosen value often is).
func ValidationCurve(title, xLabel, metric string, curves []ValidationSeries, chosenX, chosenY float64, label string) *Figure {
	f := &Figure{Title: title, XLabel: xLabel, YLabel: metric, LogX: true}
	for _, c := range curves {
		s := Series{Name: c.Name, X: c.X, Y: c.Mean, Markers: true}
		known := false
		lo, hi := make([]float64, len(c.X)), make([]float64, len(c.X))
		for k := range c.X {
			e := math.NaN()
			if k < len(c.StdErr) {
				e = c.StdErr[k]
			}
			if !math.IsNaN(e) {
				known = true
			} else {
				e = 0
			}
			lo[k], hi[k] = c.Mean[k]-e, c.Mean[k]+e
		}
		if known {
			s.Lo, s.Hi = lo, hi
		}
		f.Series = append(f.Series, s)
	}
	f.Series = append(f.Series, Series{Name: label, X: []float64{chosenX}, Y: []float64{chosenY}, Markers: true})
	// A margin of a factor 2 on both sides, so that the markers at the ends
	// of the grid (often the chosen one) are drawn whole.
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range curves {
		for _, x := range c.X {
			if x > 0 && !math.IsInf(x, 0) {
				lo, hi = math.Min(lo, x), math.Max(hi, x)
			}
		}
	}
	if lo <= hi {
		f.XRange = [2]float64{lo / 2, hi * 2}
	}
	if len(curves) > 0 && !curves[0].hasErrors() {
		f.Notes = append(f.Notes, "one fold: no standard error")
	}
	return f
}

func (c ValidationSeries) hasErrors() bool {
	for _, e := range c.StdErr {
		if !math.IsNaN(e) {
			return true
		}
	}
	return false
}
