package solver

import (
	"math/rand/v2"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
)

// TestDot4EqualsDot checks that the interleaved scoring gives every corner
// the score SparseVec.Dot gives it, bit for bit, whatever the lengths.
func TestDot4EqualsDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	w := make([]float64, 300)
	for i := range w {
		w[i] = rng.NormFloat64() * 1e3
	}
	random := func(nnz int) oracles.SparseVec {
		var v oracles.SparseVec
		for _, i := range rng.Perm(len(w))[:nnz] {
			v.Idx = append(v.Idx, int32(i))
			v.Val = append(v.Val, rng.NormFloat64()*rng.ExpFloat64())
		}
		return v
	}
	for _, lens := range [][4]int{{0, 0, 0, 0}, {1, 0, 3, 2}, {7, 7, 7, 7}, {300, 5, 120, 299}, {64, 65, 66, 67}} {
		v := [4]oracles.SparseVec{random(lens[0]), random(lens[1]), random(lens[2]), random(lens[3])}
		var got [4]float64
		got[0], got[1], got[2], got[3] = dot4(&v[0], &v[1], &v[2], &v[3], w)
		for k := range v {
			if want := v[k].Dot(w); got[k] != want {
				t.Errorf("lengths %v: corner %d scored %v, Dot gives %v", lens, k, got[k], want)
			}
		}
	}
}
