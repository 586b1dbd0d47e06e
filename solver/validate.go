package solver

import (
	"context"
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// ValidateProblem checks what is cheap to check of a problem before
// training, and New calls it: that there is an example and a weight; on
// every example, that the ground truth has
// zero loss and psi_i(y_i) = 0 (every value zero), which the starting point
// of the dual (all mass on the truth, w = 0) and the certificate rely on;
// on the first 8 examples, that the max oracle at w = 0 (clipped to the
// problem's bounds) returns a labeling whose psi has distinct indices in
// [0, d) and finite values and whose score H is finite and equals its loss.
//
// It does not compare the oracle with brute force: run
// oraclestest.CheckProblem on small instances of a new model for that.
func ValidateProblem(p oracles.Problem) (err error) {
	i := -1 // the example being checked
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("solver: invalid problem: %w", &core.PanicError{Example: i, Value: r})
		}
	}()
	n, d := p.Len(), p.Dim()
	if n < 1 || d < 1 {
		return fmt.Errorf("solver: invalid problem: %d examples of dimension %d; need at least one of each", n, d)
	}
	var psi oracles.SparseVec
	for i = 0; i < n; i++ {
		y := p.Truth(i)
		if l := p.Loss(i, y); l != 0 {
			return fmt.Errorf("solver: invalid problem: example %d has loss L_i(y_i) = %v on its own ground truth; a structural SVM needs L_i(y_i) = 0", i, l)
		}
		p.Psi(i, y, &psi)
		for k, v := range psi.Val[:len(psi.Idx)] {
			if v != 0 {
				return fmt.Errorf("solver: invalid problem: example %d has psi_i(y_i) = %v at index %d; psi_i(y) = phi(x_i, y_i) - phi(x_i, y) must vanish on the ground truth", i, v, psi.Idx[k])
			}
		}
	}
	w := make([]float64, d)
	if b, ok := p.(oracles.Bounded); ok {
		lo, hi := b.WeightBounds()
		(&Box{Lower: lo, Upper: hi}).clipAll(w, w)
	}
	oracle := oracles.OracleFunc(p)
	seen := make(map[int32]bool)
	for i = 0; i < min(n, 8); i++ {
		y, h, err := oracle(i, w, nil)
		if err != nil {
			return fmt.Errorf("solver: invalid problem: %w", err)
		}
		p.Psi(i, y, &psi)
		if len(psi.Idx) != len(psi.Val) {
			return fmt.Errorf("solver: invalid problem: example %d: psi has %d indices but %d values", i, len(psi.Idx), len(psi.Val))
		}
		clear(seen)
		for k, j := range psi.Idx {
			switch v := psi.Val[k]; {
			case j < 0 || int(j) >= d:
				return fmt.Errorf("solver: invalid problem: example %d: psi index %d outside [0, %d)", i, j, d)
			case seen[j]:
				return fmt.Errorf("solver: invalid problem: example %d: psi repeats index %d (indices must be distinct)", i, j)
			case math.IsNaN(v) || math.IsInf(v, 0):
				return fmt.Errorf("solver: invalid problem: example %d: psi has value %v at index %d", i, v, j)
			}
			seen[j] = true
		}
		l := p.Loss(i, y)
		if math.IsNaN(l) || math.IsInf(l, 0) || l < 0 {
			return fmt.Errorf("solver: invalid problem: example %d: loss %v of the oracle's labeling must be finite and >= 0", i, l)
		}
		if want := l - psi.Dot(w); math.Abs(h-want) > 1e-9*math.Max(1, math.Abs(want)) {
			return fmt.Errorf("solver: invalid problem: example %d: the max oracle returns H = %v but its labeling has L - <w, psi> = %v", i, h, want)
		}
	}
	return nil
}

// CheckStop returns the error Run would return for stop before running: a
// criterion that is negative, NaN or infinite, or a combination that can
// never stop the run (Stop.Gap with SSG, with an approximate oracle that
// has no exact counterpart, or with BCFW whose gap is never computed). A
// zero Stop is refused too (Run accepts it only with a cancellable
// context). Tools call it to reject their flags before a long setup.
func (s *Solver) CheckStop(stop run.Stop) error {
	return s.checkStoppable(stop, context.Background())
}

// checkStoppable validates stop and refuses a Run that could never end.
func (s *Solver) checkStoppable(stop run.Stop, ctx context.Context) error {
	st := s.alg.stoppable()
	if st.NoGap == "" && s.exact == nil {
		st.NoGap = "the problem's oracle is approximate and has no exact counterpart, so no gap is ever certified and Stop.Gap can never stop the run; use Passes, GapEstimate or Duration"
	}
	if err := core.CheckStop(ctx, stop, st); err != nil {
		return fmt.Errorf("solver: %w", err)
	}
	return nil
}
