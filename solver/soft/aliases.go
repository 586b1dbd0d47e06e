package soft

import "github.com/fwstruct/fwstruct/solver/run"

// TracePoint is one exact evaluation of a run; see run.Point, and the
// package documentation for what its objective fields hold here.
type TracePoint = run.Point

// Stop says when Run returns; see run.Stop.
type Stop = run.Stop

// Status says why Run returned; see run.Status.
type Status = run.Status

// Result says why Run returned and what the trace holds; see run.Result.
type Result = run.Result

var _ run.Solver = (*Solver)(nil)

// The reasons Run returns.
const (
	StatusPasses            = run.StatusPasses
	StatusConverged         = run.StatusConverged
	StatusEstimateConverged = run.StatusEstimateConverged
	StatusTime              = run.StatusTime
	StatusCanceled          = run.StatusCanceled
)
