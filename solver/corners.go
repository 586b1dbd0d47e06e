package solver

import (
	"slices"

	"github.com/fwstruct/fwstruct/oracles"
)

// cornerEntry describes one corner held by a block: in its cache (working
// set C_i of Osokin et al. 2016, Alg. 5), in its active set S_i (alpha > 0,
// pairwise and away steps, Alg. 3-4), or both; the active set lives inside
// the cache, in one data structure, as in the paper. The labeling and psi
// live in the arenas of the set.
type cornerEntry struct {
	yOff, yLen   int32 // labeling: ys[yOff : yOff+yLen]
	psiOff, nnz  int32 // psi: idx/val[psiOff : psiOff+nnz]
	loss, normSq float64
	hash         uint64
	alpha        float64 // dual mass alpha_i(y); tracked only with explicit duals
	lastUse      int64   // step of the last insertion or cache hit (for eviction)
}

// cornerSet is the set of corners of one block. Labelings and psi vectors
// are stored contiguously, so that scoring the whole set streams through
// memory, and adding a corner does not allocate in steady state. With
// explicit duals the set also keeps the Gram matrix G[c][d] = <psi_c, psi_d>
// of its corners, which gives the norms of the line searches without a dense
// v_i (Lacoste-Julien et al. 2013, App. B.5).
type cornerSet struct {
	entries  []cornerEntry
	ys       []int32
	idx      []int32
	val      []float64
	gram     []float64 // len(entries)^2, row-major; nil unless kept
	spare    []float64 // second buffer for growing gram
	rowBuf   []float64 // scratch of add: the new corner's Gram row
	keepGram bool
}

// psi returns a view of the psi of entry k (do not modify or retain).
func (cs *cornerSet) psi(k int) oracles.SparseVec {
	e := &cs.entries[k]
	lo, hi := e.psiOff, e.psiOff+e.nnz
	return oracles.SparseVec{Idx: cs.idx[lo:hi:hi], Val: cs.val[lo:hi:hi]}
}

// labeling returns a view of the labeling of entry k.
func (cs *cornerSet) labeling(k int) []int32 {
	e := &cs.entries[k]
	return cs.ys[e.yOff : e.yOff+e.yLen : e.yOff+e.yLen]
}

// find returns the position of labeling y (with hash h), or -1.
func (cs *cornerSet) find(y []int32, h uint64) int {
	for k := range cs.entries {
		if cs.entries[k].hash == h && oracles.SameLabeling(cs.labeling(k), y) {
			return k
		}
	}
	return -1
}

// reserve makes room for one more corner, of a labeling of ny labels and
// nnz psi entries, without changing the set: its arenas, entries and Gram
// matrix buffer grow as add would grow them. The read part of a step calls
// it ahead for the corner its step will insert (ahead.go), on whichever
// goroutine computes it, so that the update does not grow the set: on
// LP-hard, whose corners are dense, growing the arenas was more than half
// of the update's time, on the solver's goroutine.
func (cs *cornerSet) reserve(ny, nnz int) {
	cs.ys = slices.Grow(cs.ys, ny)
	cs.idx = slices.Grow(cs.idx, nnz)
	cs.val = slices.Grow(cs.val, nnz)
	cs.entries = slices.Grow(cs.entries, 1)
	if k := len(cs.entries) + 1; cs.keepGram && cap(cs.spare) < k*k {
		cs.spare = make([]float64, k*k, 2*k*k)
	}
}

// add appends the corner (y, psi, loss) with zero mass and returns its
// position; dense must be a zeroed scratch vector covering psi's indices
// (used for the Gram matrix, left zeroed).
func (cs *cornerSet) add(y []int32, psi *oracles.SparseVec, loss float64, step int64, dense []float64) int {
	var row []float64
	if cs.keepGram {
		row = cs.gramRow(psi, dense, cs.rowBuf[:0])
		cs.rowBuf = row
	}
	return cs.addWithRow(y, psi, loss, psi.NormSq(), oracles.HashLabeling(y), step, row)
}

// addWithRow is add with |psi|^2, the labeling's hash and, when the set
// keeps its Gram matrix, the new corner's row (gramRow), computed before.
func (cs *cornerSet) addWithRow(y []int32, psi *oracles.SparseVec, loss, normSq float64, hash uint64, step int64, row []float64) int {
	e := cornerEntry{
		yOff: int32(len(cs.ys)), yLen: int32(len(y)),
		psiOff: int32(len(cs.idx)), nnz: int32(psi.Len()),
		loss: loss, normSq: normSq, hash: hash, lastUse: step,
	}
	cs.ys = append(cs.ys, y...)
	cs.idx = append(cs.idx, psi.Idx...)
	cs.val = append(cs.val, psi.Val...)
	cs.entries = append(cs.entries, e)
	if cs.keepGram {
		cs.growGram(row)
	}
	return len(cs.entries) - 1
}

