package oracles_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fwstruct/fwstruct/internal/race"
	. "github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
)

func randomChain(t testing.TB, rng *rand.Rand, n, maxT, K, F int, dense bool) *Chain {
	t.Helper()
	density := 1.0 / 3
	if dense {
		density = 1
	}
	return oraclestest.Chain(oraclestest.ChainConfig{N: n, MaxLen: maxT, Labels: K, Features: F, Density: density, Seed: rng.Uint64()})
}

func randomWeights(rng *rand.Rand, d int, scale float64) []float64 {
	return oraclestest.Weights(rng, d, scale)
}

// referencePhi computes phi(x_i, y) densely, straight from the definition;
// a position of NoClass (the truth of a token of no class) and the
// transitions touching it contribute nothing.
func referencePhi(c *Chain, i int, y []int32) []float64 {
	phi := make([]float64, c.Dim())
	T := len(y)
	for t := 0; t < T; t++ {
		if y[t] == NoClass {
			continue
		}
		x := c.Features(i, t)
		for k, f := range x.Idx {
			phi[c.EmissionIndex(int(f), int(y[t]))] += x.Val[k]
		}
		phi[c.BiasIndex(0, int(y[t]))]++
		if t > 0 && y[t-1] != NoClass {
			phi[c.TransitionIndex(int(y[t-1]), int(y[t]))]++
		}
		if t == 0 {
			phi[c.BiasIndex(1, int(y[0]))]++
		}
		if t == T-1 {
			phi[c.BiasIndex(2, int(y[T-1]))]++
		}
	}
	return phi
}

func TestChainDimensionOCR(t *testing.T) {
	c, err := NewChain(26, 128, []Sequence{{Labels: []int32{0}, Features: []SparseVec{{}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Dim(); got != 4082 {
		t.Fatalf("OCR chain dimension = %d, want 4082 (Osokin et al. 2016, Table 1)", got)
	}
}

func TestChainPsiMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, dense := range []bool{true, false} {
		c := randomChain(t, rng, 20, 6, 4, 5, dense)
		var psi SparseVec
		for i := 0; i < c.Len(); i++ {
			truth := c.Truth(i)
			phiTruth := referencePhi(c, i, truth)
			for trial := 0; trial < 5; trial++ {
				y := make([]int32, len(truth))
				for p := range y {
					y[p] = int32(rng.IntN(4))
				}
				c.Psi(i, y, &psi)
				got := psi.Dense(c.Dim())
				phiY := referencePhi(c, i, y)
				for j := range got {
					if want := phiTruth[j] - phiY[j]; math.Abs(got[j]-want) > 1e-12 {
						t.Fatalf("dense=%v example %d coordinate %d: psi = %v, want %v", dense, i, j, got[j], want)
					}
				}
				seen := map[int32]bool{}
				for _, j := range psi.Idx {
					if seen[j] {
						t.Fatalf("psi has repeated index %d", j)
					}
					seen[j] = true
				}
			}
		}
	}
}

func TestChainGroundTruthCorner(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	c := randomChain(t, rng, 10, 7, 5, 6, false)
	var psi SparseVec
	for i := 0; i < c.Len(); i++ {
		c.Psi(i, c.Truth(i), &psi)
		if psi.Len() != 0 {
			t.Fatalf("psi_i(y_i) has %d non-zeros, want 0", psi.Len())
		}
		if l := c.Loss(i, c.Truth(i)); l != 0 {
			t.Fatalf("L_i(y_i) = %v, want 0", l)
		}
	}
}

// TestViterbiMatchesBruteForce checks loss-augmented Viterbi and plain
// Viterbi against exhaustive enumeration on random small chains.
func TestViterbiMatchesBruteForce(t *testing.T) {
	cases := []struct {
		name       string
		n, T, K, F int
		dense      bool
		scale      float64
	}{
		{"tiny dense", 30, 4, 3, 4, true, 1},
		{"binary labels", 30, 6, 2, 3, false, 0.5},
		{"length one", 20, 1, 5, 3, true, 1},
		{"small weights", 30, 5, 3, 4, false, 0.01},
		{"large weights", 30, 5, 4, 2, true, 10},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.T), uint64(tc.K)))
			c := randomChain(t, rng, tc.n, tc.T, tc.K, tc.F, tc.dense)
			ref := Exhaustive{c}
			var psi SparseVec
			for i := 0; i < c.Len(); i++ {
				w := randomWeights(rng, c.Dim(), tc.scale)
				y, h := c.MaxOracle(i, w, nil)
				_, hRef := ref.MaxOracle(i, w, nil)
				if math.Abs(h-hRef) > 1e-9 {
					t.Fatalf("example %d: Viterbi H = %v, brute force %v", i, h, hRef)
				}
				if hy := H(c, i, y, w, &psi); math.Abs(hy-h) > 1e-9 {
					t.Fatalf("example %d: returned labeling has H = %v, oracle claimed %v", i, hy, h)
				}
				if h < -1e-12 {
					t.Fatalf("example %d: H = %v < 0 (the truth has H = 0)", i, h)
				}
				p := c.Predict(i, w, nil)
				pRef := ref.Predict(i, w, nil)
				if s, sRef := c.Score(i, p, w), c.Score(i, pRef, w); math.Abs(s-sRef) > 1e-9 {
					t.Fatalf("example %d: Viterbi score %v, brute force %v", i, s, sRef)
				}
			}
		})
	}
}

