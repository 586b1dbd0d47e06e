package run

import (
	"fmt"
	"time"
)

// Stop says when a solver's Run returns. Every non-zero criterion is
// active; Run returns at the first one met.
type Stop struct {
	// Passes stops once the solver has made this many effective passes in
	// total (oracle calls / n).
	Passes float64
	// Gap stops once an exact duality gap is at most Gap.
	Gap float64
	// GapEstimate stops once the sum of the stale block gaps the solver holds
	// is at most GapEstimate (a heuristic, uncertified criterion).
	GapEstimate float64
	// EarlyCheck, when positive (BCFW with Gap > 0), certifies the gap as
	// soon as the stale gap estimate falls below EarlyCheck * Gap, with an
	// exact gap pass (counted like the scheduled ones, which restart after
	// it), instead of waiting for the next scheduled pass. The reference
	// implementation of Osokin et al. (2016) does this with 0.8.
	EarlyCheck float64
	// Duration bounds the wall-clock time of this Run call.
	Duration time.Duration
}

// Status says why Run returned.
type Status int

const (
	// StatusPasses means the pass budget was reached.
	StatusPasses Status = iota
	// StatusConverged means an exact duality gap reached Stop.Gap.
	StatusConverged
	// StatusEstimateConverged means the stale gap estimate reached
	// Stop.GapEstimate.
	StatusEstimateConverged
	// StatusTime means Stop.Duration elapsed.
	StatusTime
	// StatusCanceled means the context was canceled.
	StatusCanceled
)

func (s Status) String() string {
	switch s {
	case StatusPasses:
		return "passes"
	case StatusConverged:
		return "converged"
	case StatusEstimateConverged:
		return "estimate-converged"
	case StatusTime:
		return "time"
	case StatusCanceled:
		return "canceled"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}
