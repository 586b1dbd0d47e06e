package solver

import (
	"errors"
	"fmt"
	"math"
)

// sparseStore stores every block vector v_i as a sparse vector with
// distinct indices in no particular order. A step costs O(nnz(v_i) +
// nnz(psi)): entries are located through a dense position scratch of d
// int32 that is zero between uses, so no sorting and no maps are needed.
// Memory is O(sum_i nnz(v_i)), the union of the supports of the corners a
// block has ever moved towards (CoNLL: a few thousand per sentence).
type sparseStore struct {
	s    *Solver
	idx  [][]int32
	val  [][]float64
	norm []float64 // |v_i|^2, recomputed exactly after every move
	pos  []int32   // pos[j] = 1 + position of coordinate j in the block being moved, 0 otherwise
}

func newSparseStore(s *Solver) *sparseStore {
	return &sparseStore{s: s, idx: make([][]int32, s.n), val: make([][]float64, s.n), norm: make([]float64, s.n), pos: make([]int32, s.d)}
}

func (b *sparseStore) base(i int, _ []float64) float64 { return b.baseAt(i, b.s.x.w) }

func (b *sparseStore) baseAt(i int, w []float64) float64 {
	var dot float64
	val := b.val[i]
	for k, j := range b.idx[i] {
		dot += val[k] * w[j]
	}
	return b.s.lambda*dot - b.s.ellI[i]
}

func (b *sparseStore) distSq(i int, c *corner) float64 {
	sigma := b.s.sigma()
	dense := b.s.work.dense
	scatter(dense, &c.psi)
	var dot float64
	val := b.val[i]
	for k, j := range b.idx[i] {
		dot += val[k] * dense[j]
	}
	unscatter(dense, &c.psi)
	return b.norm[i] - 2*sigma*dot + sigma*sigma*c.norm
}

func (b *sparseStore) move(i int, scale float64, a *corner, ca float64, c *corner, cc float64) {
	x := b.s.x
	idx, val := b.idx[i], b.val[i]
	if scale != 1 {
		for k, j := range idx {
			x.add(j, (scale-1)*val[k])
			val[k] *= scale
		}
		if scale == 0 {
			idx, val = idx[:0], val[:0]
		}
	}
	for k, j := range idx {
		b.pos[j] = int32(k + 1)
	}
	for _, t := range [2]struct {
		c    *corner
		coef float64
	}{{a, ca}, {c, cc}} {
		if t.c == nil || t.coef == 0 {
			continue
		}
		psi := &t.c.psi
		for k, j := range psi.Idx {
			delta := t.coef * psi.Val[k]
			if p := b.pos[j]; p > 0 {
				val[p-1] += delta
			} else {
				idx = append(idx, j)
				val = append(val, delta)
				b.pos[j] = int32(len(idx))
			}
		}
		x.addSparse(psi, t.coef)
	}
	var nrm float64
	for k, j := range idx {
		b.pos[j] = 0
		nrm += val[k] * val[k]
	}
	b.idx[i], b.val[i], b.norm[i] = idx, val, nrm
}

func (b *sparseStore) setCorner(i int, c *corner) {
	sigma := b.s.sigma()
	b.idx[i] = append(b.idx[i][:0], c.psi.Idx...)
	b.val[i] = b.val[i][:0]
	for _, v := range c.psi.Val[:len(c.psi.Idx)] {
		b.val[i] = append(b.val[i], sigma*v)
	}
	b.norm[i] = sigma * sigma * c.norm
}

// accumulate adds the blocks into v, dropping entries that cancelled out
// exactly and recomputing the norms.
func (b *sparseStore) accumulate(v []float64) {
	for i := range b.idx {
		idx, val := b.idx[i][:0], b.val[i][:0]
		var nrm float64
		for k, j := range b.idx[i] {
			if x := b.val[i][k]; x != 0 {
				idx = append(idx, j)
				val = append(val, x)
				v[j] += x
				nrm += x * x
			}
		}
		b.idx[i], b.val[i], b.norm[i] = idx, val, nrm
	}
}

func (b *sparseStore) save(c *checkpoint) {
	c.SparseIdx, c.SparseVal = b.idx, b.val
}

func (b *sparseStore) restore(c *checkpoint) error {
	if err := needLen("sparse block indices", len(c.SparseIdx), len(b.idx)); err != nil {
		return err
	}
	if err := needLen("sparse block values", len(c.SparseVal), len(b.val)); err != nil {
		return err
	}
	d := b.s.d
	for i := range b.idx {
		idx, val := c.SparseIdx[i], c.SparseVal[i]
		if len(idx) != len(val) {
			return fmt.Errorf("solver: load: corrupt checkpoint: sparse block %d has %d indices and %d values", i, len(idx), len(val))
		}
		var nrm float64
		for k, j := range idx {
			if j < 0 || int(j) >= d {
				return fmt.Errorf("solver: load: corrupt checkpoint: sparse block %d has index %d outside [0, %d)", i, j, d)
			}
			if b.pos[j] != 0 {
				clearPos(b.pos, idx[:k])
				return fmt.Errorf("solver: load: corrupt checkpoint: sparse block %d repeats index %d", i, j)
			}
			b.pos[j] = 1
			if math.IsNaN(val[k]) || math.IsInf(val[k], 0) {
				clearPos(b.pos, idx[:k+1])
				return errors.New("solver: load: corrupt checkpoint: non-finite value in a sparse block")
			}
			nrm += val[k] * val[k]
		}
		clearPos(b.pos, idx)
		b.idx[i], b.val[i], b.norm[i] = idx, val, nrm
	}
	return nil
}

func clearPos(pos []int32, idx []int32) {
	for _, j := range idx {
		pos[j] = 0
	}
}

func (b *sparseStore) nonzeros() int64 {
	var m int64
	for _, idx := range b.idx {
		m += int64(len(idx))
	}
	return m
}

// dense returns a copy of v_i.
func (b *sparseStore) dense(i int) []float64 {
	out := make([]float64, b.s.d)
	for k, j := range b.idx[i] {
		out[j] += b.val[i][k]
	}
	return out
}

func (b *sparseStore) scaleMass(int, float64, *corner) {}
func (b *sparseStore) rescale(float64)                 {}

func (b *sparseStore) scaleAll(f float64) {
	for _, val := range b.val {
		for k := range val {
			val[k] *= f
		}
	}
}
func (b *sparseStore) kind() Storage { return SparseBlocks }

func (b *sparseStore) fill(c *checkpoint, n int, dense func(int) []float64) error {
	c.SparseIdx = make([][]int32, n)
	c.SparseVal = make([][]float64, n)
	for i := 0; i < n; i++ {
		for j, x := range dense(i) {
			if x != 0 {
				c.SparseIdx[i] = append(c.SparseIdx[i], int32(j))
				c.SparseVal[i] = append(c.SparseVal[i], x)
			}
		}
	}
	return nil
}
