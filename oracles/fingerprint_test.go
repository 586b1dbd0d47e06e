package oracles_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
)

// TestFingerprint: the fingerprint reads back from its string, tells a
// problem from the same problem rebuilt with other features, and its
// Labels part is the bare hash older models recorded.
func TestFingerprint(t *testing.T) {
	for _, p := range []oracles.Problem{
		oraclestest.Multiclass(20, 3, 4, 1),
		oraclestest.Chain(oraclestest.ChainConfig{N: 6, MaxLen: 5, Labels: 3, Features: 4, Density: 1, Seed: 2}),
	} {
		f := oracles.FingerprintOf(p)
		if f != oracles.FingerprintOf(p) || f.Check(f) != nil {
			t.Fatal("fingerprint not deterministic")
		}
		g, full, err := oracles.ParseFingerprint(f.String())
		if err != nil || !full || g != f {
			t.Fatalf("%s read back as %+v (%v, %v)", f, g, full, err)
		}
		legacy := uint64(p.Len())*1000003 ^ uint64(p.Dim())
		for i := 0; i < p.Len(); i++ {
			legacy = legacy*1099511628211 ^ oracles.HashLabeling(p.Truth(i))
		}
		old, full, err := oracles.ParseFingerprint(strconv.FormatUint(legacy, 16))
		if err != nil || full || old.Labels != f.Labels {
			t.Fatalf("older fingerprint %x: %+v %v %v, want labels %x", legacy, old, full, err, f.Labels)
		}
	}
	p := oraclestest.Multiclass(20, 3, 4, 1)
	x := make([]oracles.SparseVec, p.Len())
	y := make([]int32, p.Len())
	for i := range x {
		in := p.Input(i)
		x[i] = in.Clone()
		x[i].Val[0] *= 1 + 1e-15*float64(i)
		y[i] = p.Truth(i)[0]
	}
	q, err := oracles.NewMulticlass(p.NumClasses(), p.NumFeatures(), x, y)
	if err != nil {
		t.Fatal(err)
	}
	if err := oracles.FingerprintOf(p).Check(oracles.FingerprintOf(q)); err == nil || !strings.Contains(err.Error(), "other features") {
		t.Fatalf("features changed in the last bits: %v", err)
	}
	if _, _, err := oracles.ParseFingerprint("n=1 d=x"); err == nil {
		t.Fatal("malformed fingerprint accepted")
	}
}
