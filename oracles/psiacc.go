package oracles

// psiAccumulator builds psi_i(y) as a SparseVec with distinct indices from
// contributions that may repeat a coordinate, in a space laid out as rows of
// equal width: coordinate = row*width + column. The chain's feature space is
// such a grid (F emission rows, K transition rows and 3 bias rows of K
// labels). Methods take whole rows of contributions so that the interface
// call happens once per position, not once per feature.
//
// Two implementations: denseAccumulator, a dense scratch of dimension d
// (fastest when d is small: OCR), and hashAccumulator, whose scratch is
// O(entries of one psi), never O(d) (CoNLL: d = 1.6M, where a dense scratch
// would take 15 MB per goroutine, to be zeroed again whenever the sync.Pool
// holding it is emptied by a GC).
type psiAccumulator interface {
	// reserve announces at most n entries before the next flush.
	reserve(n int)
	// pairs adds val[k] at column ca and -val[k] at column cb of every row
	// idx[k] (ca != cb): the emission part of psi at a position whose true
	// label ca was replaced by cb.
	pairs(idx []int32, val []float64, ca, cb int32)
	// pair adds v at column ca and -v at column cb of row r (ca != cb).
	pair(r, ca, cb int32, v float64)
	// add adds v at column col of row r.
	add(r, col int32, v float64)
	// flush writes the accumulated non-zero entries into dst and re-zeroes
	// the scratch.
	flush(dst *SparseVec)
}

// denseScratchMax is the largest dimension d for which the chain's Psi uses
// a dense scratch (9 bytes per coordinate: about 1.2 MB per goroutine).
const denseScratchMax = 1 << 17

// newPsiAccumulator returns the accumulator of a numRows x width grid:
// sparse asks for the hashAccumulator.
func newPsiAccumulator(numRows, width int, sparse bool) psiAccumulator {
	if sparse {
		return &hashAccumulator{width: int32(width)}
	}
	d := numRows * width
	return &denseAccumulator{width: int32(width), dense: make([]float64, d), seen: make([]bool, d)}
}

// denseAccumulator is a dense scratch of the full dimension plus the list of
// touched coordinates. It stays zeroed between uses.
type denseAccumulator struct {
	width   int32
	dense   []float64
	seen    []bool
	touched []int32
}

func (a *denseAccumulator) reserve(int) {}

func (a *denseAccumulator) addIndex(i int32, v float64) {
	if !a.seen[i] {
		a.seen[i] = true
		a.touched = append(a.touched, i)
	}
	a.dense[i] += v
}

func (a *denseAccumulator) pairs(idx []int32, val []float64, ca, cb int32) {
	val = val[:len(idx)]
	for k, r := range idx {
		i := r * a.width
		a.addIndex(i+ca, val[k])
		a.addIndex(i+cb, -val[k])
	}
}

func (a *denseAccumulator) pair(r, ca, cb int32, v float64) {
	a.addIndex(r*a.width+ca, v)
	a.addIndex(r*a.width+cb, -v)
}

func (a *denseAccumulator) add(r, col int32, v float64) { a.addIndex(r*a.width+col, v) }

func (a *denseAccumulator) flush(dst *SparseVec) {
	dst.Reset()
	for _, i := range a.touched {
		if v := a.dense[i]; v != 0 {
			dst.Append(i, v)
		}
		a.dense[i] = 0
		a.seen[i] = false
	}
	a.touched = a.touched[:0]
}

// hashAccumulator is an open-addressing hash table from coordinate to value
// (linear probing, Fibonacci hashing) kept at most half full: its scratch
// is O(entries of one psi), whatever d. It stays empty between uses.
type hashAccumulator struct {
	width int32
	keys  []int32 // coordinate + 1; 0 marks an empty slot
	vals  []float64
	used  []int32 // occupied slots, in order of insertion
	shift uint32  // 32 - log2(len(keys))
}

// reserve makes room for n more entries, so that the table stays at most
// half full.
func (a *hashAccumulator) reserve(n int) {
	need := 2 * (len(a.used) + n)
	if need <= len(a.keys) {
		return
	}
	size, bits := 16, uint32(4)
	for size < need {
		size, bits = size*2, bits+1
	}
	oldKeys, oldVals, oldUsed := a.keys, a.vals, a.used
	a.keys, a.vals, a.shift = make([]int32, size), make([]float64, size), 32-bits
	a.used = make([]int32, 0, size/2)
	for _, h := range oldUsed {
		a.addIndex(oldKeys[h]-1, oldVals[h])
	}
}

func (a *hashAccumulator) addIndex(i int32, v float64) {
	if 2*len(a.used)+2 > len(a.keys) {
		a.reserve(1) // more entries than reserved
	}
	mask := uint32(len(a.keys) - 1)
	h := (uint32(i) * 0x9E3779B1) >> a.shift
	for {
		switch a.keys[h] {
		case i + 1:
			a.vals[h] += v
			return
		case 0:
			a.keys[h], a.vals[h] = i+1, v
			a.used = append(a.used, int32(h))
			return
		}
		h = (h + 1) & mask
	}
}

func (a *hashAccumulator) pairs(idx []int32, val []float64, ca, cb int32) {
	val = val[:len(idx)]
	for k, r := range idx {
		i := r * a.width
		a.addIndex(i+ca, val[k])
		a.addIndex(i+cb, -val[k])
	}
}

func (a *hashAccumulator) pair(r, ca, cb int32, v float64) {
	a.addIndex(r*a.width+ca, v)
	a.addIndex(r*a.width+cb, -v)
}

func (a *hashAccumulator) add(r, col int32, v float64) { a.addIndex(r*a.width+col, v) }

// flush writes the entries in order of insertion.
func (a *hashAccumulator) flush(dst *SparseVec) {
	dst.Reset()
	for _, h := range a.used {
		if v := a.vals[h]; v != 0 {
			dst.Append(a.keys[h]-1, v)
		}
		a.keys[h], a.vals[h] = 0, 0
	}
	a.used = a.used[:0]
}
