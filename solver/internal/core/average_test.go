package core

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fwstruct/fwstruct/solver/run"
)

// bruteAverage is the average of the stored iterates 1..K with the weights
// of kind, computed from its definition (Lacoste-Julien et al. 2013, eq. 14,
// 15 with the doubling trick, and the uniform average).
func bruteAverage(kind run.AverageKind, vs [][]float64, ells []float64) ([]float64, float64) {
	K := len(vs)
	first := 1 // the first iterate of the average, 1-based
	if kind == run.SuffixAverage {
		for first*2 <= K {
			first *= 2
		}
	}
	out := make([]float64, len(vs[0]))
	var ell, total float64
	for t := first; t <= K; t++ {
		wt := 1.0
		if kind == run.WeightedAverage {
			wt = float64(t)
		}
		for j, x := range vs[t-1] {
			out[j] += wt * x
		}
		ell += wt * ells[t-1]
		total += wt
	}
	for j := range out {
		out[j] /= total
	}
	return out, ell / total
}

// TestAverageMatchesBruteForce runs the lazy averages through a random
// mix of sparse writes, dense writes and scalings and checks every kind,
// after every step, against the average of the stored iterates.
func TestAverageMatchesBruteForce(t *testing.T) {
	const d, steps = 5, 90
	for _, kind := range []run.AverageKind{run.WeightedAverage, run.SuffixAverage, run.UniformAverage} {
		t.Run(kind.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(kind)))
			v := make([]float64, d)
			a := NewAverage(d, kind)
			var vs [][]float64
			var ells []float64
			got := make([]float64, d)
			for k := 1; k <= steps; k++ {
				switch rng.IntN(4) {
				case 0: // a sparse write to one or two coordinates
					for range 1 + rng.IntN(2) {
						j := rng.IntN(d)
						a.Sync(int32(j), v[j])
						v[j] += rng.NormFloat64()
					}
				case 3: // a block step's sparse write, synced at once (repeats allowed)
					idx := make([]int32, 1+rng.IntN(4))
					for i := range idx {
						idx[i] = int32(rng.IntN(d))
					}
					a.SyncAt(idx, v)
					for _, j := range idx {
						v[j] += rng.NormFloat64()
					}
				case 1: // a dense write
					a.SyncAll(v)
					for j := range v {
						v[j] += rng.NormFloat64()
					}
				case 2: // no write: the iterate repeats
				}
				ell := rng.Float64()
				a.Fold(ell)
				vs = append(vs, append([]float64(nil), v...))
				ells = append(ells, ell)
				a.Value(v, got)
				want, wantEll := bruteAverage(kind, vs, ells)
				for j := range want {
					if math.Abs(got[j]-want[j]) > 1e-12*(1+math.Abs(want[j])) {
						t.Fatalf("K=%d: average[%d] = %v, brute force %v", k, j, got[j], want[j])
					}
				}
				if math.Abs(a.Ell-wantEll) > 1e-12 {
					t.Fatalf("K=%d: averaged ell = %v, brute force %v", k, a.Ell, wantEll)
				}
				if !a.Consistent() {
					t.Fatalf("K=%d: inconsistent counters", k)
				}
			}
		})
	}
}

func TestRoundStart(t *testing.T) {
	for _, c := range []struct{ k, want int64 }{{0, 0}, {1, 0}, {2, 1}, {3, 1}, {4, 3}, {7, 3}, {8, 7}, {1000, 511}} {
		if got := roundStart(c.k); got != c.want {
			t.Errorf("roundStart(%d) = %d, want %d", c.k, got, c.want)
		}
	}
}
