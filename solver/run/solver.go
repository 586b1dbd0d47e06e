package run

import (
	"context"
	"io"
	"time"
)

// Solver is what every solver of the family does (solver.Solver and its
// siblings, e.g. the soft-constraint and kernelized solvers), so that tools
// — the command line, the notebook layer — drive any of them alike.
type Solver interface {
	// Run optimizes until a criterion of stop is met or ctx is canceled;
	// it can be called again to continue.
	Run(ctx context.Context, stop Stop) (Result, error)
	// Current returns an exact evaluation of the current iterate, appending
	// it to the trace (observe-only) unless the last point describes it.
	Current() (Point, error)
	// Evaluate computes an exact evaluation of the current iterate without
	// recording it or changing any state.
	Evaluate() (Point, error)
	// Trace returns a copy of the trace.
	Trace() []Point
	// Passes returns the effective passes made so far.
	Passes() float64
	// Elapsed returns the solver time so far (exact evaluations excluded).
	Elapsed() time.Duration
	// SetProgress sets the callback called after every trace point.
	SetProgress(fn func(Point))
	// Save writes the whole state, so that the solver's Load continues the
	// run identically.
	Save(w io.Writer) error
}
