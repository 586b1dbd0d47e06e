package core

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/solver/run"
)

// ValidateStop checks what every solver of the family requires of a Stop:
// finite non-negative criteria, EarlyCheck only with Gap, and some way to
// end the run (a criterion or a cancellable context). Solvers add their own
// checks (a gap that is never computed, estimates they do not keep) and
// prefix the error with their name.
func ValidateStop(ctx context.Context, stop run.Stop) error {
	for _, c := range []struct {
		name string
		v    float64
	}{{"Passes", stop.Passes}, {"Gap", stop.Gap}, {"GapEstimate", stop.GapEstimate}, {"EarlyCheck", stop.EarlyCheck}} {
		if c.v < 0 || math.IsNaN(c.v) || math.IsInf(c.v, 0) {
			return fmt.Errorf("Stop.%s must be finite and >= 0 (0: off), got %v", c.name, c.v)
		}
	}
	if stop.Duration < 0 {
		return fmt.Errorf("Stop.Duration must be >= 0 (0: off), got %v", stop.Duration)
	}
	if stop.EarlyCheck > 0 && stop.Gap == 0 {
		return errors.New("Stop.EarlyCheck needs Stop.Gap")
	}
	if stop == (run.Stop{}) && ctx.Done() == nil {
		return errors.New("Run needs a stopping criterion (Stop) or a cancellable context")
	}
	return nil
}
