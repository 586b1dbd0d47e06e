package auto

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/internal/gendata"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/execution"
	"github.com/fwstruct/fwstruct/solver/kernel"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/soft"
)

// slowOracle makes every max-oracle call of a problem take at least d.
type slowOracle struct {
	oracles.Problem
	d time.Duration
}

func (s slowOracle) MaxOracle(i int, w []float64, dst []int32) ([]int32, float64) {
	t0 := time.Now()
	y, h := s.Problem.MaxOracle(i, w, dst)
	for time.Since(t0) < s.d {
	}
	return y, h
}

// TestChoose: every kind of problem gets its method, the reason names it,
// and a run of auto reports the method it chose.
func TestChoose(t *testing.T) {
	mc := oraclestest.Multiclass(30, 4, 5, 1)
	chain := oraclestest.Chain(oraclestest.ChainConfig{N: 30, MaxLen: 8, Labels: 10, Features: 20, Density: 0.5, Seed: 3})
	// two classes of 2,000 dense features: a call costs about 2.5 planes
	dense := oraclestest.Multiclass(30, 2, 2000, 1)
	fgm, err := gendata.MultiLabel(10, 3, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	fg, err := factorgraph.NewRounded(fgm)
	if err != nil {
		t.Fatal(err)
	}
	rbf := kernel.Kernel{Kind: kernel.RBF, Gamma: 0.5}
	planes := solver.MultiPlane{Lambda: 0.1, Step: solver.Pairwise}
	for _, tc := range []struct {
		name    string
		p       oracles.Problem
		m       Method
		workers int
		want    run.Method
		exec    run.Execution
		reason  string
	}{
		{"multiclass", mc, Method{Lambda: 0.1}, 2, solver.Exact{Lambda: 0.1, Sampling: run.Permutation, Shrinking: true, GapEvery: 20}, nil, "liblinear -s 4"},
		{"kernel", mc, Method{Lambda: 0.1, Kernel: &rbf}, 2, kernel.Exact{Lambda: 0.1, Kernel: rbf, Sampling: run.Permutation, Shrinking: true}, nil, "rbf kernel"},
		{"chain", chain, Method{Lambda: 0.1}, 2, planes, nil, "a chain, 10 labels: a Viterbi call counts"},
		{"chain, a mini-batch given", chain, Method{Lambda: 0.1}, 2, planes, nil, "cost ratio of 8 ("},
		{"chain, async given", chain, Method{Lambda: 0.1}, 2, solver.Recommended(0.1), nil, "the async execution given runs BCFW's block steps"},
		{"soft", fg, Method{Lambda: 0.1, Rho: 0.5}, 2, soft.BCFW{Lambda: 0.1, Rho: 0.5, Sampling: run.ExamplePermutation}, nil, "rho 0.5"},
		{"costly oracle", slowOracle{mc, 300 * time.Microsecond}, Method{Lambda: 0.1}, 2, planes, nil, "multi-plane BCFW with pairwise steps"},
		{"factor graph", fg, Method{Lambda: 0.1}, 1, planes, nil, "working sets of planes answer most steps without an oracle call"},
		{"oracle of a few planes", slowOracle{dense, 0}, Method{Lambda: 0.1}, 2, planes, nil, "plane evaluations"},
		{"cheap oracle, simulated workers given", slowOracle{mc, 0}, Method{Lambda: 0.1}, 2, solver.Recommended(0.1), nil, "do not pay for a mini-batch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var given run.Execution
			switch {
			case strings.Contains(tc.name, "mini-batch given"):
				given = execution.MiniBatch{Batch: 2}
			case strings.Contains(tc.name, "async given"):
				given = execution.Async{}
			case strings.Contains(tc.name, "simulated workers given"):
				given = execution.Simulated{Workers: 3}
			}
			c, err := Choose(tc.p, tc.m, tc.workers, given)
			if err != nil {
				t.Fatal(err)
			}
			if mp, ok := c.Method.(solver.MultiPlane); ok && mp.Cost != nil {
				// the cost ratio is measured: a power of 2 from the rule's bound
				if r := mp.Cost.Ratio; !(r >= 1) || r != math.Exp2(math.Round(math.Log2(r))) || mp.Cost.Update != 0 {
					t.Fatalf("cost rule %+v, want a power of 2", *mp.Cost)
				}
				if want, ok := tc.want.(solver.MultiPlane); ok {
					want.Cost = mp.Cost
					tc.want = want
				}
			}
			if !run.Same(c.Method, tc.want) || c.Execution != tc.exec {
				t.Fatalf("chose %+v with %v, want %+v with %v", c.Method, c.Execution, tc.want, tc.exec)
			}
			if !strings.Contains(c.String(), tc.reason) {
				t.Fatalf("reason %q does not say %q", c, tc.reason)
			}
			opts := []run.Option{run.WithWorkers(tc.workers)}
			if given != nil {
				opts = append(opts, run.WithExecution(given))
			}
			s, err := tc.m.New(tc.p, opts...)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Method(); got.Name() != tc.want.Name() {
				t.Fatalf("the run reports %s, auto chose %s", got.Name(), tc.want.Name())
			}
			if given == nil && (s.Execution() == nil) != (tc.exec == nil) {
				t.Fatalf("the run's execution %v, auto chose %v", s.Execution(), tc.exec)
			}
		})
	}
}

