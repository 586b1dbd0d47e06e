package kernel

import "github.com/fwstruct/fwstruct/solver/internal/core"

// Kernel blocks: the values k(x_j, q_a) of a list of training inputs x_j
// (the support vectors) against a set of queries q_a (the blocks of the
// next steps, every training input in a gap pass, the test inputs),
// computed a tile of the list at a time so that each tile's inputs are
// read from memory once for all the queries and then from the CPU's
// cache: one dot product at a time, every kernel value streams a whole
// input from memory (USPS: 257 float64, 2 KB), and memory, not
// arithmetic, bounds the speed.
//
// Every value is bit for bit what Kernel.between computes for the same
// pair (dotRows is floats.Dot, the kernel function is the same), so a
// block changes no result: the order of every sum over the list stays the
// caller's.

// tileRows is the number of inputs of the list a block reads at a time:
// 32 inputs of USPS's 257 float64 (64 KB) stay in the L2 cache while
// every query of the block runs over them.
const tileRows = 32

// chunkQueries is the number of queries whose kernel rows a pass over
// every example (sweep) holds at a time.
const chunkQueries = 64

// blockScratch is one worker's scratch for kernel blocks.
type blockScratch struct {
	offs        []int     // offsets of the tile's inputs in the list's matrix
	dots, lanes []float64 // dotRows' output and scratch
	kv          []float64 // sweep: chunkQueries rows of kernel values
	scores      []float64 // a query's scores (the caller's)
}

func (sc *blockScratch) grow(rows int) {
	if cap(sc.offs) < rows {
		sc.offs = make([]int, rows)
		sc.dots = make([]float64, rows)
		sc.lanes = make([]float64, 4*rows)
	}
	sc.offs, sc.dots, sc.lanes = sc.offs[:rows], sc.dots[:rows], sc.lanes[:4*rows]
}

// kvTile sets out[a*stride+p] = k(x_list[p], q_qs[a]) for the entries p in
// [lo, hi) of list (rows of tr) and every query a of qs (rows of q), as
// between does (hi - lo <= tileRows).
func (k Kernel) kvTile(tr *inputs, list []int32, lo, hi int, q *inputs, qs []int32, out []float64, stride int, sc *blockScratch) {
	sc.grow(hi - lo)
	for p, j := range list[lo:hi] {
		sc.offs[p] = int(j) * tr.f
	}
	for a, qi := range qs {
		dotRows(q.row(int(qi)), tr.x, sc.offs, sc.dots, sc.lanes)
		dst := out[a*stride+lo : a*stride+hi]
		nb := q.sq[qi]
		for p, j := range list[lo:hi] {
			dst[p] = k.eval(sc.dots[p], tr.sq[j], nb)
		}
	}
}

// kvRows sets out[a*len(list)+p] = k(x_list[p], q_qs[a]) for every entry p
// of list and every query a of qs, tile by tile, the tiles of the list
// spread over W workers (scratch holds one per worker): a block of few
// queries (the next steps' blocks, down to a single one) still splits.
func (k Kernel) kvRows(tr *inputs, list []int32, q *inputs, qs []int32, out []float64, scratch []blockScratch) {
	m := len(list)
	tiles := (m + tileRows - 1) / tileRows
	_ = core.Parallel(tiles, len(scratch), func(w, t int) error {
		k.kvTile(tr, list, t*tileRows, min(m, (t+1)*tileRows), q, qs, out, m, &scratch[w])
		return nil
	})
}

// sweep calls fn(w, a, kv) for every query a of qs (rows of q), with
// kv[p] = k(x_list[p], q_qs[a]) for every entry p of list: the queries in
// chunks of chunkQueries spread over the workers (one scratch each), every
// chunk a kernel block. fn runs on worker w, once for each query, and must
// write nothing another query's call writes; kv is valid during the call
// only.
func (k Kernel) sweep(tr *inputs, list []int32, q *inputs, qs []int32, scratch []blockScratch, fn func(w, a int, kv []float64)) {
	m := len(list)
	chunks := (len(qs) + chunkQueries - 1) / chunkQueries
	_ = core.Parallel(chunks, len(scratch), func(w, c int) error {
		sc := &scratch[w]
		lo, hi := c*chunkQueries, min(len(qs), (c+1)*chunkQueries)
		if need := (hi - lo) * m; cap(sc.kv) < need {
			sc.kv = make([]float64, need)
		}
		kv := sc.kv[:(hi-lo)*m]
		for t := 0; t < m; t += tileRows {
			k.kvTile(tr, list, t, min(m, t+tileRows), q, qs[lo:hi], kv, m, sc)
		}
		for a := lo; a < hi; a++ {
			fn(w, a, kv[(a-lo)*m:(a-lo+1)*m])
		}
		return nil
	})
}

// scratch returns the block scratch of the solver's workers.
func (s *Solver) scratch() []blockScratch {
	if len(s.blocks) != s.workers {
		s.blocks = make([]blockScratch, max(1, s.workers))
	}
	return s.blocks
}

// scoresOf returns the worker's scores buffer of k classes.
func (sc *blockScratch) scoresOf(k int) []float64 {
	if cap(sc.scores) < k {
		sc.scores = make([]float64, k)
	}
	return sc.scores[:k]
}