// TestChainNoClass checks positions whose truth is NoClass (test tokens
// of a tag unseen in training, issue 35 item 6): an error of every
// labeling in the loss, left out of phi(x_i, y_i), and an oracle that
// still agrees with psi and brute force.
func TestChainNoClass(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const K, F = 3, 4
	base := randomChain(t, rng, 12, 5, K, F, false)
	seqs := make([]Sequence, base.Len())
	for i := range seqs {
		T := base.SeqLen(i)
		s := Sequence{Labels: append([]int32(nil), base.Truth(i)...), Features: make([]SparseVec, T)}
		for p := range s.Features {
			x := base.Features(i, p)
			s.Features[p] = x.Clone()
		}
		switch i % 3 { // none, the first position, every other one
		case 1:
			s.Labels[0] = NoClass
		case 2:
			for p := 0; p < T; p += 2 {
				s.Labels[p] = NoClass
			}
		}
		seqs[i] = s
	}
	c, err := NewChain(K, F, seqs)
	if err != nil {
		t.Fatal(err)
	}
	ref := Exhaustive{c}
	var psi SparseVec
	for i := range seqs {
		truth := c.Truth(i)
		T := len(truth)
		unseen := 0
		for _, l := range truth {
			if l == NoClass {
				unseen++
			}
		}
		// Every labeling has at least the unseen positions wrong.
		c.ForEachLabeling(i, func(y []int32) {
			mis := 0
			for p := range y {
				if y[p] != truth[p] {
					mis++
				}
			}
			if l := c.Loss(i, y); l != float64(mis)/float64(T) || mis < unseen {
				t.Fatalf("example %d: loss %v of %v, want %d/%d with at least the %d unseen positions", i, l, y, mis, T, unseen)
			}
		})
		phiTruth := referencePhi(c, i, truth)
		for trial := 0; trial < 4; trial++ {
			y := make([]int32, T)
			for p := range y {
				y[p] = int32(rng.IntN(K))
			}
			c.Psi(i, y, &psi)
			got, phiY := psi.Dense(c.Dim()), referencePhi(c, i, y)
			for j := range got {
				if want := phiTruth[j] - phiY[j]; math.Abs(got[j]-want) > 1e-12 {
					t.Fatalf("example %d coordinate %d: psi = %v, want %v", i, j, got[j], want)
				}
			}
			w := randomWeights(rng, c.Dim(), 1)
			yo, h := c.MaxOracle(i, w, nil)
			if _, hRef := ref.MaxOracle(i, w, nil); math.Abs(h-hRef) > 1e-9 {
				t.Fatalf("example %d: Viterbi H = %v, brute force %v", i, h, hRef)
			}
			if hy := H(c, i, yo, w, &psi); math.Abs(hy-h) > 1e-9 {
				t.Fatalf("example %d: returned labeling has H = %v, oracle claimed %v", i, hy, h)
			}
			var want float64
			for j, v := range phiY {
				want += v * w[j]
			}
			if s := c.Score(i, y, w); math.Abs(s-want) > 1e-9 {
				t.Fatalf("example %d: score %v, want %v", i, s, want)
			}
		}
		c.Psi(i, truth, &psi)
		if psi.Len() != 0 || c.Loss(i, truth) != 0 {
			t.Fatalf("example %d: psi of the truth has %d non-zeros, loss %v", i, psi.Len(), c.Loss(i, truth))
		}
	}
}

