package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// TestDotRowsMatchesFloatsDot checks dotRows against floats.Dot row by row,
// bit for bit, over lengths with and without a tail, row counts with and
// without leftover rows, rows in any order (repeated too) of a longer
// matrix, and values of mixed signs and magnitudes (where a different
// order of the additions would show).
func TestDotRowsMatchesFloatsDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct{ f, rows, total int }{
		{1, 3, 4}, {3, 9, 9}, {4, 8, 8}, {5, 17, 20}, {8, 16, 3}, {13, 7, 30}, {257, 41, 50}, {256, 64, 64}, {0, 9, 9},
	} {
		m := make([]float64, tc.total*tc.f+2)
		for k := range m {
			if rng.IntN(4) > 0 {
				m[k] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
			}
		}
		x := make([]float64, tc.f)
		copy(x, m[len(m)-tc.f:])
		offs := make([]int, tc.rows)
		for r := range offs {
			offs[r] = rng.IntN(tc.total) * tc.f
		}
		out := make([]float64, tc.rows)
		dotRows(x, m, offs, out, make([]float64, 4*tc.rows))
		for r, o := range offs {
			if want := floats.Dot(x, m[o:o+tc.f]); math.Float64bits(out[r]) != math.Float64bits(want) {
				t.Fatalf("%+v: row %d: %v, floats.Dot gives %v", tc, r, out[r], want)
			}
		}
	}
}

// BenchmarkDotRows times the dot products of one USPS-sized input (257
// features) with 2,000 others of 7,291 at random (a kernel row against
// the support vectors): dotRows against floats.Dot one row at a time,
// both reading the rows from memory, and dotRows over a tile of 32 rows
// that stays in the CPU's cache (what a kernel block does).
func BenchmarkDotRows(b *testing.B) {
	const f, n, rows = 257, 7291, 2000
	rng := rand.New(rand.NewPCG(7, 8))
	m := make([]float64, n*f)
	for k := range m {
		m[k] = 2*rng.Float64() - 1
	}
	offs := make([]int, rows)
	for r, j := range rng.Perm(n)[:rows] {
		offs[r] = j * f
	}
	out, lanes := make([]float64, rows), make([]float64, 4*rows)
	perDot := func(b *testing.B, dots int) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*dots), "ns/dot")
	}
	b.Run("floats.Dot", func(b *testing.B) {
		for k := 0; b.Loop(); k++ {
			x := m[(k%n)*f : (k%n+1)*f]
			for r, o := range offs {
				out[r] = floats.Dot(x, m[o:o+f])
			}
		}
		perDot(b, rows)
	})
	b.Run("dotRows", func(b *testing.B) {
		for k := 0; b.Loop(); k++ {
			dotRows(m[(k%n)*f:(k%n+1)*f], m, offs, out, lanes)
		}
		perDot(b, rows)
	})
	b.Run("dotRows-tile", func(b *testing.B) {
		for k := 0; b.Loop(); k++ {
			dotRows(m[(k%n)*f:(k%n+1)*f], m, offs[:tileRows], out, lanes)
		}
		perDot(b, tileRows)
	})
}