// gramRow appends <psi_c, psi> for every corner c of the set to dst and
// returns it; dense is a zeroed scratch covering psi's indices, left
// zeroed. It only reads the set.
func (cs *cornerSet) gramRow(psi *oracles.SparseVec, dense []float64, dst []float64) []float64 {
	psi.AddTo(dense, 1)
	for c := range cs.entries {
		v := cs.psi(c)
		dst = append(dst, v.Dot(dense))
	}
	for _, j := range psi.Idx {
		dense[j] = 0
	}
	return dst
}

// growGram extends the Gram matrix by the row and column of the corner just
// appended (row: its products with the corners before it), writing into the
// spare buffer and swapping.
func (cs *cornerSet) growGram(row []float64) {
	k := len(cs.entries) // new size
	if cap(cs.spare) < k*k {
		cs.spare = make([]float64, k*k, 2*k*k)
	}
	g := cs.spare[:k*k]
	for r := 0; r < k-1; r++ {
		copy(g[r*k:r*k+k-1], cs.gram[r*(k-1):(r+1)*(k-1)])
	}
	for c := 0; c < k-1; c++ {
		g[c*k+k-1] = row[c]
		g[(k-1)*k+c] = row[c]
	}
	g[(k-1)*k+k-1] = cs.entries[k-1].normSq
	cs.gram, cs.spare = g, cs.gram
}

// g returns the Gram entry <psi_a, psi_b>.
func (cs *cornerSet) g(a, b int) float64 { return cs.gram[a*len(cs.entries)+b] }

// remove deletes entry k, compacting the arenas and the Gram matrix.
func (cs *cornerSet) remove(k int) {
	e := cs.entries[k]
	cs.ys = append(cs.ys[:e.yOff], cs.ys[e.yOff+e.yLen:]...)
	cs.idx = append(cs.idx[:e.psiOff], cs.idx[e.psiOff+e.nnz:]...)
	cs.val = append(cs.val[:e.psiOff], cs.val[e.psiOff+e.nnz:]...)
	for m := k + 1; m < len(cs.entries); m++ {
		cs.entries[m].yOff -= e.yLen
		cs.entries[m].psiOff -= e.nnz
	}
	n := len(cs.entries)
	if cs.keepGram {
		w := 0
		for r := 0; r < n; r++ {
			if r == k {
				continue
			}
			for c := 0; c < n; c++ {
				if c == k {
					continue
				}
				cs.gram[w] = cs.gram[r*n+c]
				w++
			}
		}
		cs.gram = cs.gram[:w]
	}
	copy(cs.entries[k:], cs.entries[k+1:])
	cs.entries = cs.entries[:n-1]
}

// active returns the number of corners with positive mass.
func (cs *cornerSet) active() int {
	m := 0
	for k := range cs.entries {
		if cs.entries[k].alpha > 0 {
			m++
		}
	}
	return m
}

// evict removes inactive corners, least recently used first, until the set
// holds at most maxSize corners or only active ones.
func (cs *cornerSet) evict(maxSize int) {
	for len(cs.entries) > maxSize {
		victim := -1
		for k := range cs.entries {
			e := &cs.entries[k]
			if e.alpha > 0 {
				continue
			}
			if victim < 0 || e.lastUse < cs.entries[victim].lastUse {
				victim = k
			}
		}
		if victim < 0 {
			return
		}
		cs.remove(victim)
	}
}

// dropInactive removes the corners without mass (used without a cache, where
// the set is exactly the active set).
func (cs *cornerSet) dropInactive() {
	for k := len(cs.entries) - 1; k >= 0; k-- {
		if cs.entries[k].alpha <= 0 {
			cs.remove(k)
		}
	}
}

// addTruth adds the ground-truth corner of example i (psi = 0, loss
// L_i(y_i)) and returns its position.
func (cs *cornerSet) addTruth(p oracles.Problem, i int, step int64, dense []float64) int {
	var psi oracles.SparseVec
	truth := p.Truth(i)
	p.Psi(i, truth, &psi)
	return cs.add(truth, &psi, p.Loss(i, truth), step, dense)
}
