package oracles_test

import (
	"math"
	"math/rand/v2"
	"testing"

	. "github.com/fwstruct/fwstruct/oracles"
)

func randomMulticlass(t testing.TB, rng *rand.Rand, n, K, F int) *Multiclass {
	t.Helper()
	x := make([]SparseVec, n)
	y := make([]int32, n)
	for i := range x {
		for f := 0; f < F; f++ {
			if rng.IntN(2) == 0 {
				x[i].Append(int32(f), rng.NormFloat64())
			}
		}
		y[i] = int32(rng.IntN(K))
	}
	m, err := NewMulticlass(K, F, x, y)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMulticlassMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	m := randomMulticlass(t, rng, 50, 5, 6)
	ref := Exhaustive{m}
	var psi SparseVec
	for i := 0; i < m.Len(); i++ {
		w := randomWeights(rng, m.Dim(), 1)
		y, h := m.MaxOracle(i, w, nil)
		_, hRef := ref.MaxOracle(i, w, nil)
		if math.Abs(h-hRef) > 1e-9 {
			t.Fatalf("example %d: H = %v, brute force %v", i, h, hRef)
		}
		if hy := H(m, i, y, w, &psi); math.Abs(hy-h) > 1e-9 {
			t.Fatalf("example %d: labeling has H = %v, claimed %v", i, hy, h)
		}
		p := m.Predict(i, w, nil)
		pRef := ref.Predict(i, w, nil)
		m.Psi(i, p, &psi)
		a := psi.Dot(w)
		m.Psi(i, pRef, &psi)
		if b := psi.Dot(w); math.Abs(a-b) > 1e-9 {
			t.Fatalf("example %d: predicted class scores differ from brute force", i)
		}
	}
}

func TestMulticlassTruthAndErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	m := randomMulticlass(t, rng, 10, 3, 4)
	var psi SparseVec
	for i := 0; i < m.Len(); i++ {
		m.Psi(i, m.Truth(i), &psi)
		if psi.Len() != 0 || m.Loss(i, m.Truth(i)) != 0 {
			t.Fatal("ground truth corner must have psi = 0 and loss 0")
		}
	}
	bad := []struct {
		name string
		x    []SparseVec
		y    []int32
	}{
		{"label out of range", []SparseVec{{}}, []int32{3}},
		{"length mismatch", []SparseVec{{}}, nil},
		{"index out of range", []SparseVec{{Idx: []int32{4}, Val: []float64{1}}}, []int32{0}},
		{"infinite value", []SparseVec{{Idx: []int32{0}, Val: []float64{math.Inf(1)}}}, []int32{0}},
	}
	for _, tc := range bad {
		if _, err := NewMulticlass(3, 4, tc.x, tc.y); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
}

func TestTabularMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	var ex []TabularExample
	for i := 0; i < 20; i++ {
		K := 2 + rng.IntN(4)
		e := TabularExample{Truth: int32(rng.IntN(K))}
		for y := 0; y < K; y++ {
			var phi SparseVec
			for j := 0; j < 5; j++ {
				if rng.IntN(2) == 0 {
					phi.Append(int32(j), rng.NormFloat64())
				}
			}
			e.Phi = append(e.Phi, phi)
			if int32(y) == e.Truth {
				e.Loss = append(e.Loss, 0)
			} else {
				e.Loss = append(e.Loss, rng.Float64())
			}
		}
		ex = append(ex, e)
	}
	p, err := NewTabular(5, ex)
	if err != nil {
		t.Fatal(err)
	}
	ref := Exhaustive{p}
	var psi SparseVec
	for i := 0; i < p.Len(); i++ {
		w := randomWeights(rng, 5, 1)
		y, h := p.MaxOracle(i, w, nil)
		_, hRef := ref.MaxOracle(i, w, nil)
		if math.Abs(h-hRef) > 1e-9 || math.Abs(H(p, i, y, w, &psi)-h) > 1e-9 {
			t.Fatalf("example %d: H mismatch %v vs %v", i, h, hRef)
		}
		// psi against the definition phi(truth) - phi(y)
		for y := 0; y < p.NumLabels(i); y++ {
			p.Psi(i, []int32{int32(y)}, &psi)
			got := psi.Dense(5)
			a := ex[i].Phi[ex[i].Truth].Dense(5)
			b := ex[i].Phi[y].Dense(5)
			for j := range got {
				if math.Abs(got[j]-(a[j]-b[j])) > 1e-12 {
					t.Fatalf("psi mismatch at %d", j)
				}
			}
		}
	}
}
