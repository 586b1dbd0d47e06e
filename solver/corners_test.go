package solver

import (
	"slices"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
)

// TestReserveKeepsSetAndRoom: reserve changes no corner, psi, loss or Gram
// entry of a set; after it the corner it made room for is added without
// moving the arenas (the update the read part prepared does not grow
// them).
func TestReserveKeepsSetAndRoom(t *testing.T) {
	const nnz, corners = 300, 5
	corner := func(c int) ([]int32, oracles.SparseVec) {
		y := []int32{int32(c), int32(c % 3)}
		psi := oracles.SparseVec{Idx: make([]int32, nnz), Val: make([]float64, nnz)}
		for j := range psi.Idx {
			psi.Idx[j], psi.Val[j] = int32(2*j+c%2), float64(c*nnz+j)/7
		}
		return y, psi
	}
	var set cornerSet
	set.keepGram = true
	dense := make([]float64, 2*nnz+1)
	for c := 0; c < corners; c++ {
		y, psi := corner(c)
		before := cloneSet(&set)
		set.reserve(len(y), psi.Len())
		if !sameSet(&set, before) {
			t.Fatalf("reserve changed the set before corner %d", c)
		}
		idx, val := &set.idx[:cap(set.idx)][0], &set.val[:cap(set.val)][0]
		k := set.add(y, &psi, float64(c), int64(c), dense)
		if &set.idx[0] != idx || &set.val[0] != val {
			t.Fatalf("add moved the arenas after reserve (corner %d)", c)
		}
		if got := set.psi(k); !slices.Equal(got.Idx, psi.Idx) || !slices.Equal(got.Val, psi.Val) || !slices.Equal(set.labeling(k), y) {
			t.Fatalf("corner %d stored wrong", c)
		}
	}
	for a := range set.entries {
		for b := range set.entries {
			pa, pb := set.psi(a), set.psi(b)
			clear(dense)
			pa.AddTo(dense, 1)
			if want := pb.Dot(dense); set.g(a, b) != want {
				t.Fatalf("Gram (%d, %d) = %v, want %v", a, b, set.g(a, b), want)
			}
		}
	}
}

// cloneSet copies what a set holds (not its spare capacity).
func cloneSet(cs *cornerSet) cornerSet {
	return cornerSet{entries: slices.Clone(cs.entries), ys: slices.Clone(cs.ys), idx: slices.Clone(cs.idx), val: slices.Clone(cs.val), gram: slices.Clone(cs.gram), keepGram: cs.keepGram}
}

// sameSet reports whether a and b hold the same corners and Gram matrix.
func sameSet(a *cornerSet, b cornerSet) bool {
	return slices.Equal(a.entries, b.entries) && slices.Equal(a.ys, b.ys) && slices.Equal(a.idx, b.idx) && slices.Equal(a.val, b.val) && slices.Equal(a.gram, b.gram)
}
