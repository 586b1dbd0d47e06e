package soft

import (
	"fmt"

	"github.com/fwstruct/fwstruct/solver/internal/core"
)

// SetLambda changes the regularization parameter to newLambda, in either
// direction. The marginals mu, the dual variables, stay: their domain, a
// product of simplices, depends on neither lambda nor rho, so f_rho at mu
// is the dual objective of the new problem. w = Psi mu, with Psi scaled by
// 1/(lambda M), follows; delta = A mu depends on rho only and stays. Both
// are recomputed from mu by an exact gap pass at the new lambda, made at
// once, counted as Blocks() oracle calls and recorded in the trace with
// the event "lambda a -> b", which also refreshes the stale block gaps
// and the gap sampler.
func (s *Solver) SetLambda(newLambda float64) error {
	if err := core.ValidateSchedule(newLambda, s.cfg.GapEvery, s.cfg.TraceEvery); err != nil {
		return fmt.Errorf("soft: SetLambda: %w", err)
	}
	old := s.cfg.Lambda
	if newLambda == old {
		return nil
	}
	s.cfg.Lambda, s.invLambda = newLambda, 1/newLambda
	if err := s.recordChange("lambda", old, newLambda); err != nil {
		return fmt.Errorf("soft: SetLambda: %w", err)
	}
	return nil
}

// recordChange makes the exact gap pass at a parameter changed from old
// to now, recorded with the event "name old -> now", and restarts the
// schedule of gap passes there.
func (s *Solver) recordChange(name string, old, now float64) error {
	if err := s.record(true); err != nil {
		return fmt.Errorf("the gap pass at %s %g: %w", name, now, err)
	}
	s.trace[len(s.trace)-1].Event = fmt.Sprintf("%s %g -> %g", name, old, now)
	s.loop.Reschedule(s.steps)
	return nil
}
