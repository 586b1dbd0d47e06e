package oracles

// Accumulator builds a SparseVec with distinct indices (psi_i(y) of a
// model) from contributions that may repeat a coordinate, in order of first
// contribution. It stays empty between uses, so that building a vector costs
// O(number of contributions), not O(d). The zero value is ready for use
// after Ensure; it is not safe for concurrent use.
//
// It is an open-addressing hash table from coordinate to value with linear
// probing, in one of two modes:
//
//   - hashed (large d: CoNLL's 1.6M): Fibonacci hashing into a table kept
//     at most half full, so that the scratch is O(entries of one psi)
//     whatever d; a dense scratch would take 15 MB per goroutine there, to
//     be zeroed again whenever the sync.Pool holding it is emptied by a GC;
//   - direct (small d: OCR's 4,082): a table of d slots indexed by the
//     coordinate itself, where no two coordinates collide: the dense
//     scratch, fastest when d is small.
//
// The chain's Psi (newPsiAccumulator) also lays the space out as rows of
// equal width, coordinate = row*width + column (F emission rows, K
// transition rows and 3 bias rows of K labels), and adds whole rows at once
// (pairs).
type Accumulator struct {
	width  int32
	direct bool
	keys   []int32 // coordinate + 1; 0 marks an empty slot
	vals   []float64
	used   []int32 // occupied slots, in order of insertion
	mult   uint32  // the slot of coordinate i is (i*mult) >> shift,
	shift  uint32  // then the next ones (hashed mode)
	mask   uint32  // len(keys) - 1, a power of 2 minus 1 (hashed mode)
}

// directScratchMax is the largest dimension d for which an accumulator uses
// the direct mode (12 bytes per coordinate: about 1.6 MB per goroutine).
const directScratchMax = 1 << 17

// Ensure readies a for coordinates in [0, d): the direct mode up to
// directScratchMax, the hashed one beyond. Call it before adding (a holds
// nothing then).
func (a *Accumulator) Ensure(d int) {
	if d > directScratchMax {
		if a.direct {
			*a = Accumulator{}
		}
		return
	}
	if !a.direct || len(a.keys) < d {
		*a = Accumulator{direct: true, keys: make([]int32, d), vals: make([]float64, d), mult: 1}
	}
}

// Add adds v at coordinate i (below the d given to Ensure).
func (a *Accumulator) Add(i int32, v float64) {
	if a.direct {
		a.addDirect(i, v)
		return
	}
	a.reserve(1)
	a.add(i, v)
}

// Flush writes the accumulated non-zero entries into dst, in the order
// their coordinates were first added, and empties a.
func (a *Accumulator) Flush(dst *SparseVec) { a.flush(dst) }

// newPsiAccumulator returns the accumulator of a numRows x width grid, in
// direct mode when asked.
func newPsiAccumulator(numRows, width int, direct bool) *Accumulator {
	a := &Accumulator{width: int32(width), direct: direct}
	if direct {
		d := numRows * width
		a.keys, a.vals, a.mult, a.shift = make([]int32, d), make([]float64, d), 1, 0
	}
	return a
}

// reserve makes room for n more entries, so that a hashed table stays at
// most half full. Every add must be covered by a reserve since the last
// flush.
func (a *Accumulator) reserve(n int) {
	need := 2 * (len(a.used) + n)
	if a.direct || need <= len(a.keys) {
		return
	}
	size, bits := 16, uint32(4)
	for size < need {
		size, bits = size*2, bits+1
	}
	oldKeys, oldVals, oldUsed := a.keys, a.vals, a.used
	a.keys, a.vals = make([]int32, size), make([]float64, size)
	a.mult, a.shift, a.mask = 0x9E3779B1, 32-bits, uint32(size-1)
	a.used = make([]int32, 0, size/2)
	for _, h := range oldUsed {
		a.add(oldKeys[h]-1, oldVals[h])
	}
}

// add adds v at coordinate i; the caller has reserved room for it. Small
// enough to be inlined; in direct mode the loop never turns.
func (a *Accumulator) add(i int32, v float64) {
	h := (uint32(i) * a.mult) >> a.shift
	for a.keys[h] != i+1 {
		if a.keys[h] == 0 {
			a.keys[h] = i + 1
			a.used = append(a.used, int32(h))
			break
		}
		h = (h + 1) & a.mask
	}
	a.vals[h] += v
}

// pairs adds val[k] at column ca and -val[k] at column cb of every row
// idx[k]: the emission part of psi at a position whose true label ca was
// replaced by cb.
func (a *Accumulator) pairs(idx []int32, val []float64, ca, cb int32) {
	val = val[:len(idx)]
	if a.direct {
		for k, r := range idx {
			i := r * a.width
			a.addDirect(i+ca, val[k])
			a.addDirect(i+cb, -val[k])
		}
		return
	}
	a.reserve(2 * len(idx))
	for k, r := range idx {
		i := r * a.width
		a.add(i+ca, val[k])
		a.add(i+cb, -val[k])
	}
}

// column adds -val[k] at column c of every row idx[k]: the emission part of
// psi at a position whose true label is NoClass, predicted as c.
func (a *Accumulator) column(idx []int32, val []float64, c int32) {
	val = val[:len(idx)]
	if a.direct {
		for k, r := range idx {
			a.addDirect(r*a.width+c, -val[k])
		}
		return
	}
	a.reserve(len(idx))
	for k, r := range idx {
		a.add(r*a.width+c, -val[k])
	}
}

// addDirect is add in direct mode, where slot i holds coordinate i.
func (a *Accumulator) addDirect(i int32, v float64) {
	if a.keys[i] == 0 {
		a.keys[i] = i + 1
		a.used = append(a.used, i)
	}
	a.vals[i] += v
}

// flush writes the non-zero entries into dst, in order of insertion, and
// empties the table.
func (a *Accumulator) flush(dst *SparseVec) {
	dst.Reset()
	for _, h := range a.used {
		if v := a.vals[h]; v != 0 {
			dst.Append(a.keys[h]-1, v)
		}
		a.keys[h], a.vals[h] = 0, 0
	}
	a.used = a.used[:0]
}
