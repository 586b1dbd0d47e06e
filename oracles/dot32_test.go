package oracles

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDotRows32MatchesDot32 checks the vector kernel against dot32 row by
// row, bit for bit, over lengths with and without a tail, row counts with
// and without leftover rows, strides longer than a row, and values of
// mixed signs and magnitudes (where a different order of the additions
// would show).
func TestDotRows32MatchesDot32(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct{ n, rows, stride int }{
		{1, 3, 1}, {4, 4, 4}, {16, 4, 16}, {21, 6, 23}, {35, 5, 35}, {5, 9, 5}, {7, 5, 7}, {6, 6, 9}, {4, 7, 4}, {8, 4, 11}, {100, 399, 100}, {337, 149, 337}, {13, 17, 20}, {3, 8, 3}, {0, 5, 2},
	} {
		w := make([]float64, tc.n)
		for k := range w {
			w[k] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
		}
		x := make([]float32, (tc.rows-1)*tc.stride+tc.n+1)
		for k := range x {
			if rng.IntN(3) > 0 {
				x[k] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4)))
			}
		}
		out := make([]float64, tc.rows)
		dotRows32(w, x, tc.stride, out)
		for r, got := range out {
			want := dot32(w, x[r*tc.stride:r*tc.stride+tc.n])
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("%+v: row %d: %v, dot32 gives %v", tc, r, got, want)
			}
		}
	}
}

// BenchmarkDotRows32 times the scores of a horses-sized image (149 regions
// of 337 unary features, 399 edges of 100 pairwise features: the dot
// products that make half of an oracle call) with the vector kernel and
// with dot32 row by row, on features that stay in the cache (the horses
// oracle meets them out of the cache: BenchmarkHorsesScore).
//
//	go test -run '^$' -bench DotRows32 ./oracles/
//
// On a quiet machine before issue 21: go 33.3 us, vector 7.7 us. The
// vector kernel with its tail, row sums and prefetch in assembly (issue
// 21), before -> after, interleaved at load 9-10: 11.9-13.9 -> 10.3-10.5
// us/op; callgrind 130.4k -> 91.6k instructions per op.
func BenchmarkDotRows32(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	const U, P, regions, edges = 337, 100, 149, 399
	w := make([]float64, U+P)
	for k := range w {
		w[k] = rng.NormFloat64()
	}
	unary, pairwise := make([]float32, regions*U), make([]float32, edges*P)
	for k := range unary {
		if rng.IntN(2) == 0 {
			unary[k] = rng.Float32()
		}
	}
	for k := range pairwise {
		pairwise[k] = rng.Float32()
	}
	u, c := make([]float64, regions), make([]float64, edges)
	for _, kernel := range []string{"go", "vector"} {
		b.Run(kernel, func(b *testing.B) {
			for k := 0; k < b.N; k++ {
				if kernel == "go" {
					dotRowsGo(w[:U], unary, U, u)
					dotRowsGo(w[U:], pairwise, P, c)
				} else {
					dotRows32(w[:U], unary, U, u)
					dotRows32(w[U:], pairwise, P, c)
				}
			}
		})
	}
}
