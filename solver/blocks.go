package solver

import (
	"fmt"

	"gonum.org/v1/gonum/floats"

	"github.com/fwstruct/fwstruct/oracles"
)

// maxDenseBlockFloats bounds n*d for the dense per-block storage (4 GiB).
const maxDenseBlockFloats = 1 << 29

// blocks stores the per-block primal vectors v_i = A alpha_[i] of BCFW
// (Lacoste-Julien et al. 2013, App. B.4) densely, each as a scale times a
// vector, v_i = c_i u_i, so that the Frank-Wolfe shrinkage
// v_i <- (1-gamma) v_i costs O(1) instead of O(d). Every update of a block
// applies the same change to the global v = sum_i v_i.
type blocks struct {
	d     int
	u     []float64 // n*d
	scale []float64 // c_i
	norm  []float64 // |v_i|^2, maintained incrementally
}

func newBlocks(n, d int) (*blocks, error) {
	if int64(n)*int64(d) > maxDenseBlockFloats {
		return nil, fmt.Errorf("solver: per-block vectors need n*d = %d floats (more than %d); this problem is too large for dense block storage", int64(n)*int64(d), maxDenseBlockFloats)
	}
	b := &blocks{d: d, u: make([]float64, n*d), scale: make([]float64, n), norm: make([]float64, n)}
	for i := range b.scale {
		b.scale[i] = 1
	}
	return b, nil
}

func (b *blocks) row(i int) []float64 { return b.u[i*b.d : (i+1)*b.d : (i+1)*b.d] }

// dot returns <v_i, w>.
func (b *blocks) dot(i int, w []float64) float64 {
	return b.scale[i] * floats.Dot(b.row(i), w)
}

// dotSparse returns <v_i, s>.
func (b *blocks) dotSparse(i int, s *oracles.SparseVec) float64 {
	return b.scale[i] * s.Dot(b.row(i))
}

// scaleBy sets v_i <- f v_i and v <- v + (f-1) v_i.
func (b *blocks) scaleBy(i int, f float64, v []float64) {
	if f == 1 {
		return
	}
	c := b.scale[i]
	row := b.row(i)
	floats.AddScaled(v, (f-1)*c, row)
	c *= f
	switch {
	case c == 0:
		clear(row)
		c = 1
	case c < 1e-8 || c > 1e8:
		floats.Scale(c, row)
		c = 1
	}
	b.scale[i] = c
	b.norm[i] *= f * f
}

// addSparse sets v_i <- v_i + a s and v <- v + a s, where s has norm^2 sNorm.
func (b *blocks) addSparse(i int, a float64, s *oracles.SparseVec, sNorm float64, v []float64) {
	if a == 0 {
		return
	}
	vs := b.dotSparse(i, s)
	s.AddTo(b.row(i), a/b.scale[i])
	s.AddTo(v, a)
	nrm := b.norm[i] + 2*a*vs + a*a*sNorm
	if nrm < 0 {
		nrm = 0
	}
	b.norm[i] = nrm
}

// refreshNorm recomputes |v_i|^2 exactly.
func (b *blocks) refreshNorm(i int) {
	row := b.row(i)
	c := b.scale[i]
	b.norm[i] = c * c * floats.Dot(row, row)
}

// dense returns a copy of v_i.
func (b *blocks) dense(i int) []float64 {
	out := make([]float64, b.d)
	floats.AddScaled(out, b.scale[i], b.row(i))
	return out
}

// set makes v_i equal to x.
func (b *blocks) set(i int, x []float64) {
	copy(b.row(i), x)
	b.scale[i] = 1
	b.refreshNorm(i)
}
