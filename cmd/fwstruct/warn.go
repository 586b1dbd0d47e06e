package main

import (
	"fmt"
	"io"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/kernel"
	"github.com/fwstruct/fwstruct/solver/run"
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

// linearFeatures reports whether the method's features are the data's
// (every method but a kernel one with an rbf or poly kernel, whose k(x, x)
// does not grow with the scale of x as <x, x> does), so that the
// conditioning of the data at lambda governs its steps.
func linearFeatures(m run.Method) bool {
	switch m := m.(type) {
	case kernel.BCFW:
		return m.Kernel.Kind == kernel.Linear
	case kernel.FW:
		return m.Kernel.Kind == kernel.Linear
	case kernel.Exact:
		return m.Kernel.Kind == kernel.Linear
	}
	return true
}
