package oracles_test

import (
	"fmt"
	"math"
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
		f := oracles.FingerprintOf(p, 1)
		if f != oracles.FingerprintOf(p, 1) || f.Check(f) != nil {
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
	if err := oracles.FingerprintOf(p, 2).Check(oracles.FingerprintOf(q, 2)); err == nil || !strings.Contains(err.Error(), "other features") {
		t.Fatalf("features changed in the last bits: %v", err)
	}
	if _, _, err := oracles.ParseFingerprint("n=1 d=x"); err == nil {
		t.Fatal("malformed fingerprint accepted")
	}
}

// sequentialFingerprint is FingerprintOf without workers: one example
// after the other, the digest of the oracle's labeling at w = 0, its loss
// and psi mixed in as they come.
func sequentialFingerprint(p oracles.Problem) oracles.Fingerprint {
	const offset = 14695981039346656037
	f := oracles.FingerprintOf(p, 1)
	f.Data = offset
	w := make([]float64, p.Dim())
	var psi oracles.SparseVec
	for i := 0; i < p.Len(); i++ {
		y, _ := p.MaxOracle(i, w, nil)
		p.Psi(i, y, &psi)
		h := oracles.MixHash(offset, oracles.HashLabeling(y))
		h = oracles.MixHash(h, math.Float64bits(p.Loss(i, y)))
		f.Data = oracles.MixHash(f.Data, oracles.HashSparse(h, &psi))
	}
	return f
}

// TestFingerprintWorkers: the fingerprint does not depend on the number of
// workers computing it (several chunks of examples, a last one partly
// filled), and is the sequential mix of the examples' digests in order; a
// panic of the problem reaches the caller.
func TestFingerprintWorkers(t *testing.T) {
	p := oraclestest.Chain(oraclestest.ChainConfig{N: 201, MaxLen: 6, Labels: 3, Features: 5, Density: 1, Seed: 4})
	want := sequentialFingerprint(p)
	for _, workers := range []int{0, 1, 2, 3, 7, 500} {
		if got := oracles.FingerprintOf(p, workers); got != want {
			t.Fatalf("%d workers: %s, want %s", workers, got, want)
		}
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "example 150") {
			t.Fatalf("panic %v, want the problem's (example 150)", r)
		}
	}()
	oracles.FingerprintOf(panicky{p}, 2)
}

// panicky panics in the oracle of examples 150 and 170.
type panicky struct{ oracles.Problem }

func (p panicky) MaxOracle(i int, w []float64, dst []int32) ([]int32, float64) {
	if i == 150 || i == 170 {
		panic(fmt.Sprintf("example %d", i))
	}
	return p.Problem.MaxOracle(i, w, dst)
}
