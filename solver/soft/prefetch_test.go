package soft

import (
	"context"
	"slices"
	"testing"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/internal/gendata"
	"github.com/fwstruct/fwstruct/solver/run"
)

// TestLookaheadKeepsTrajectory: reading the next blocks early changes
// nothing. A run with the lookahead and one without it, from the same seed,
// on a model whose examples all have as many blocks and on chains of
// different lengths, reach bitwise the same marginals, w, delta and trace,
// under every sampling (the lookahead acts under uniform sampling and
// ExamplePermutation), and block(b) names the example and node that
// blockOff lays out.
func TestLookaheadKeepsTrajectory(t *testing.T) {
	chain, err := gendata.FromChain(smallChain(t, 6, 3))
	if err != nil {
		t.Fatal(err)
	}
	models := []struct {
		name    string
		m       *factorgraph.Model
		uniform bool // every example has as many blocks
	}{
		{"multilabel", multiLabel(t, 12, 5, 6, 2), true},
		{"chains", chain, false},
	}
	for _, tc := range models {
		for _, samp := range []run.Sampling{run.Uniform, run.Permutation, run.GapSampling, run.ExamplePermutation} {
			cfg := config{Lambda: 0.05, Rho: 0.5, Sampling: samp, GapEvery: 3, TraceEvery: 1, Seed: 7}
			runs := make([]*Solver, 2)
			for k := range runs {
				s, err := newSolver(tc.m, cfg)
				if err != nil {
					t.Fatal(err)
				}
				if (s.perEx > 0) != tc.uniform {
					t.Fatalf("%s: blocks per example %d, uniform %v", tc.name, s.perEx, tc.uniform)
				}
				if got, want := s.ahead.on, samp == run.Uniform; got != want {
					t.Fatalf("%s, %v: lookahead on = %v", tc.name, samp, got)
				}
				if got, want := s.ahead.byExample, samp == run.ExamplePermutation; got != want {
					t.Fatalf("%s, %v: lookahead by example = %v", tc.name, samp, got)
				}
				s.ahead.on = s.ahead.on && k == 0
				s.ahead.byExample = s.ahead.byExample && k == 0
				for b := 0; b < s.Blocks(); b++ {
					i, a := s.block(b)
					if i != int(s.blockEx[b]) || a != b-int(s.blockOff[i]) || a >= s.m.Graph(i).NumNodes() {
						t.Fatalf("%s: block %d is (%d, %d), blockEx says example %d", tc.name, b, i, a, s.blockEx[b])
					}
				}
				if _, err := s.Run(context.Background(), run.Stop{Passes: 12}); err != nil {
					t.Fatal(err)
				}
				runs[k] = s
			}
			a, b := runs[0], runs[1]
			if !slices.Equal(a.mu, b.mu) || !slices.Equal(a.w, b.w) || !slices.Equal(a.delta, b.delta) {
				t.Fatalf("%s, %v: the lookahead changed the iterate", tc.name, samp)
			}
			if !samePoints(t, a.Trace(), b.Trace()) {
				t.Fatalf("%s, %v: the lookahead changed the trace", tc.name, samp)
			}
			if a.Steps() == 0 {
				t.Fatalf("%s, %v: no step", tc.name, samp)
			}
		}
	}
}
