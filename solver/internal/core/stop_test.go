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

// TestCertify: a negative gap within the rounding tolerance is reported as
// 0, at the iterate and at its average; beyond it, an error naming the
// likely causes; an approximate gap is no certificate and is left alone.
func TestCertify(t *testing.T) {
	for _, tc := range []struct {
		name            string
		pt              run.Point
		gap, gapAvg     float64
		wantErr, approx bool
	}{
		{name: "positive", pt: run.Point{Primal: 2, Gap: 0.5, PrimalAvg: 2, GapAvg: 0.25}, gap: 0.5, gapAvg: 0.25},
		{name: "rounding", pt: run.Point{Primal: 2, Gap: -8.674e-19, PrimalAvg: 2, GapAvg: -1e-12}, gap: 0, gapAvg: 0},
		{name: "negative", pt: run.Point{Primal: 2, Gap: -1e-3, PrimalAvg: 2, GapAvg: 0.1}, wantErr: true},
		{name: "negative average", pt: run.Point{Primal: 2, Gap: 0.1, PrimalAvg: 2, GapAvg: -1e-3}, wantErr: true},
		{name: "approximate", pt: run.Point{Primal: 2, Gap: -1e-3, ApproximateGap: true}, gap: -1e-3, approx: true},
	} {
		pt := tc.pt
		err := Certify(&pt)
		switch {
		case tc.wantErr:
			if err == nil || !strings.Contains(err.Error(), "max oracle is inconsistent") {
				t.Errorf("%s: %v, want an error naming the causes", tc.name, err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case pt.Gap != tc.gap || (!tc.approx && pt.GapAvg != tc.gapAvg):
			t.Errorf("%s: gaps %v and %v, want %v and %v", tc.name, pt.Gap, pt.GapAvg, tc.gap, tc.gapAvg)
		}
	}
}
