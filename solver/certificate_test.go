package solver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
	"github.com/fwstruct/fwstruct/solver/run"
)

// halfScore is a max oracle right at w = 0 whose score H is off by half
// the score part elsewhere: L - <w, psi>/2 instead of L - <w, psi>. It
// passes ValidateProblem.
type halfScore struct{ *oracles.Multiclass }

func (p halfScore) MaxOracle(i int, w []float64, dst []int32) ([]int32, float64) {
	y, _ := p.Multiclass.MaxOracle(i, w, dst)
	var psi oracles.SparseVec
	p.Psi(i, y, &psi)
	return y, p.Loss(i, y) - psi.Dot(w)/2
}

// relossed is a consistent problem whose losses the test multiplies by *f
// between runs: the data changing under a run, as a checkpoint resumed on
// other data did before checkpoints were fingerprinted. Its max oracle
// enumerates the classes.
type relossed struct {
	*oracles.Multiclass
	f *float64
}

func (p relossed) Loss(i int, y []int32) float64 { return *p.f * p.Multiclass.Loss(i, y) }

func (p relossed) MaxOracle(i int, w []float64, dst []int32) ([]int32, float64) {
	var psi oracles.SparseVec
	best := math.Inf(-1)
	p.ForEachLabeling(i, func(y []int32) {
		if h := oracles.H(p, i, y, w, &psi); h > best {
			best, dst = h, append(dst[:0], y...)
		}
	})
	return dst, best
}

// TestInconsistentOracle: issue 22 item 4. An oracle whose H disagrees
// with L - <w, psi> at its own labeling fails the step with the example's
// index; losses that shrink under a run make its gap negative (or, with a
// corner set, its cached scores wrong), which fails the run naming the
// likely causes instead of reporting convergence.
func TestInconsistentOracle(t *testing.T) {
	m := oraclestest.Multiclass(20, 3, 4, 7)
	if err := ValidateProblem(halfScore{m}); err != nil {
		t.Fatalf("ValidateProblem: %v", err)
	}
	s := mustNew(t, halfScore{m}, config{Lambda: 0.1, GapEvery: 1})
	_, err := s.Run(context.Background(), run.Stop{Passes: 5, Gap: 1e-12})
	var oe *oracles.OracleError
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), fmt.Sprintf("max oracle of example %d: returned H = ", oe.Example)) ||
		!strings.Contains(err.Error(), "inconsistent with Loss and Psi") {
		t.Fatalf("half-score oracle: Run returned %v", err)
	}
	for _, cfg := range []config{{}, {Averaging: true}, {Step: Pairwise}, {Sampling: run.GapSampling}} {
		cfg.Lambda, cfg.GapEvery = 0.1, 1
		f := 1.0
		s := mustNew(t, relossed{m, &f}, cfg)
		mustRun(t, s, run.Stop{Passes: 4})
		f = 0.1
		res, err := s.Run(context.Background(), run.Stop{Passes: 8, Gap: 1e-12})
		if err == nil || !strings.Contains(err.Error(), "the data changed under the run") || cfg.Step == FWStep && !strings.Contains(err.Error(), "negative duality gap") {
			t.Fatalf("%v: losses times 0.1 under the run: Run returned %+v, %v", cfg.Algorithm, res.Status, err)
		}
	}
}

// badPsi returns, for example 10 (past the 8 that ValidateProblem checks),
// a psi index out of range [0, d) on every labeling but the truth.
type badPsi struct{ *oracles.Multiclass }

func (p badPsi) Psi(i int, y []int32, dst *oracles.SparseVec) {
	p.Multiclass.Psi(i, y, dst)
	if i == 10 && y[0] != p.Truth(i)[0] {
		dst.Append(int32(p.Dim()), 1)
	}
}

// panicky is an oracle that panics on example 12 once w is nonzero (an
// index out of range in the user's own code).
type panicky struct{ *oracles.Multiclass }

func (p panicky) MaxOracle(i int, w []float64, dst []int32) ([]int32, float64) {
	if i == 12 && slices.ContainsFunc(w, func(v float64) bool { return v != 0 }) {
		var table []float64
		_ = table[i]
	}
	return p.Multiclass.MaxOracle(i, w, dst)
}

// TestProblemPanics: issue 22 item 9. A problem returning a psi index out
// of range, or panicking, in a step or in a gap pass's worker goroutine is
// the run's error naming the example, not a crash of the process.
func TestProblemPanics(t *testing.T) {
	m := oraclestest.Multiclass(20, 3, 4, 7)
	for _, tc := range []struct {
		p    oracles.Problem
		cfg  config
		want string
	}{
		{badPsi{m}, config{}, "example 10: panic in the problem's oracle, loss or psi"},
		{badPsi{m}, config{Algorithm: run.SSG}, "example 10: panic"},
		{badPsi{m}, config{Algorithm: run.FW}, "max oracle of example 10: psi index 12 outside [0, 12)"},
		{panicky{m}, config{}, "example 12: panic in the problem's oracle, loss or psi (a label or psi index out of range?): runtime error: index out of range"},
		{panicky{m}, config{Algorithm: run.FW}, "example 12: panic"},
		{panicky{m}, config{Sampling: run.Permutation, GapEvery: 0.5}, "example 12: panic"},
	} {
		cfg := tc.cfg
		cfg.Lambda = 0.1
		if cfg.GapEvery == 0 {
			cfg.GapEvery = 1
		}
		s := mustNew(t, tc.p, cfg, run.WithWorkers(2))
		_, err := s.Run(context.Background(), run.Stop{Passes: 5})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%T %v: Run returned %v, want an error saying %q", tc.p, cfg.Algorithm, err, tc.want)
		}
	}
}

// nanPsi returns, for example 15 (past the 8 that ValidateProblem checks),
// a NaN psi value on every labeling but the truth.
type nanPsi struct{ *oracles.Multiclass }

func (p nanPsi) Psi(i int, y []int32, dst *oracles.SparseVec) {
	p.Multiclass.Psi(i, y, dst)
	if i == 15 && y[0] != p.Truth(i)[0] && dst.Len() > 0 {
		dst.Val[0] = math.NaN()
	}
}

// TestNaNPsiAtRunTime: a NaN psi value that only shows at run time fails
// the run naming the example instead of stalling it (issue 22 item 13).
func TestNaNPsiAtRunTime(t *testing.T) {
	m := oraclestest.Multiclass(20, 3, 4, 7)
	for _, cfg := range []config{{}, {Algorithm: run.FW}, {Step: Pairwise}} {
		cfg.Lambda, cfg.GapEvery = 0.1, 1
		s := mustNew(t, nanPsi{m}, cfg)
		_, err := s.Run(context.Background(), run.Stop{Passes: 10})
		if err == nil || !strings.Contains(err.Error(), "example 15") {
			t.Errorf("%v %v: Run returned %v", cfg.Algorithm, cfg.Step, err)
		}
	}
}
