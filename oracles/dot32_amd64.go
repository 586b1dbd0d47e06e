//go:build amd64 && !purego

package oracles

import "golang.org/x/sys/cpu"

// hasAVX2 selects the AVX2 kernel of dotRows32.
var hasAVX2 = cpu.X86.HasAVX2

// lanes4AVX2 computes the four accumulators of dot32 (without the tail
// beyond the last multiple of 4, which len(w) must be) for rows of x
// stride apart, four rows at a time: lanes[4r+j] for row r and lane j.
//
//go:noescape
func lanes4AVX2(w []float64, x []float32, stride int, lanes []float64)

// dotRows32 sets out[r] = dot32(w, x[r*stride : r*stride+len(w)]) for every
// r < len(out), bit for bit: with AVX2 four rows at a time, each row's four
// accumulators in the four lanes of a register, multiplied and added in
// the order of dot32; the tail and the last rows in Go.
func dotRows32(w []float64, x []float32, stride int, out []float64, lanes []float64) {
	rows := len(out)
	if !hasAVX2 || len(w) < 4 || rows < 4 || stride < len(w) {
		dotRowsGo(w, x, stride, out)
		return
	}
	_ = x[(rows-1)*stride+len(w)-1] // every row is inside x
	n4 := len(w) &^ 3
	r4 := rows &^ 3
	lanes = lanes[:4*r4]
	lanes4AVX2(w[:n4], x, stride, lanes)
	for r := 0; r < r4; r++ {
		a0, a1, a2, a3 := lanes[4*r], lanes[4*r+1], lanes[4*r+2], lanes[4*r+3]
		row := x[r*stride : r*stride+len(w)]
		for k := n4; k < len(w); k++ {
			a0 += w[k] * float64(row[k])
		}
		out[r] = (a0 + a1) + (a2 + a3)
	}
	if r4 < rows {
		dotRowsGo(w, x[r4*stride:], stride, out[r4:])
	}
}
