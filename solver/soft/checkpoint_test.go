package soft

import (
	"bytes"
	"context"
	"encoding/gob"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/solver/run"
)

// TestSaveLoadContinuesIdentically: a run of N passes and a run of N/2
// passes saved, loaded and continued for N/2 more end at the same iterate
// with the same trace, for every sampling (the permutation's position and
// the unvisited blocks of gap sampling are part of the state).
func TestSaveLoadContinuesIdentically(t *testing.T) {
	m := multiLabel(t, 6, 4, 3, 7)
	for _, samp := range []run.Sampling{run.Uniform, run.Permutation, run.GapSampling, run.ExamplePermutation} {
		cfg := Config{Lambda: 0.1, Rho: 0.7, Sampling: samp, GapEvery: 3, TraceEvery: 0.7, Seed: 11}
		a, _ := New(m, cfg)
		if _, err := a.Run(context.Background(), run.Stop{Passes: 12}); err != nil {
			t.Fatal(err)
		}
		b, _ := New(m, cfg)
		if _, err := b.Run(context.Background(), run.Stop{Passes: 5.3}); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := b.Save(&buf); err != nil {
			t.Fatal(err)
		}
		c, err := Load(&buf, m)
		if err != nil {
			t.Fatal(err)
		}
		if samp == run.ExamplePermutation && b.ahead.left == 0 {
			t.Fatal("the saved run should stop inside an example")
		}
		if samp == run.ExamplePermutation && c.ahead.left != b.ahead.left {
			// 5.3 passes end inside an example: the loaded lookahead must
			// know how many of its blocks are still to come.
			t.Fatalf("%v: the loaded lookahead expects %d more blocks of the example, the saved run %d", samp, c.ahead.left, b.ahead.left)
		}
		if _, err := c.Run(context.Background(), run.Stop{Passes: 12}); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a.w, c.w) || !reflect.DeepEqual(a.delta, c.delta) || !reflect.DeepEqual(a.mu, c.mu) || a.steps != c.steps || a.calls != c.calls {
			t.Fatalf("%v: the continued run left the trajectory", samp)
		}
		if !samePoints(t, a.Trace(), c.Trace()) {
			t.Fatalf("%v: traces differ", samp)
		}
	}
}

// TestLoadRejects: Load refuses another model and corrupt checkpoints with
// an error naming the problem.
func TestLoadRejects(t *testing.T) {
	m := multiLabel(t, 4, 3, 2, 8)
	s, _ := New(m, Config{Lambda: 0.1, Rho: 1, Sampling: run.Permutation})
	if _, err := s.Run(context.Background(), run.Stop{Passes: 2.5}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := s.Save(&buf); err != nil {
		t.Fatal(err)
	}
	saved := buf.Bytes()
	if _, err := Load(bytes.NewReader(saved), multiLabel(t, 4, 3, 2, 9)); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("another model: %v", err)
	}
	if _, err := Load(bytes.NewReader(saved[:len(saved)/2]), m); err == nil {
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
	} {
		var c checkpoint
		if err := gob.NewDecoder(bytes.NewReader(saved)).Decode(&c); err != nil {
			t.Fatal(err)
		}
		tc.edit(&c)
		var out bytes.Buffer
		if err := gob.NewEncoder(&out).Encode(&c); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(&out, m); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%s: Load returned %v, want an error about %q", tc.name, err, tc.want)
		}
	}
}
