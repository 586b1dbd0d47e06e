package run

import (
	"context"
	"io"
	"time"

	"github.com/fwstruct/fwstruct/oracles"
)

// Solver is a run of a method: its state can run a few passes, stop, be
// inspected, be saved, and go on. Every method's solver is one, so that
// tools — the command line, the notebook layer, tuning — drive any of them
// alike, through this interface alone.
type Solver interface {
	// Run optimizes until a criterion of stop is met or ctx is canceled;
	// it can be called again to continue.
	Run(ctx context.Context, stop Stop) (Result, error)
	// CheckStop reports whether stop's criteria are ones the method can
	// meet (an error naming the criterion when not), as Run would.
	CheckStop(stop Stop) error
	// Current returns an exact evaluation of the current iterate, appending
	// it to the trace (observe-only) unless the last point describes it.
	Current() (Point, error)
	// Evaluate computes an exact evaluation of the current iterate without
	// recording it or changing any state.
	Evaluate() (Point, error)
	// Trace returns a copy of the trace.
	Trace() []Point
	// Last returns the last trace point (ok is false before the first).
	Last() (Point, bool)
	// Passes returns the effective passes made so far (oracle calls / n).
	Passes() float64
	// Steps returns the block steps (batch methods: iterations) so far.
	Steps() int64
	// OracleCalls returns the max-oracle calls the method made.
	OracleCalls() int64
	// Elapsed returns the solver time so far (exact evaluations excluded).
	Elapsed() time.Duration
	// Method returns the method with its current settings (Lambda the
	// current one).
	Method() Method
	// Execution returns the execution of the steps (nil: sequential).
	Execution() Execution
	// Lambda returns the current regularization parameter.
	Lambda() float64
	// SetLambda moves the run to another lambda, keeping what stays
	// feasible (Osokin et al. 2016, Proposition 1); a method that cannot
	// says so.
	SetLambda(lambda float64) error
	// Weights returns a copy of the current weights w, or nil when the
	// model is not a weight vector (a kernel expansion).
	Weights() []float64
	// Predict returns the labelings the current model predicts for every
	// example of p (data of the training problem's kind) and the problem
	// whose losses and metrics score them: p itself, or the view the
	// method predicts with (LP + rounding for a factor graph).
	Predict(p oracles.Problem) ([][]int32, oracles.Problem, error)
	// Fork returns a new solver that continues from this one's state under
	// method m (a changed knob, another method of the same family, a
	// smaller lambda), or an error saying what the family cannot change
	// mid-run. The receiver is left as it was.
	Fork(m Method, opts ...Option) (Solver, error)
	// SetProgress sets the callback called after every trace point.
	SetProgress(fn func(Point))
	// SetWorkers sets the goroutines of the parallel parts (0: GOMAXPROCS).
	SetWorkers(k int) error
	// Save writes the whole state, method and execution included, so that
	// Load continues the run identically.
	Save(w io.Writer) error
}
