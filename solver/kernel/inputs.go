package kernel

import (
	"gonum.org/v1/gonum/floats"

	"github.com/fwstruct/fwstruct/oracles"
)

// inputs holds the input vectors of a multiclass problem densely, with
// their squared norms, so that a kernel evaluation is one vectorized dot
// product (USPS: 257 features).
type inputs struct {
	f  int
	x  []float64 // m rows of f values
	sq []float64 // |x_i|^2
	y  []int32   // labels

	ids []int32 // 0, 1, ..., len()-1 (all)
}

func newInputs(p *oracles.Multiclass) *inputs {
	m, f := p.Len(), p.NumFeatures()
	in := &inputs{f: f, x: make([]float64, m*f), sq: make([]float64, m), y: make([]int32, m), ids: iota32(m)}
	for i := 0; i < m; i++ {
		x := p.Input(i)
		x.AddTo(in.row(i), 1)
		in.sq[i] = floats.Dot(in.row(i), in.row(i))
		in.y[i] = p.Truth(i)[0]
	}
	return in
}

func (in *inputs) len() int { return len(in.sq) }

func (in *inputs) row(i int) []float64 { return in.x[i*in.f : (i+1)*in.f : (i+1)*in.f] }

// between returns k(a_i, b_j).
func (k Kernel) between(a *inputs, i int, b *inputs, j int) float64 {
	return k.eval(floats.Dot(a.row(i), b.row(j)), a.sq[i], b.sq[j])
}

// all returns the rows 0, 1, ..., len()-1: the queries of a pass over
// every input.
func (in *inputs) all() []int32 { return in.ids }

// iota32 returns 0, 1, ..., n-1.
func iota32(n int) []int32 {
	ids := make([]int32, n)
	for i := range ids {
		ids[i] = int32(i)
	}
	return ids
}
