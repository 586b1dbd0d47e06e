package fuzzfields

import (
	"math"
	"testing"
)

type inner struct {
	N int32
	F []float64
}

type outer struct {
	A   uint8
	In  *inner
	B   bool
	Nil *inner
	s   int // unexported: not a leaf
}

func TestSet(t *testing.T) {
	// Leaves in order: A, In.N, In.F, In.F[0], In.F[1], B.
	cases := []struct {
		k     int
		val   uint64
		check func(o *outer) bool
	}{
		{0, 300, func(o *outer) bool { return o.A == 44 }}, // 300 mod 256
		{1, 7, func(o *outer) bool { return o.In.N == 7 }},
		{2, 0, func(o *outer) bool { return len(o.In.F) == 0 }},
		{2, 3, func(o *outer) bool { return len(o.In.F) == 3 && o.In.F[2] == 0 }},
		{3, math.Float64bits(math.NaN()), func(o *outer) bool { return math.IsNaN(o.In.F[0]) }},
		{4, math.Float64bits(-2), func(o *outer) bool { return o.In.F[1] == -2 }},
		{5, 1, func(o *outer) bool { return o.B }},
		{6, 9, func(o *outer) bool { return o.A == 9 }}, // k modulo the 6 leaves
	}
	for _, tc := range cases {
		o := &outer{In: &inner{F: []float64{1, 2}}}
		if !Set(o, tc.k, tc.val) || !tc.check(o) || o.s != 0 {
			t.Errorf("Set(leaf %d, %d): %+v %+v", tc.k, tc.val, o, o.In)
		}
	}
	if Set(&struct{ s string }{}, 0, 1) {
		t.Error("a struct without leaves reported one")
	}
}
