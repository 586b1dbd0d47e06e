package oracles_test

import (
	"math"
	"math/rand/v2"
	"slices"
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
		{"negative label", []SparseVec{{}}, []int32{NoClass - 1}},
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

// An example of NoClass (a test label the training set does not have) is
// misclassified by every prediction; its psi is the predicted class's -x.
func TestMulticlassNoClass(t *testing.T) {
	x := []SparseVec{{Idx: []int32{0, 1}, Val: []float64{1, 2}}, {Idx: []int32{1}, Val: []float64{3}}}
	m, err := NewMulticlass(3, 2, x, []int32{NoClass, 1})
	if err != nil {
		t.Fatal(err)
	}
	w := []float64{0, 0, 5, 1, 2, 0} // example 0 scores 2, 4, 5; example 1 0, 6, 0
	if y := m.Predict(0, w, nil); y[0] != 2 || m.Loss(0, y) != 1 {
		t.Errorf("prediction %v with loss %v, want class 2 with loss 1", y, m.Loss(0, y))
	}
	for k := int32(0); k < 3; k++ {
		if m.Loss(0, []int32{k}) != 1 {
			t.Errorf("class %d: loss %v on an example of no class", k, m.Loss(0, []int32{k}))
		}
	}
	var psi SparseVec
	m.Psi(0, []int32{2}, &psi)
	if want := (SparseVec{Idx: []int32{2, 5}, Val: []float64{-1, -2}}); !slices.Equal(psi.Idx, want.Idx) || !slices.Equal(psi.Val, want.Val) {
		t.Errorf("psi %v, want %v", psi, want)
	}
	if got := MeanLoss(m, w); got != 0.5 {
		t.Errorf("mean loss %v, want 0.5 (the example of no class wrong, the other right)", got)
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

// TestMulticlassWeightIndex checks the documented layout against Psi, the
// decoder and a per-class reference score.
func TestMulticlassWeightIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const n, K, F = 20, 4, 5
	m := randomMulticlass(t, rng, n, K, F)
	// A bijection onto [0, Dim).
	seen := make([]bool, m.Dim())
	for f := 0; f < F; f++ {
		for k := 0; k < K; k++ {
			j := m.WeightIndex(f, k)
			if j < 0 || j >= m.Dim() || seen[j] {
				t.Fatalf("WeightIndex(%d, %d) = %d repeated or out of [0, %d)", f, k, j, m.Dim())
			}
			seen[j] = true
		}
	}
	var psi SparseVec
	for i := 0; i < n; i++ {
		x, truth := m.Input(i), int(m.Truth(i)[0])
		w := randomWeights(rng, m.Dim(), 1)
		// Reference: the class weight vectors w_k read through WeightIndex.
		score := make([]float64, K)
		for k := range score {
			for j, f := range x.Idx {
				score[k] += x.Val[j] * w[m.WeightIndex(int(f), k)]
			}
		}
		for y := 0; y < K; y++ {
			m.Psi(i, []int32{int32(y)}, &psi)
			if got, want := psi.Dot(w), score[truth]-score[y]; math.Abs(got-want) > 1e-9 {
				t.Fatalf("example %d class %d: <psi, w> = %v, per-class scores give %v", i, y, got, want)
			}
		}
		best := 0
		for k := range score {
			if score[k] > score[best] {
				best = k
			}
		}
		if p := m.Predict(i, w, nil); score[p[0]] != score[best] {
			t.Fatalf("example %d: Predict = %d (score %v), best class %d (score %v)", i, p[0], score[p[0]], best, score[best])
		}
	}
}

// TestMulticlassLambdaIsLiblinearC checks the documented identity: at any w,
// fwstruct's primal lambda/2 |w|^2 + 1/n sum_i H_i(w) is lambda times
// liblinear's Crammer-Singer objective 1/2 |w|^2 + C sum_i xi_i with
// C = 1/(lambda n), the slacks computed from per-class scores.
func TestMulticlassLambdaIsLiblinearC(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	const n, K, F = 30, 5, 4
	m := randomMulticlass(t, rng, n, K, F)
	for _, lambda := range []float64{1, 0.01, 1e-4} {
		w := randomWeights(rng, m.Dim(), 1)
		var normSq, hinge float64
		for _, v := range w {
			normSq += v * v
		}
		for i := 0; i < n; i++ {
			_, h := m.MaxOracle(i, w, nil)
			hinge += h
		}
		primal := lambda/2*normSq + hinge/n
		C := 1 / (lambda * n)
		var slacks float64
		for i := 0; i < n; i++ {
			x, yi := m.Input(i), int(m.Truth(i)[0])
			score := func(k int) (s float64) {
				for j, f := range x.Idx {
					s += x.Val[j] * w[m.WeightIndex(int(f), k)]
				}
				return s
			}
			xi := 0.0 // the constraint of k = y_i
			for k := 0; k < K; k++ {
				if k != yi {
					xi = math.Max(xi, 1+score(k)-score(yi))
				}
			}
			slacks += xi
		}
		liblinear := normSq/2 + C*slacks
		if math.Abs(primal-lambda*liblinear) > 1e-9*math.Abs(primal) {
			t.Errorf("lambda %v: primal %v, lambda * liblinear objective %v", lambda, primal, lambda*liblinear)
		}
	}
}
