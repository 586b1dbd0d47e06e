package chain

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMaxPlusRowMatchesGeneric checks the assembly kernel against the
// portable loop for every length up to 40 (odd tails included) and for
// -Inf entries.
func TestMaxPlusRowMatchesGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 40; n++ {
		for trial := 0; trial < 20; trial++ {
			dst := make([]float64, n)
			row := make([]float64, n+rng.IntN(3))
			for l := range dst {
				dst[l] = rng.NormFloat64()
				if rng.IntN(4) == 0 {
					dst[l] = math.Inf(-1)
				}
			}
			for l := range row {
				row[l] = rng.NormFloat64()
			}
			a := rng.NormFloat64()
			want := append([]float64(nil), dst...)
			maxPlusRowGeneric(want, row, a)
			maxPlusRow(dst, row, a)
			for l := range dst {
				if dst[l] != want[l] {
					t.Fatalf("n=%d l=%d: %v, want %v", n, l, dst[l], want[l])
				}
			}
		}
	}
}
