package soft

import (
	"fmt"
	"math"
)

// setRho changes the penalty of the agreement constraints to newRho, in
// either direction (Fork does it when its method's Rho differs). As for
// SetLambda, the marginals mu stay: their domain, a product of simplices,
// depends on neither lambda nor rho, so f_rho at mu is the dual objective
// of the new soft problem (Meshi eq. 5). delta = A mu is scaled by
// 1/(rho M): an exact gap pass at the new rho, made at once, counted as
// Blocks() oracle calls and recorded in the trace with the event
// "rho a -> b", recomputes it from mu and refreshes the stale block gaps
// and the gap sampler.
func (s *Solver) setRho(newRho float64) error {
	if !(newRho > 0) || math.IsInf(newRho, 1) {
		return fmt.Errorf("soft: rho must be a positive finite number (the penalty of the soft constraints, Meshi eq. 5), got %v", newRho)
	}
	old := s.cfg.Rho
	if newRho == old {
		return nil
	}
	s.cfg.Rho, s.invRho = newRho, 1/newRho
	if err := s.recordChange("rho", old, newRho); err != nil {
		return fmt.Errorf("soft: %w", err)
	}
	return nil
}
