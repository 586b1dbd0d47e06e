package solver

import (
	"fmt"

	"github.com/fwstruct/fwstruct/oracles"
)

// blockStore holds the per-block part of the dual iterate of BCFW: the
// block vectors v_i = A alpha_[i] (Lacoste-Julien et al. 2013, App. B.4),
// in one of three representations chosen when the solver is built:
//
//   - denseStore: v_i as dense rows, for problems where n*d floats fit
//     comfortably in memory (OCR: n*d = 25M); every FW step then costs O(d);
//   - sparseStore: v_i as sparse vectors, for large d (CoNLL: d = 1.6M,
//     n = 8,936, where dense rows would need 117 GB); a step costs
//     O(nnz(v_i) + nnz(psi));
//   - dualStore: the explicit dual variables alpha_i over the corners of
//     the block's corner set, with their Gram matrix, for pairwise and away
//     steps (Osokin et al. 2016, Alg. 3 and 4), which need them; no v_i is
//     stored at all.
//
// ell_i = b^T alpha_[i] is kept by the solver for every representation.
// Every change to a block is applied to the global v through the solver's
// iterate, so that v = sum_i v_i holds up to rounding (re-anchored exactly
// at every gap pass by accumulate).
type blockStore interface {
	// base returns lambda <v_i, w> - ell_i at the solver's current w.
	// scores holds H_i(c; w) for the corners of block i's set when the
	// solver keeps corner sets (nil otherwise).
	base(i int, scores []float64) float64
	// baseAt is base at any w; it is safe for concurrent use.
	baseAt(i int, w []float64) float64
	// distSq returns |v_i - v_c|^2 with v_c = psi_c/(lambda n).
	distSq(i int, c *corner) float64
	// move sets v_i <- scale v_i + ca psi_a + cb psi_b (b may be nil) and
	// applies the same change to the iterate. With explicit duals it reads
	// the masses before the move: the caller updates them afterwards.
	move(i int, scale float64, a *corner, ca float64, b *corner, cb float64)
	// setCorner puts all of block i on corner c: v_i = psi_c/(lambda n).
	// It does not touch the iterate; the caller re-anchors afterwards.
	setCorner(i int, c *corner)
	// accumulate adds every v_i into v (zeroed by the caller) and
	// refreshes what the representation maintains incrementally.
	accumulate(v []float64)
	// save and restore write and read the store's part of a checkpoint.
	save(c *checkpoint)
	restore(c *checkpoint) error
	// nonzeros returns the number of stored values (memory diagnostics).
	nonzeros() int64
	// dense returns v_i as a new dense vector.
	dense(i int) []float64
	// scaleMass applies a Frank-Wolfe step's alpha_i <- (1-gamma) alpha_i
	// + gamma e_c to the explicit dual variables (none without them).
	scaleMass(i int, gamma float64, c *corner)
	// rescale applies SetLambda's alpha_i(y) := rho alpha_i(y) for y !=
	// y_i to the explicit dual variables, the freed mass going to the
	// ground truth (the block vectors, which stay the same, need nothing).
	rescale(rho float64)
	// scaleAll sets every v_i <- f v_i without touching the iterate (the
	// caller re-anchors it): SetLambda's increase. Explicit dual variables
	// need nothing, their block vectors being computed with the current
	// lambda.
	scaleAll(f float64)
	// kind returns the representation (AutoStorage for explicit duals).
	kind() Storage
	// fill writes block vectors v_i = dense(i) into c in this store's
	// representation (Fork converting a run to another storage).
	fill(c *checkpoint, n int, dense func(i int) []float64) error
}

// Storage selects the representation of the per-block vectors of BCFW with
// Frank-Wolfe steps (pairwise and away steps always keep explicit duals).
type Storage int

const (
	// AutoStorage picks DenseBlocks when n*d floats take at most
	// DenseBlockLimit bytes, else SparseBlocks.
	AutoStorage Storage = iota
	// DenseBlocks stores every v_i as a dense row of d floats.
	DenseBlocks
	// SparseBlocks stores every v_i as a sparse vector.
	SparseBlocks
)

// DenseBlockLimit is the memory, in bytes, up to which AutoStorage keeps
// the per-block vectors dense (1 GiB).
const DenseBlockLimit = 1 << 30

func (st Storage) String() string {
	switch st {
	case AutoStorage:
		return "auto"
	case DenseBlocks:
		return "dense"
	case SparseBlocks:
		return "sparse"
	}
	return fmt.Sprintf("Storage(%d)", int(st))
}

// newStore builds the block store for s (after s.sets exist).
func (s *Solver) newStore() (blockStore, error) {
	if s.cfg.explicitDuals() {
		return &dualStore{s: s}, nil
	}
	if s.cfg.Step == stepExact {
		m, ok := s.p.(*oracles.Multiclass)
		if !ok {
			return nil, fmt.Errorf("solver: exact block steps train on multiclass data (their blocks are simplices over the classes), not on %s: train it with BCFW (the recommended method or bcfw; pairwise steps come closest)", oracles.KindOf(s.p))
		}
		return newClassStore(s, m), nil
	}
	st := s.cfg.Storage
	if st == AutoStorage {
		st = DenseBlocks
		if int64(s.n)*int64(s.d)*8 > DenseBlockLimit {
			st = SparseBlocks
		}
	}
	switch st {
	case DenseBlocks:
		if int64(s.n)*int64(s.d) > maxDenseFloats {
			return nil, fmt.Errorf("solver: dense per-block vectors need n*d = %d floats (%.1f GB); use SparseBlocks storage (the default picks it for problems this large)", int64(s.n)*int64(s.d), float64(s.n)*float64(s.d)*8/1e9)
		}
		return newDenseStore(s), nil
	case SparseBlocks:
		return newSparseStore(s), nil
	}
	return nil, fmt.Errorf("solver: unknown block storage %v", st)
}

// maxDenseFloats bounds n*d for dense blocks requested explicitly (32 GiB).
const maxDenseFloats = 1 << 32

// scatter adds a psi into a zeroed dense scratch; unscatter re-zeroes it.
func scatter(dense []float64, psi *oracles.SparseVec) { psi.AddTo(dense, 1) }

func unscatter(dense []float64, psi *oracles.SparseVec) {
	for _, j := range psi.Idx {
		dense[j] = 0
	}
}
