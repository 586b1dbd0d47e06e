package core

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/solver/run"
)

func TestValidateStop(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, tc := range []struct {
		ctx  context.Context
		stop run.Stop
		want string // empty: valid
	}{
		{context.Background(), run.Stop{Passes: 3}, ""},
		{ctx, run.Stop{}, ""},
		{context.Background(), run.Stop{Gap: 0.1, EarlyCheck: 0.8}, ""},
		{context.Background(), run.Stop{}, "stopping criterion"},
		{context.Background(), run.Stop{Passes: -1}, "Stop.Passes"},
		{context.Background(), run.Stop{Gap: math.NaN()}, "Stop.Gap"},
		{context.Background(), run.Stop{GapEstimate: math.Inf(1)}, "Stop.GapEstimate"},
		{context.Background(), run.Stop{Passes: 1, EarlyCheck: 0.5}, "EarlyCheck needs"},
		{context.Background(), run.Stop{Passes: 1, Duration: -1}, "Stop.Duration"},
	} {
		err := ValidateStop(tc.ctx, tc.stop)
		if (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%+v: error %v, want %q", tc.stop, err, tc.want)
		}
	}
}

// TestDrawsResume: a sampler restored from its checkpoint draws the same
// blocks as the original; a corrupt checkpoint is refused.
func TestDrawsResume(t *testing.T) {
	for _, kind := range []run.Sampling{run.Uniform, run.Permutation, run.GapSampling} {
		pcg := rand.NewPCG(1, 2)
		rng := rand.New(pcg)
		s := NewSampler(kind, 7)
		gaps := make([]float64, 7)
		for k := 0; k < 10; k++ {
			i := s.Next(rng)
			gaps[i] = float64(k%3) + 0.5
			s.SetGap(i, gaps[i])
		}
		d, err := s.Checkpoint(pcg)
		if err != nil {
			t.Fatal(err)
		}
		d.Perm = append([]int32(nil), d.Perm...)
		d.Unvisited = append([]int32(nil), d.Unvisited...)
		r := NewSampler(kind, 7)
		pcg2, err := r.Resume(d, gaps)
		if err != nil {
			t.Fatal(err)
		}
		rng2 := rand.New(pcg2)
		for k := 0; k < 30; k++ {
			if a, b := s.Next(rng), r.Next(rng2); a != b {
				t.Fatalf("%v: draw %d: %d after the checkpoint, %d from it", kind, k, a, b)
			}
		}
		d.RNG = d.RNG[:3]
		if _, err := NewSampler(kind, 7).Resume(d, gaps); err == nil {
			t.Fatalf("%v: a truncated random state was accepted", kind)
		}
	}
}
