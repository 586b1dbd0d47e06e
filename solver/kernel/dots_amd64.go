//go:build amd64 && !noasm && !gccgo && !safe && !purego

package kernel

import "golang.org/x/sys/cpu"

// hasAVX2 selects the AVX2 kernel of dotRows.
var hasAVX2 = cpu.X86.HasAVX2

// lanes8AVX2 computes the four accumulators of floats.Dot (without the
// tail beyond the last multiple of 4, which len(x) must be) of x with the
// rows of m at the offsets offs, eight rows at a time: lanes[4r+j] for row
// r and lane j.
//
//go:noescape
func lanes8AVX2(x, m []float64, offs []int, lanes []float64)

// dotRows sets out[r] = floats.Dot(x, m[offs[r]:offs[r]+len(x)]) for every
// r < len(offs), bit for bit: with AVX2 eight rows at a time, each row's
// four accumulators in the four lanes of a register, multiplied and added
// in the order of gonum's DotUnitary; the tail and the last rows in Go.
// lanes is scratch of 4*len(offs) values.
func dotRows(x, m []float64, offs []int, out, lanes []float64) {
	rows := len(offs)
	if !hasAVX2 || len(x) < 4 || rows < 8 {
		dotRowsGo(x, m, offs, out)
		return
	}
	f := len(x)
	for _, o := range offs {
		_ = m[o : o+f] // every row is inside m
	}
	n4 := f &^ 3
	r8 := rows &^ 7
	lanes = lanes[:4*r8]
	lanes8AVX2(x[:n4], m, offs[:r8], lanes)
	for r := 0; r < r8; r++ {
		a0, a1, a2, a3 := lanes[4*r], lanes[4*r+1], lanes[4*r+2], lanes[4*r+3]
		row := m[offs[r] : offs[r]+f]
		for k := n4; k < f; k++ {
			// float64() rounds the product: with GOAMD64=v3 the compiler
			// would otherwise fuse it into the addition (FMA), which
			// DotUnitary does not.
			a0 += float64(x[k] * row[k])
		}
		out[r] = (a0 + a2) + (a1 + a3)
	}
	dotRowsGo(x, m, offs[r8:], out[r8:rows])
}
