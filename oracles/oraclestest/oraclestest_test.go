package oraclestest

import (
	"slices"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
)

func TestSparseDot(t *testing.T) {
	a := oracles.SparseVec{Idx: []int32{4, 0, 2}, Val: []float64{1, 2, -3}}
	for _, tc := range []struct {
		name string
		b    oracles.SparseVec
		want float64
	}{
		{"overlap", oracles.SparseVec{Idx: []int32{2, 3, 4}, Val: []float64{5, 7, 11}}, -15 + 11},
		{"disjoint", oracles.SparseVec{Idx: []int32{1, 3}, Val: []float64{1, 1}}, 0},
		{"empty", oracles.SparseVec{}, 0},
		{"itself", a, 1 + 4 + 9},
	} {
		scratch := make([]float64, 5)
		if got := SparseDot(&a, &tc.b, scratch); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
		if !slices.Equal(scratch, make([]float64, 5)) {
			t.Errorf("%s: scratch left at %v", tc.name, scratch)
		}
	}
}
