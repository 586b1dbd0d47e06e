//go:build amd64 && !purego

package oracles

import "golang.org/x/sys/cpu"

// hasAVX2 selects the AVX2 kernel of dotRows32.
var hasAVX2 = cpu.X86.HasAVX2

// dotRows4AVX2 sets out[r] = dot32(w, x[r*stride : r*stride+len(w)]) for
// every r < len(out), four rows at a time (see dot32_amd64.s); it needs
// len(w) >= 4, len(out) >= 4 and every row inside x.
//
//go:noescape
func dotRows4AVX2(w []float64, x []float32, stride int, out []float64)

// dotRows32 sets out[r] = dot32(w, x[r*stride : r*stride+len(w)]) for every
// r < len(out), bit for bit: with AVX2 four rows at a time, each row's four
// accumulators in the four lanes of a register, multiplied and added in
// the order of dot32, the tail and the sum of the accumulators in vector
// registers too (one kernel call); without AVX2, or for fewer than four
// rows or features, dot32 row by row.
func dotRows32(w []float64, x []float32, stride int, out []float64) {
	rows := len(out)
	if !hasAVX2 || len(w) < 4 || rows < 4 || stride < len(w) {
		dotRowsGo(w, x, stride, out)
		return
	}
	_ = x[(rows-1)*stride+len(w)-1] // every row is inside x
	dotRows4AVX2(w, x, stride, out)
}
