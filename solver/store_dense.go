package solver

import (
	"gonum.org/v1/gonum/floats"
)

// denseStore stores the block vectors densely, each as a scale times a row,
// v_i = c_i u_i, so that the Frank-Wolfe shrinkage of the block itself costs
// O(1); its effect on v costs O(d).
type denseStore struct {
	s     *Solver
	d     int
	u     []float64 // n*d
	scale []float64 // c_i
	norm  []float64 // |v_i|^2, maintained incrementally
}

func newDenseStore(s *Solver) *denseStore {
	b := &denseStore{s: s, d: s.d, u: make([]float64, s.n*s.d), scale: make([]float64, s.n), norm: make([]float64, s.n)}
	for i := range b.scale {
		b.scale[i] = 1
	}
	return b
}

func (b *denseStore) row(i int) []float64 { return b.u[i*b.d : (i+1)*b.d : (i+1)*b.d] }

func (b *denseStore) base(i int, _ []float64) float64 { return b.baseAt(i, b.s.x.w) }

func (b *denseStore) baseAt(i int, w []float64) float64 {
	return b.s.lambda*b.scale[i]*floats.Dot(b.row(i), w) - b.s.ellI[i]
}

func (b *denseStore) distSq(i int, c *corner) float64 {
	sigma := b.s.sigma()
	return b.norm[i] - 2*sigma*b.scale[i]*c.psi.Dot(b.row(i)) + sigma*sigma*c.norm
}

func (b *denseStore) move(i int, scale float64, a *corner, ca float64, c *corner, cc float64) {
	b.scaleBy(i, scale)
	b.addSparse(i, a, ca)
	if c != nil {
		b.addSparse(i, c, cc)
	}
}

// scaleBy sets v_i <- f v_i and applies the change to v.
func (b *denseStore) scaleBy(i int, f float64) {
	if f == 1 {
		return
	}
	c := b.scale[i]
	row := b.row(i)
	b.s.x.addDense(row, (f-1)*c)
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

// addSparse sets v_i <- v_i + a psi_c and applies the change to v.
func (b *denseStore) addSparse(i int, c *corner, a float64) {
	if a == 0 {
		return
	}
	row := b.row(i)
	vs := b.scale[i] * c.psi.Dot(row)
	c.psi.AddTo(row, a/b.scale[i])
	b.s.x.addSparse(&c.psi, a)
	b.norm[i] = max(b.norm[i]+2*a*vs+a*a*c.norm, 0)
}

func (b *denseStore) setCorner(i int, c *corner) {
	row := b.row(i)
	clear(row)
	c.psi.AddTo(row, b.s.sigma())
	b.scale[i] = 1
	b.refreshNorm(i)
}

func (b *denseStore) refreshNorm(i int) {
	row := b.row(i)
	c := b.scale[i]
	b.norm[i] = c * c * floats.Dot(row, row)
}

func (b *denseStore) accumulate(v []float64) {
	for i := range b.scale {
		b.refreshNorm(i)
		floats.AddScaled(v, b.scale[i], b.row(i))
	}
}

func (b *denseStore) save(c *checkpoint) {
	c.BlockU, c.BlockScale, c.BlockNorm = b.u, b.scale, b.norm
}

func (b *denseStore) restore(c *checkpoint) error {
	if err := needLen("blocks", len(c.BlockU), len(b.u)); err != nil {
		return err
	}
	if err := needLen("block scales", len(c.BlockScale), len(b.scale)); err != nil {
		return err
	}
	if err := needLen("block norms", len(c.BlockNorm), len(b.norm)); err != nil {
		return err
	}
	copy(b.u, c.BlockU)
	copy(b.scale, c.BlockScale)
	copy(b.norm, c.BlockNorm)
	return nil
}

func (b *denseStore) nonzeros() int64 { return int64(len(b.u)) }

// dense returns a copy of v_i.
func (b *denseStore) dense(i int) []float64 {
	out := make([]float64, b.d)
	floats.AddScaled(out, b.scale[i], b.row(i))
	return out
}

func (b *denseStore) scaleMass(int, float64, *corner) {}
func (b *denseStore) rescale(float64)                 {}

func (b *denseStore) scaleAll(f float64) {
	for i := range b.scale {
		b.scale[i] *= f
	}
}
func (b *denseStore) kind() Storage { return DenseBlocks }

func (b *denseStore) fill(c *checkpoint, n int, dense func(int) []float64) error {
	c.BlockU = make([]float64, 0, n*b.d)
	c.BlockScale = make([]float64, n)
	c.BlockNorm = make([]float64, n)
	for i := 0; i < n; i++ {
		v := dense(i)
		c.BlockU = append(c.BlockU, v...)
		c.BlockScale[i] = 1
		for _, x := range v {
			c.BlockNorm[i] += x * x
		}
	}
	return nil
}
