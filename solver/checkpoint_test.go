package solver

import (
	"bytes"
	"encoding/gob"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/oracles/oraclestest"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/run/runtest"
)

// TestConformance runs the contract every solver family keeps
// (runtest: split runs, Save/Load continuity, Stop validation, Current and
// Evaluate, the pass budget, certificates, cancellation) on every variant,
// with observe-only evaluations and training losses in the trace.
func TestConformance(t *testing.T) {
	p := smallChain(11)
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			cfg := v.cfg
			cfg.Lambda, cfg.Seed, cfg.GapEvery, cfg.TraceEvery = 0.05, 3, 2, 1.5
			runtest.Conformance(t, runtest.Family{
				New: func() (run.Solver, error) { return New(p, cfg, WithTrainLoss(true)) },
				Load: func(r io.Reader) (run.Solver, error) {
					return Load(r, p, WithTrainLoss(true))
				},
				Iterate: func(s run.Solver) []float64 { return s.(*Solver).Weights() },
				Passes:  12,
				NoGap:   cfg.Algorithm == run.SSG,
			})
		})
	}
}

// reload saves s and loads the checkpoint for the same problem.
func reload(t *testing.T, s *Solver, opts ...Option) *Solver {
	t.Helper()
	var buf bytes.Buffer
	if err := s.Save(&buf); err != nil {
		t.Fatal(err)
	}
	c, err := Load(&buf, s.p, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestLoadRejectsOtherProblem(t *testing.T) {
	s := mustNew(t, smallChain(12), Config{Lambda: 1})
	mustRun(t, s, run.Stop{Passes: 1})
	var buf bytes.Buffer
	if err := s.Save(&buf); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	if _, err := Load(bytes.NewReader(data), smallChain(13)); err == nil {
		t.Fatal("Load accepted a checkpoint of another problem")
	}
	if _, err := Load(bytes.NewReader(data[:len(data)/2]), smallChain(12)); err == nil {
		t.Fatal("Load accepted a truncated checkpoint")
	}
}

// TestSetLambdaKeepsGapsExact checks Proposition 1 of Osokin et al. (2016):
// after SetLambda the updated block gaps equal freshly computed exact ones,
// w is unchanged, and the dual bookkeeping stays consistent.
func TestSetLambdaKeepsGapsExact(t *testing.T) {
	p := smallChain(14)
	for _, cfg := range []Config{
		{Lambda: 1},
		{Lambda: 1, Step: Pairwise},
		{Lambda: 1, Step: Away, Cache: Cache{Enabled: true}},
	} {
		s := mustNew(t, p, cfg)
		mustRun(t, s, run.Stop{Passes: 10})
		s.record(false) // exact block gaps at the current iterate
		w0 := s.Weights()
		if err := s.SetLambda(0.3); err != nil {
			t.Fatal(err)
		}
		gaps, current := s.BlockGaps()
		if !current {
			t.Fatal("block gaps should still describe the current iterate")
		}
		fresh := mustEval(t, s)
		var sum float64
		for _, g := range gaps {
			sum += g
		}
		if math.Abs(sum-fresh.Gap) > 1e-10 {
			t.Fatalf("%v: updated gap %v, recomputed %v", cfg.Step, sum, fresh.Gap)
		}
		for j, x := range s.Weights() {
			if x != w0[j] {
				t.Fatal("SetLambda changed w")
			}
		}
		checkConsistency(t, s)
		if err := s.SetLambda(0.5); err == nil {
			t.Fatal("SetLambda accepted an increase")
		}
	}
}

func TestSetLambdaNeedsZeroTruthLoss(t *testing.T) {
	m := oraclestest.Multiclass(10, 3, 4, 1)
	s := mustNew(t, m, Config{Lambda: 1})
	if err := s.SetLambda(0.5); err != nil {
		t.Fatalf("multiclass has zero truth loss: %v", err)
	}
}

// TestSetLambdaCurrentDescribesNewLambda: after SetLambda the last trace
// point describes the old objective, so Current evaluates the iterate at the
// new lambda and records the change as an event.
func TestSetLambdaCurrentDescribesNewLambda(t *testing.T) {
	s := mustNew(t, smallChain(15), Config{Lambda: 1, GapEvery: 1})
	mustRun(t, s, run.Stop{Passes: 4})
	if err := s.SetLambda(0.25); err != nil {
		t.Fatal(err)
	}
	cur, err := s.Current()
	if err != nil {
		t.Fatal(err)
	}
	if cur.Lambda != 0.25 || !strings.Contains(cur.Event, "lambda 1 -> 0.25") {
		t.Fatalf("Current after SetLambda: lambda %v, event %q", cur.Lambda, cur.Event)
	}
	if math.Abs(cur.Primal-cur.Dual-cur.Gap) > 1e-9 {
		t.Fatalf("certificate broken: %+v", cur)
	}
}

// TestLoadVersion2TraceFields: a version 2 checkpoint has no multi-plane
// or soft fields in its trace (gob leaves them 0); Load marks them not
// computed (NaN), and a version 3 checkpoint keeps what it holds.
func TestLoadVersion2TraceFields(t *testing.T) {
	p := oraclestest.Multiclass(30, 4, 5, 1)
	s := mustNew(t, p, Config{Lambda: 0.1, GapEvery: 1})
	mustRun(t, s, run.Stop{Passes: 3})
	var buf bytes.Buffer
	if err := s.Save(&buf); err != nil {
		t.Fatal(err)
	}
	var c checkpoint
	if err := gob.NewDecoder(&buf).Decode(&c); err != nil {
		t.Fatal(err)
	}
	for _, version := range []int{2, 3} {
		c.Version = version
		for k := range c.Trace { // what an old build wrote
			c.Trace[k].ApproxPasses, c.Trace[k].WorkingSetMean, c.Trace[k].Rho, c.Trace[k].HardPrimal = 0, 0, 0, 0
		}
		buf.Reset()
		if err := gob.NewEncoder(&buf).Encode(&c); err != nil {
			t.Fatal(err)
		}
		r, err := Load(&buf, p)
		if err != nil {
			t.Fatal(err)
		}
		tr := r.Trace()
		if len(tr) == 0 {
			t.Fatal("empty trace")
		}
		for _, pt := range tr {
			nan := math.IsNaN(pt.ApproxPasses) && math.IsNaN(pt.WorkingSetMean) && math.IsNaN(pt.Rho) && math.IsNaN(pt.HardPrimal)
			if nan != (version == 2) || math.IsNaN(pt.Primal) {
				t.Fatalf("version %d: trace point %+v", version, pt)
			}
		}
	}
}