// TestChooseRefuses: a kernel on non-multiclass data and soft constraints
// on data that is no factor graph are errors saying what is needed.
func TestChooseRefuses(t *testing.T) {
	chain := oraclestest.Chain(oraclestest.ChainConfig{N: 10, MaxLen: 4, Labels: 3, Features: 4, Density: 0.7, Seed: 3})
	rbf := kernel.Kernel{Kind: kernel.RBF, Gamma: 0.5}
	for _, tc := range []struct {
		m    Method
		want string
	}{
		{Method{Lambda: 0.1, Kernel: &rbf}, "multiclass data"},
		{Method{Lambda: 0.1, Rho: 1}, "factor-graph data"},
	} {
		if _, err := Choose(chain, tc.m, 1, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error saying %q", tc.m, err, tc.want)
		}
	}
	if _, err := Choose(nil, Method{Lambda: 1}, 1, nil); err == nil {
		t.Error("no problem accepted")
	}
}

// TestEncodes: auto is a registered method whose settings encode and
// decode.
func TestEncodes(t *testing.T) {
	rbf := kernel.Kernel{Kind: kernel.Poly, Gamma: 0.5, Degree: 2, Coef0: 1}
	m := Method{Lambda: 0.01, Kernel: &rbf}
	b, err := run.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := run.Decode(b)
	if err != nil || !run.Same(got, m) {
		t.Fatalf("%s decodes to %+v (%v)", b, got, err)
	}
}

