package solver

import (
	"gonum.org/v1/gonum/floats"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/internal/core"
)

// iterate holds the primal side of the dual iterate: v = A alpha (the
// untruncated weights), w = [v], its truncation to the box (Osokin et al.
// 2016, App. H; w aliases v without a box), and the weighted averages of v.
// It is the only writer of v, so that every write costs O(1) per touched
// coordinate: the box is applied and the averages are brought up to date on
// that coordinate only, never on all d of them. This keeps a block step at
// O(nnz of the step) when d is large (CoNLL: d = 1.6M).
type iterate struct {
	v, w []float64
	box  *Box
	avgs []*core.Average
	// dirty lists the coordinates of w written since the last snapshot
	// (nil until snapshot is first called; all: every coordinate).
	dirty *dirtySet
}

// dirtySet is a set of coordinates, kept as a list and a mark per
// coordinate.
type dirtySet struct {
	mark []bool
	idx  []int32
	all  bool
}

func (d *dirtySet) add(j int32) {
	if !d.mark[j] {
		d.mark[j] = true
		d.idx = append(d.idx, j)
	}
}

// snapshot copies w into dst (grown to d) and returns it: the whole of w
// the first time, then only the coordinates written since the previous
// snapshot, so that a snapshot per mini-batch costs O(nnz of its steps),
// not O(d). dst must be the result of the previous call.
func (x *iterate) snapshot(dst []float64) []float64 {
	if x.dirty == nil || len(dst) != len(x.w) {
		x.dirty = &dirtySet{mark: make([]bool, len(x.w))}
		dst = append(dst[:0], x.w...)
		return dst
	}
	d := x.dirty
	if d.all || len(d.idx) > len(x.w)/4 {
		copy(dst, x.w)
		clear(d.mark)
	} else {
		for _, j := range d.idx {
			dst[j] = x.w[j]
			d.mark[j] = false
		}
	}
	d.idx, d.all = d.idx[:0], false
	return dst
}

func newIterate(d int, box *Box) *iterate {
	x := &iterate{v: make([]float64, d), box: box}
	x.w = x.v
	if box != nil {
		x.w = make([]float64, d)
		box.clipAll(x.w, x.v)
	}
	return x
}

// add performs v_j += delta.
func (x *iterate) add(j int32, delta float64) {
	for _, a := range x.avgs {
		a.Sync(j, x.v[j])
	}
	x.v[j] += delta
	if x.box != nil {
		x.w[j] = x.box.clip(int(j), x.v[j])
	}
	if x.dirty != nil {
		x.dirty.add(j)
	}
}

// addSparse performs v += a s.
func (x *iterate) addSparse(s *oracles.SparseVec, a float64) {
	if a == 0 {
		return
	}
	val := s.Val[:len(s.Idx)]
	if len(x.avgs) > 0 {
		for k, j := range s.Idx {
			x.add(j, a*val[k])
		}
		return
	}
	v := x.v
	for k, j := range s.Idx {
		v[j] += a * val[k]
	}
	if x.box != nil {
		x.box.clipAt(x.w, v, s.Idx)
	}
	if x.dirty != nil {
		for _, j := range s.Idx {
			x.dirty.add(j)
		}
	}
}

// addDense performs v += a u for a dense u: O(d), so the averages are
// brought up to date on every coordinate at once (vectorized) first.
func (x *iterate) addDense(u []float64, a float64) {
	if a == 0 {
		return
	}
	for _, avg := range x.avgs {
		avg.SyncAll(x.v)
	}
	floats.AddScaled(x.v, a, u)
	if x.box != nil {
		x.box.clipAll(x.w, x.v)
	}
	x.touchAll()
}

// scale performs v *= f.
func (x *iterate) scale(f float64) {
	for _, avg := range x.avgs {
		avg.SyncAll(x.v)
	}
	floats.Scale(f, x.v)
	if x.box != nil {
		x.box.clipAll(x.w, x.v)
	}
	x.touchAll()
}

// set replaces v by u (re-anchoring after recomputing v from the blocks).
func (x *iterate) set(u []float64) {
	for _, a := range x.avgs {
		a.SyncAll(x.v)
	}
	copy(x.v, u)
	if x.box != nil {
		x.box.clipAll(x.w, x.v)
	}
	x.touchAll()
}

// touchAll marks every coordinate written (a dense operation).
func (x *iterate) touchAll() {
	if x.dirty != nil {
		x.dirty.all = true
	}
}

// fold adds the current iterate (v, ell) to every average: it ends a step.
func (x *iterate) fold(ell float64) {
	for _, a := range x.avgs {
		a.Fold(ell)
	}
}
