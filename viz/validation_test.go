package viz

import (
	"bytes"
	"math"
	"testing"
)

// validationFigure is a validation curve of two values of rho over three
// lambdas, with standard errors or (one fold) without.
func validationFigure(withErrors bool) *Figure {
	nan := math.NaN()
	errs := [][]float64{{0.01, 0.02, 0.015}, {0.01, nan, 0.02}}
	if !withErrors {
		errs = [][]float64{{nan, nan, nan}, {nan, nan, nan}}
	}
	curves := []ValidationSeries{
		{Name: "rho = 1", X: []float64{1, 0.1, 0.01}, Mean: []float64{0.3, 0.2, 0.25}, StdErr: errs[0]},
		{Name: "rho = 10", X: []float64{1, 0.1, 0.01}, Mean: []float64{0.32, 0.21, 0.22}, StdErr: errs[1]},
	}
	return ValidationCurve("Validation hamming_loss", "lambda", "hamming_loss", curves, 0.1, 0.2, "chosen: lambda = 0.1, rho = 1")
}

func TestValidationCurve(t *testing.T) {
	f := validationFigure(true)
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(f.Series) != 3 || !f.LogX || f.XRange != [2]float64{0.005, 2} || len(f.Notes) != 0 {
		t.Fatalf("%d series, log x %v, x range %v, notes %v", len(f.Series), f.LogX, f.XRange, f.Notes)
	}
	band := f.Series[1]
	if band.Lo[0] != 0.31 || band.Hi[0] != 0.33 || band.Lo[1] != 0.21 || band.Hi[1] != 0.21 {
		t.Errorf("band of rho = 10: %v %v (an unknown error draws no width)", band.Lo, band.Hi)
	}
	chosen := f.Series[2]
	if chosen.Name != "chosen: lambda = 0.1, rho = 1" || chosen.X[0] != 0.1 || chosen.Y[0] != 0.2 || !chosen.Markers {
		t.Errorf("chosen point %+v", chosen)
	}
	one := validationFigure(false)
	if one.Series[0].Lo != nil || len(one.Notes) != 1 {
		t.Errorf("one fold: band %v, notes %v", one.Series[0].Lo, one.Notes)
	}
	if f.Drawn() != 3 {
		t.Errorf("Drawn() = %d, want 3 series", f.Drawn())
	}
	var buf bytes.Buffer
	if err := f.WritePNG(&buf, 640, 400); err != nil || buf.Len() == 0 {
		t.Fatalf("PNG: %v", err)
	}
}