// TestScheduleReachesTheChoice: auto's schedule and seed are the chosen
// method's, its zero values the chosen method's own.
func TestScheduleReachesTheChoice(t *testing.T) {
	mc := oraclestest.Multiclass(30, 4, 5, 1)
	c, err := Choose(mc, Method{Lambda: 0.1, GapEvery: 3, TraceEvery: 2, Seed: 5}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := (solver.Exact{Lambda: 0.1, Sampling: run.Permutation, Shrinking: true, GapEvery: 3, TraceEvery: 2, Seed: 5}); !run.Same(c.Method, want) {
		t.Fatalf("chose %+v, want %+v", c.Method, want)
	}
	c, err = Choose(mc, Method{Lambda: 0.1}, 1, nil)
	if err != nil || c.Method.(solver.Exact).GapEvery != 20 {
		t.Fatalf("without a schedule: %+v (%v), want the exact method's GapEvery 20", c.Method, err)
	}
}

// panicky is a problem whose max oracle panics.
type panicky struct{ oracles.Problem }

func (panicky) MaxOracle(int, []float64, []int32) ([]int32, float64) { panic("user's oracle") }

// TestExecution: the execution of a method the user named follows the
// cost of its oracle and the workers; methods without a parallel
// execution, one worker and cheap oracles keep the sequential steps, and
// LP-hard's oracle is timed on its relaxation.
func TestExecution(t *testing.T) {
	mc := oraclestest.Multiclass(30, 4, 5, 1)
	chain := oraclestest.Chain(oraclestest.ChainConfig{N: 10, MaxLen: 4, Labels: 3, Features: 4, Density: 0.7, Seed: 3})
	fgm, err := gendata.MultiLabel(10, 3, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	fg, err := factorgraph.NewRounded(fgm)
	if err != nil {
		t.Fatal(err)
	}
	slow := slowOracle{chain, 300 * time.Microsecond}
	for _, tc := range []struct {
		name    string
		p       oracles.Problem
		m       run.Method
		workers int
		want    run.Execution
		reason  string
	}{
		{"costly bcfw", slow, solver.Recommended(0.1), 2, execution.MiniBatch{Batch: 2, Lookahead: 2}, "mini-batch of 2"},
		{"costly multi-plane", slow, solver.MultiPlane{Lambda: 0.1}, 3, execution.MiniBatch{Batch: 3, Lookahead: 2}, "on the 3 workers"},
		{"costly, one worker", slow, solver.Recommended(0.1), 1, nil, "one worker"},
		{"cheap", chain, solver.Recommended(0.1), 2, nil, "do not pay"},
		{"no parallel execution", slowOracle{mc, 300 * time.Microsecond}, solver.Exact{Lambda: 0.1}, 2, nil, "no parallel execution"},
		{"lp-hard", fg, solver.LPHard{BCFW: solver.Recommended(0.1)}, 2, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, why, err := Execution(tc.p, tc.m, tc.workers)
			if err != nil {
				t.Fatal(err)
			}
			if tc.name == "lp-hard" { // the LPs of this tiny graph may take either side of the threshold
				tc.want = x
				tc.reason = "lookahead 2"
				if x == nil {
					tc.reason = "do not pay"
				}
			}
			if x != tc.want || !strings.Contains(why, tc.reason) {
				t.Fatalf("%v (%q), want %v saying %q", x, why, tc.want, tc.reason)
			}
		})
	}
	if _, _, err := Execution(chain, solver.LPHard{BCFW: solver.Recommended(0.1)}, 2); err == nil || !strings.Contains(err.Error(), "lp-hard") {
		t.Errorf("lp-hard on a chain: %v, want an lp-hard error", err)
	}
	if _, _, err := Execution(panicky{chain}, solver.Recommended(0.1), 2); err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Errorf("a panicking oracle: %v, want an error", err)
	}
	if _, _, err := Execution(nil, solver.Recommended(0.1), 2); err == nil {
		t.Error("no problem accepted")
	}
}

// TestViterbiPlanes counts a chain of 3 labels by hand: positions of 1, 3
// and 0 features cost (3+9) + (9+9) + 9 = 39 multiply-adds of a Viterbi
// call against (2+4) + (6+4) + 4 = 20 plane nonzeros.
func TestViterbiPlanes(t *testing.T) {
	one := func(idx ...int32) oracles.SparseVec {
		v := oracles.SparseVec{Idx: idx}
		for range idx {
			v.Val = append(v.Val, 1)
		}
		return v
	}
	c, err := oracles.NewChain(3, 4, []oracles.Sequence{
		{Features: []oracles.SparseVec{one(0), one(1, 2, 3)}, Labels: []int32{0, 1}},
		{Features: []oracles.SparseVec{one()}, Labels: []int32{2}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := viterbiPlanes(c), 39.0/20; math.Abs(got-want) > 1e-12 {
		t.Fatalf("counted %v plane evaluations, want %v", got, want)
	}
}

// TestChainDefaultReproducible: the default method of a chain is counted,
// not timed: two runs of auto, each choosing anew, are the same run bit for
// bit, and the model's method is the multi-plane BCFW the reason names.
func TestChainDefaultReproducible(t *testing.T) {
	chain := oraclestest.Chain(oraclestest.ChainConfig{N: 40, MaxLen: 8, Labels: 10, Features: 20, Density: 0.5, Seed: 4})
	var first []float64
	for k := 0; k < 2; k++ {
		s, err := Method{Lambda: 0.05}.New(chain)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run(context.Background(), run.Stop{Passes: 8}); err != nil {
			t.Fatal(err)
		}
		mp, ok := s.Method().(solver.MultiPlane)
		if !ok || mp.Cost == nil {
			t.Fatalf("the run's method %+v, want multi-plane BCFW with the cost rule", s.Method())
		}
		w := s.Weights()
		if k == 0 {
			first = slices.Clone(w)
			continue
		}
		if !slices.Equal(first, w) {
			t.Fatal("two default runs of a chain differ")
		}
	}
}