func TestChainScoreMatchesReferencePhi(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	c := randomChain(t, rng, 10, 6, 3, 4, true)
	w := randomWeights(rng, c.Dim(), 1)
	for i := 0; i < c.Len(); i++ {
		y := c.Predict(i, w, nil)
		phi := referencePhi(c, i, y)
		var want float64
		for j := range phi {
			want += phi[j] * w[j]
		}
		if got := c.Score(i, y, w); math.Abs(got-want) > 1e-9 {
			t.Fatalf("score %v, want %v", got, want)
		}
	}
}

func TestChainRejectsBadInput(t *testing.T) {
	one := []SparseVec{{Idx: []int32{0}, Val: []float64{1}}}
	cases := []struct {
		name string
		K, F int
		seqs []Sequence
	}{
		{"no labels", 0, 1, nil},
		{"empty sequence", 2, 1, []Sequence{{}}},
		{"length mismatch", 2, 1, []Sequence{{Labels: []int32{0, 1}, Features: one}}},
		{"label too large", 2, 1, []Sequence{{Labels: []int32{2}, Features: one}}},
		{"negative label", 2, 1, []Sequence{{Labels: []int32{NoClass - 1}, Features: one}}},
		{"feature out of range", 2, 1, []Sequence{{Labels: []int32{0}, Features: []SparseVec{{Idx: []int32{1}, Val: []float64{1}}}}}},
		{"repeated feature", 2, 2, []Sequence{{Labels: []int32{0}, Features: []SparseVec{{Idx: []int32{1, 1}, Val: []float64{1, 1}}}}}},
		{"NaN feature", 2, 1, []Sequence{{Labels: []int32{0}, Features: []SparseVec{{Idx: []int32{0}, Val: []float64{math.NaN()}}}}}},
		{"values missing", 2, 1, []Sequence{{Labels: []int32{0}, Features: []SparseVec{{Idx: []int32{0}}}}}},
	}
	for _, tc := range cases {
		if _, err := NewChain(tc.K, tc.F, tc.seqs); err == nil {
			t.Errorf("%s: NewChain accepted bad input", tc.name)
		}
	}
}

func TestChainOracleAllocationFree(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	c := randomChain(t, rng, 5, 9, 26, 128, false)
	w := randomWeights(rng, c.Dim(), 0.1)
	y := make([]int32, c.MaxLen())
	var psi SparseVec
	c.MaxOracle(0, w, y) // warm the pool
	c.Psi(0, y[:c.SeqLen(0)], &psi)
	allocs := testing.AllocsPerRun(100, func() {
		for i := 0; i < c.Len(); i++ {
			out, _ := c.MaxOracle(i, w, y)
			c.Psi(i, out, &psi)
			c.Predict(i, w, y)
		}
	})
	if allocs != 0 && !race.Enabled {
		t.Fatalf("oracle calls allocate %v times per run, want 0", allocs)
	}
}

// TestChainScoresAddUpToScore: the unary and transition tables of Scores
// give Score of every labeling of a small example.
func TestChainScoresAddUpToScore(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	c := randomChain(t, rng, 4, 4, 3, 5, false)
	w := make([]float64, c.Dim())
	for j := range w {
		w[j] = rng.NormFloat64()
	}
	for i := 0; i < c.Len(); i++ {
		u, trans := c.Scores(i, w, nil)
		K := c.NumLabels()
		c.ForEachLabeling(i, func(y []int32) {
			var s float64
			for t, k := range y {
				s += u[t*K+int(k)]
				if t > 0 {
					s += trans[int(y[t-1])*K+int(k)]
				}
			}
			if want := c.Score(i, y, w); math.Abs(s-want) > 1e-9 {
				t.Fatalf("example %d %v: tables give %v, Score %v", i, y, s, want)
			}
		})
	}
}
