package kernel

import (
	"fmt"

	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// SetLambda changes the regularization parameter to newLambda, in either
// direction. The dual variables alpha stay: their domain, a product of
// simplices, does not depend on lambda, so they are feasible for the new
// problem and the dual objective at alpha is that of the new problem; w =
// 1/(lambda n) sum_j beta_j k(x_j, .) is implicit and follows. Everything
// derived from w at the old lambda is stale: the weighted average is
// reset (as solver.Solver.SetLambda does), and an exact gap pass at the
// new lambda is made at once, counted as n oracle calls and recorded in
// the trace with the event "lambda a -> b", which refreshes the block gap
// estimates, the exact gaps, the gap sampler, the active set of shrinking
// (every block active again) and the oracle pass batch FW reuses.
func (s *Solver) SetLambda(newLambda float64) error {
	if err := core.ValidateSchedule(newLambda, s.cfg.GapEvery, s.cfg.TraceEvery); err != nil {
		return fmt.Errorf("kernel: SetLambda: %w", err)
	}
	old := s.lambda
	if newLambda == old {
		return nil
	}
	s.lambda, s.cfg.Lambda = newLambda, newLambda
	if s.avg != nil {
		s.avg = core.NewAverage(len(s.alpha), run.WeightedAverage)
	}
	s.pending = nil
	if err := s.record(true); err != nil {
		return fmt.Errorf("kernel: SetLambda: the gap pass at lambda %g: %w", newLambda, err)
	}
	s.trace[len(s.trace)-1].Event = fmt.Sprintf("lambda %g -> %g", old, newLambda)
	s.loop.Reschedule(s.steps)
	return nil
}
