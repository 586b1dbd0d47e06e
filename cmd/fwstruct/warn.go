package main

import (
	"fmt"
	"io"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/solver"
)

// warnConditioning prints one line on stderr when the features of the
// training data are too large for lambda (solver.MeasureConditioning),
// saying what to do: --scale standardize when the data can be scaled and
// is not, else a larger --lambda. A measurement that fails is left to the
// solver, which reports the problem's defects itself.
func warnConditioning(stderr io.Writer, command string, d *datasets.Data, lambda float64) {
	c, err := solver.MeasureConditioning(d.Train, lambda)
	if err != nil {
		return
	}
	remedy := "use a larger --lambda"
	if datasets.Scalable(d.Name) && d.Scaler == nil {
		remedy = "use --scale standardize (or a larger --lambda)"
	}
	if w := c.Warning(remedy); w != "" {
		fmt.Fprintf(stderr, "fwstruct %s: warning: %s\n", command, w)
	}
}
