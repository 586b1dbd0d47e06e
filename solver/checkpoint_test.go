package solver

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
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

// TestLoadRefusesOlderVersions: checkpoints of versions 1 to 3 recorded
// no fingerprint of the data and are refused, saying so.
func TestLoadRefusesOlderVersions(t *testing.T) {
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
	for version := 1; version < checkpointVersion; version++ {
		c.Version = version
		buf.Reset()
		if err := gob.NewEncoder(&buf).Encode(&c); err != nil {
			t.Fatal(err)
		}
		_, err := Load(&buf, p)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("checkpoint version %d of an older build", version)) {
			t.Fatalf("version %d: %v", version, err)
		}
	}
}

// TestLoadRefusesOtherData: a checkpoint resumes only on the data it was
// taken on; the error names what differs, the features included (issue 22
// item 2: every feature multiplied by -3 resumed to a negative gap).
func TestLoadRefusesOtherData(t *testing.T) {
	p := oraclestest.Multiclass(30, 4, 5, 1)
	s := mustNew(t, p, Config{Lambda: 0.1, GapEvery: 1})
	mustRun(t, s, run.Stop{Passes: 3})
	var buf bytes.Buffer
	if err := s.Save(&buf); err != nil {
		t.Fatal(err)
	}
	rebuild := func(n int, scale float64, relabel bool) *oracles.Multiclass {
		x := make([]oracles.SparseVec, n)
		y := make([]int32, n)
		for i := range x {
			in := p.Input(i)
			x[i] = in.Clone()
			for k := range x[i].Val {
				x[i].Val[k] *= scale
			}
			y[i] = p.Truth(i)[0]
			if relabel && i == n-1 {
				y[i] = (y[i] + 1) % int32(p.NumClasses())
			}
		}
		q, err := oracles.NewMulticlass(p.NumClasses(), p.NumFeatures(), x, y)
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	for _, tc := range []struct {
		name string
		q    oracles.Problem
		want string
	}{
		{"same", rebuild(30, 1, false), ""},
		{"scaled", rebuild(30, -3, false), "other features"},
		{"relabelled", rebuild(30, 1, true), "other ground-truth labels"},
		{"fewer", rebuild(29, 1, false), "29 examples, not 30"},
		{"wider", oraclestest.Multiclass(30, 4, 6, 1), "dimension d=24, not 20"},
	} {
		_, err := Load(bytes.NewReader(buf.Bytes()), tc.q)
		if tc.want == "" {
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "taken on other data") || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%s: %v, want an error naming %q", tc.name, err, tc.want)
		}
	}
}
