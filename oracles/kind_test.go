package oracles_test

import (
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
)

// TestKindOf: each kind of problem is named in words, never by its Go
// type.
func TestKindOf(t *testing.T) {
	chain, err := oracles.NewChain(2, 1, []oracles.Sequence{{Features: []oracles.SparseVec{{Idx: []int32{0}, Val: []float64{1}}}, Labels: []int32{1}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		p    oracles.Problem
		want string
	}{
		{oraclestest.Multiclass(4, 3, 2, 1), "multiclass data"},
		{chain, "sequence labeling (chains)"},
		{nil, "no problem"},
	} {
		if got := oracles.KindOf(tc.p); got != tc.want {
			t.Errorf("KindOf(%T) = %q, want %q", tc.p, got, tc.want)
		}
	}
}
