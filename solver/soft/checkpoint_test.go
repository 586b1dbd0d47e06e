package soft

import (
	"bytes"
	"context"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/run/runtest"
)

// TestConformance runs the contract every solver family keeps (runtest)
// under every sampling, with observe-only evaluations in the trace.
func TestConformance(t *testing.T) {
	m := multiLabel(t, 6, 4, 3, 7)
	for _, samp := range []run.Sampling{run.Uniform, run.Permutation, run.GapSampling, run.ExamplePermutation} {
		t.Run(samp.String(), func(t *testing.T) {
			cfg := config{Lambda: 0.1, Rho: 0.7, Sampling: samp, GapEvery: 3, TraceEvery: 0.7, Seed: 11}
			runtest.Conformance(t, runtest.Family{
				New:     func() (run.Solver, error) { return newSolver(m, cfg) },
				Load:    func(r io.Reader) (run.Solver, error) { return load(r, m) },
				Iterate: func(s run.Solver) []float64 { return append(s.(*Solver).Weights(), s.(*Solver).mu...) },
				Passes:  12,
			})
		})
	}
}

// TestLoadKeepsLookahead: a run saved inside an example under
// ExamplePermutation sampling is loaded with the lookahead knowing how many
// of the example's blocks are still to come.
func TestLoadKeepsLookahead(t *testing.T) {
	m := multiLabel(t, 6, 4, 3, 7)
	b, _ := newSolver(m, config{Lambda: 0.1, Rho: 0.7, Sampling: run.ExamplePermutation, GapEvery: 3, Seed: 11})
	if _, err := b.Run(context.Background(), run.Stop{Passes: 5.3}); err != nil {
		t.Fatal(err)
	}
	if b.ahead.left == 0 {
		t.Fatal("the saved run should stop inside an example")
	}
	var buf bytes.Buffer
	if err := b.Save(&buf); err != nil {
		t.Fatal(err)
	}
	c, err := load(&buf, m)
	if err != nil {
		t.Fatal(err)
	}
	if c.ahead.left != b.ahead.left {
		t.Fatalf("the loaded lookahead expects %d more blocks of the example, the saved run %d", c.ahead.left, b.ahead.left)
	}
}

// TestLoadRejects: Load refuses another model and corrupt checkpoints with
// an error naming the problem.
func TestLoadRejects(t *testing.T) {
	m := multiLabel(t, 4, 3, 2, 8)
	s, _ := newSolver(m, config{Lambda: 0.1, Rho: 1, Sampling: run.Permutation})
	if _, err := s.Run(context.Background(), run.Stop{Passes: 2.5}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := s.Save(&buf); err != nil {
		t.Fatal(err)
	}
	saved := buf.Bytes()
	if _, err := load(bytes.NewReader(saved), multiLabel(t, 4, 3, 2, 9)); err == nil || !strings.Contains(err.Error(), "taken on other data") {
		t.Fatalf("another model: %v", err)
	}
	scaled := multiLabel(t, 4, 3, 2, 8) // the same labels, every input times -3
	for i := 0; i < scaled.Len(); i++ {
		for _, in := range scaled.Inputs(i) {
			for k := range in.Val {
				in.Val[k] *= -3
			}
		}
	}
	if _, err := load(bytes.NewReader(saved), scaled); err == nil || !strings.Contains(err.Error(), "other features") {
		t.Fatalf("scaled inputs: %v", err)
	}
	if _, err := load(bytes.NewReader(saved), multiLabel(t, 4, 3, 2, 8)); err != nil {
		t.Fatalf("the same model rebuilt: %v", err)
	}
	if _, err := load(bytes.NewReader(saved[:len(saved)/2]), m); err == nil {
		t.Fatal("truncated checkpoint accepted")
	}
	for _, tc := range []struct {
		name, want string
		edit       func(c *checkpoint)
	}{
		{"version", "version", func(c *checkpoint) { c.Version = 99 }},
		{"short w", "w has", func(c *checkpoint) { c.W = c.W[:3] }},
		{"NaN delta", "delta[", func(c *checkpoint) { c.Delta[2] = math.NaN() }},
		{"marginals off the simplex", "sum to", func(c *checkpoint) { c.Mu[0], c.Mu[1] = 0.5, 0.6 }},
		{"negative marginal", "outside [0, 1]", func(c *checkpoint) { c.Mu[0], c.Mu[1] = -0.5, c.Mu[1]+1.5 }},
		{"NaN gap estimate", "gap estimate", func(c *checkpoint) { c.GapEst[1] = math.NaN() }},
		{"estimate sum", "running sum", func(c *checkpoint) { c.EstInf++ }},
		{"counters", "counters", func(c *checkpoint) { c.LastEval = c.Steps + 1 }},
		{"permutation", "permutation", func(c *checkpoint) { c.Draws.Perm[0] = c.Draws.Perm[1] }},
		{"random state", "random state", func(c *checkpoint) { c.Draws.RNG = []byte{1, 2} }},
		{"rho", "rho", func(c *checkpoint) { c.Config.Rho = -1 }},
		{"w off its marginals", "but the marginals give", func(c *checkpoint) { c.W[1] += 0.5 }},
		{"delta off its marginals", "delta[", func(c *checkpoint) { c.Delta[0] += 0.5 }},
	} {
		var c checkpoint
		ckName, err := core.ReadCheckpoint(bytes.NewReader(saved), "test", &c, func() int { return c.Version }, 0, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		tc.edit(&c)
		var out bytes.Buffer
		if err := core.WriteCheckpoint(&out, "test", ckName, &c); err != nil {
			t.Fatal(err)
		}
		if _, err := load(&out, m); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%s: Load returned %v, want an error about %q", tc.name, err, tc.want)
		}
	}
}
