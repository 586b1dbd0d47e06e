package solver

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/run"
)

// faulty wraps a valid problem and breaks one part of the contract.
type faulty struct {
	*oracles.Chain
	truthLoss float64 // added to every loss
	truthPsi  bool    // psi gets a constant extra entry, also on the truth
	repeat    bool    // psi repeats its first index
	nanScore  bool    // the oracle returns NaN
}

func (f *faulty) Loss(i int, y []int32) float64 { return f.Chain.Loss(i, y) + f.truthLoss }

func (f *faulty) Psi(i int, y []int32, dst *oracles.SparseVec) {
	f.Chain.Psi(i, y, dst)
	if f.truthPsi {
		dst.Append(int32(f.Dim()-1), 1)
	}
	if f.repeat && dst.Len() > 0 {
		dst.Append(dst.Idx[0], 1)
	}
}

func (f *faulty) MaxOracle(i int, w []float64, dst []int32) ([]int32, float64) {
	y, h := f.Chain.MaxOracle(i, w, dst)
	if f.nanScore {
		h = math.NaN()
	}
	return y, h
}

func TestNewRejectsInvalidProblems(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    *faulty
		want string
	}{
		{"truth loss", &faulty{truthLoss: 0.1}, "own ground truth"},
		{"truth psi", &faulty{truthPsi: true}, "must vanish on the ground truth"},
		{"repeated index", &faulty{repeat: true}, "repeats index"},
		{"NaN score", &faulty{nanScore: true}, "non-finite score"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.Chain = smallChain(41)
			_, err := newSolver(tc.f, config{Lambda: 1})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New = %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
}

// ValidateProblem refuses a problem without examples (issue 22, item 13):
// there is nothing to certify.
func TestValidateProblemRefusesNoExamples(t *testing.T) {
	empty, err := oracles.NewMulticlass(2, 3, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateProblem(empty); err == nil || !strings.Contains(err.Error(), "0 examples") {
		t.Errorf("ValidateProblem of no examples: %v", err)
	}
}

// bounded is a chain whose model needs w_j <= 0 on every third coordinate.
type bounded struct{ *oracles.Chain }

func (b bounded) WeightBounds() (lower, upper []float64) {
	upper = fill(b.Dim(), math.Inf(1))
	for j := 0; j < len(upper); j += 3 {
		upper[j] = 0
	}
	return nil, upper
}

func TestBoundedProblemGetsItsBox(t *testing.T) {
	p := bounded{smallChain(42)}
	_, upper := p.WeightBounds()
	lower := fill(p.Dim(), -0.05)
	for _, user := range []*Box{nil, {Lower: lower}} {
		s := mustNew(t, p, config{Lambda: 0.01, Box: user})
		if s.Box() == nil {
			t.Fatal("no box applied for a Bounded problem")
		}
		mustRun(t, s, run.Stop{Passes: 20})
		w := s.Weights()
		for j, x := range w {
			if x > upper[j] || (user != nil && x < lower[j]) {
				t.Fatalf("w[%d] = %v outside the model's and the user's bounds", j, x)
			}
		}
		for _, pt := range s.Trace() {
			if math.Abs(pt.Primal-pt.Dual-pt.Gap) > 1e-9*(1+pt.Primal) || pt.Gap < -1e-9 {
				t.Fatalf("certificate broken with the automatic box at pass %v: %+v", pt.Pass, pt)
			}
		}
	}
	if _, err := newSolver(p, config{Lambda: 1, Box: &Box{Lower: fill(p.Dim(), 1)}}); err == nil {
		t.Fatal("New accepted a box that excludes every value the model allows")
	}
}

// failing is a chain whose oracle fails on example 3 once armed.
type failing struct {
	*oracles.Chain
	armed bool
}

var errBroken = errors.New("non-submodular weights")

func (f *failing) MaxOracleErr(i int, w []float64, dst []int32) ([]int32, float64, error) {
	if f.armed && i == 3 {
		return dst, math.NaN(), errBroken
	}
	y, h := f.Chain.MaxOracle(i, w, dst)
	return y, h, nil
}

func TestOracleErrorStopsRun(t *testing.T) {
	for _, cfg := range []config{{}, {Step: Pairwise}, {Algorithm: run.FW}, {Algorithm: run.SSG}, {Cache: cacheRule{Enabled: true}}} {
		f := &failing{Chain: smallChain(43)}
		cfg.Lambda = 0.1
		s := mustNew(t, f, cfg)
		mustRun(t, s, run.Stop{Passes: 3})
		f.armed = true
		calls := s.OracleCalls()
		_, err := s.Run(context.Background(), run.Stop{Passes: 30})
		var oe *oracles.OracleError
		if !errors.As(err, &oe) || oe.Example != 3 || !errors.Is(err, errBroken) {
			t.Fatalf("%v: Run = %v, want the oracle error of example 3", cfg.Algorithm, err)
		}
		if s.OracleCalls() < calls {
			t.Fatal("oracle calls went backwards")
		}
		if cfg.Algorithm == run.BCFW {
			checkConsistency(t, s)
		}
	}
}

// approx answers the max oracle with the best of the truth and one fixed
// labeling, an approximate oracle; Exact gives the chain back (or nil).
type approx struct {
	*oracles.Chain
	exact bool
}

func (a approx) MaxOracle(i int, w []float64, dst []int32) ([]int32, float64) {
	var psi oracles.SparseVec
	y := make([]int32, a.SeqLen(i))
	h := oracles.H(a.Chain, i, y, w, &psi)
	if h < 0 {
		return append(dst[:0], a.Truth(i)...), 0
	}
	return append(dst[:0], y...), h
}

func (a approx) Exact() oracles.Problem {
	if !a.exact {
		return nil
	}
	return a.Chain
}

func TestApproximateOracleKeepsExactCertificates(t *testing.T) {
	c := smallChain(44)
	s := mustNew(t, approx{c, true}, config{Lambda: 0.1, GapEvery: 1})
	mustRun(t, s, run.Stop{Passes: 10})
	for _, pt := range s.Trace() {
		if pt.ApproximateGap {
			t.Fatal("gap marked approximate although an exact oracle exists")
		}
	}
	cur, err := s.Current()
	if err != nil {
		t.Fatal(err)
	}
	ref := mustNew(t, c, config{Lambda: 0.1})
	ref.x.set(s.x.v) // the primal of s's iterate under the exact chain oracle
	if fresh := mustEval(t, ref); math.Abs(fresh.Primal-cur.Primal) > 1e-12 {
		t.Fatalf("primal %v, exact %v", cur.Primal, fresh.Primal)
	}
	if math.Abs(cur.Primal-cur.Dual-cur.Gap) > 1e-9 {
		t.Fatalf("certificate broken: %+v", cur)
	}

	u := mustNew(t, approx{c, false}, config{Lambda: 0.1, GapEvery: 1})
	mustRun(t, u, run.Stop{Passes: 4})
	for _, pt := range u.Trace() {
		if !pt.ApproximateGap {
			t.Fatal("gap of an approximate oracle without an exact one not marked")
		}
	}
	if _, err := u.Run(context.Background(), run.Stop{Gap: 0.01, Passes: 10}); err == nil {
		t.Fatal("Stop.Gap accepted although no gap can be certified")
	}
}

func TestStopRejectsRunsThatCannotEnd(t *testing.T) {
	p := smallChain(45)
	for _, tc := range []struct {
		cfg  config
		stop run.Stop
	}{
		{config{Algorithm: run.SSG}, run.Stop{Gap: 0.1}},
		{config{Algorithm: run.SSG}, run.Stop{Gap: 0.1, Passes: 10}},
		{config{GapEvery: math.Inf(1)}, run.Stop{Gap: 0.1}},
		{config{Algorithm: run.FW}, run.Stop{GapEstimate: 0.1}},
		{config{}, run.Stop{Passes: math.Inf(1)}},
		{config{}, run.Stop{Passes: math.NaN()}},
	} {
		tc.cfg.Lambda = 1
		s := mustNew(t, p, tc.cfg)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		if _, err := s.Run(ctx, tc.stop); err == nil {
			t.Errorf("%v with %+v: Run accepted a run that cannot stop", tc.cfg.Algorithm, tc.stop)
		}
		cancel()
	}
	s := mustNew(t, p, config{Lambda: 1, GapEvery: math.Inf(1), TraceEvery: 1})
	if res, err := s.Run(context.Background(), run.Stop{Gap: 1e-3, Passes: 500}); err != nil || res.Status != run.StatusConverged {
		t.Fatalf("observe-only evaluations certify the gap: %+v, %v", res, err)
	}
}
