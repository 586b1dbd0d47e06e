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
	// dirty[0] lists the coordinates of w written since the last
	// snapshot, dirty[g] those written between the snapshots g and g+1
	// before it (nil until snapshot is first called with a large d).
	dirty []dirtySet
}

// copyAllBelow is the dimension up to which a snapshot copies all of w
// (under a microsecond) instead of tracking the coordinates written.
const copyAllBelow = 1024

// dirtySet is a set of coordinates, kept as a list and a mark per
// coordinate.
type dirtySet struct {
	mark []bool
	idx  []int32
	all  bool
}

// reset empties the set.
func (d *dirtySet) reset() {
	if d.all || len(d.idx) > len(d.mark)/8 {
		clear(d.mark)
	} else {
		for _, j := range d.idx {
			d.mark[j] = false
		}
	}
	d.idx, d.all = d.idx[:0], false
}

func (d *dirtySet) add(j int32) {
	if !d.mark[j] {
		d.mark[j] = true
		d.idx = append(d.idx, j)
	}
}

// snapshot copies w into dst, the buffer of one of r slots used in turn
// (the result of the call r calls before, nil the first time), and returns
// it: the whole of w when d is small or the buffer is new, else only the
// coordinates written since that buffer's last copy, so that a copy per
// mini-batch costs O(nnz of its steps), not O(d).
func (x *iterate) snapshot(dst []float64, r int) []float64 {
	d := len(x.w)
	if d <= copyAllBelow {
		return append(dst[:0], x.w...) // cheaper than tracking the writes
	}
	if len(x.dirty) != r {
		x.dirty = make([]dirtySet, r)
		for g := range x.dirty {
			x.dirty[g].mark = make([]bool, d)
		}
		dst = nil // the generations before are unknown
	}
	whole, written := len(dst) != d, 0
	for g := range x.dirty {
		whole = whole || x.dirty[g].all
		written += len(x.dirty[g].idx)
	}
	if whole || written > d/4 {
		dst = append(dst[:0], x.w...)
	} else {
		for g := range x.dirty {
			for _, j := range x.dirty[g].idx {
				dst[j] = x.w[j]
			}
		}
	}
	// What was written since the last copy now dates from before it; the
	// oldest generation, copied into its last buffer now, is reused.
	oldest := x.dirty[r-1]
	oldest.reset()
	copy(x.dirty[1:], x.dirty[:r-1])
	x.dirty[0] = oldest
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
		x.dirty[0].add(j)
	}
}

// addSparse performs v += a s.
func (x *iterate) addSparse(s *oracles.SparseVec, a float64) {
	if a == 0 {
		return
	}
	val := s.Val[:len(s.Idx)]
	for _, avg := range x.avgs {
		avg.SyncAt(s.Idx, x.v)
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
			x.dirty[0].add(j)
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
		x.dirty[0].all = true
	}
}

// fold adds the current iterate (v, ell) to every average: it ends a step.
func (x *iterate) fold(ell float64) {
	for _, a := range x.avgs {
		a.Fold(ell)
	}
}
