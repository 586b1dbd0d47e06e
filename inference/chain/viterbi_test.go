package chain

import (
	"math"
	"math/rand/v2"
	"testing"
)

// bruteChain enumerates every labeling of the chain and returns the best
// score and the first labeling (in lexicographic order, position 0 most
// significant) that attains it.
func bruteChain(unary, trans []float64, K int) ([]int32, float64) {
	T := len(unary) / K
	y := make([]int32, T)
	best, arg := math.Inf(-1), []int32(nil)
	for {
		if s := chainScore(unary, trans, K, y); s > best {
			best, arg = s, append([]int32(nil), y...)
		}
		t := T - 1
		for ; t >= 0; t-- {
			y[t]++
			if int(y[t]) < K {
				break
			}
			y[t] = 0
		}
		if t < 0 {
			return arg, best
		}
	}
}

// chainScore is the objective of Viterbi at y.
func chainScore(unary, trans []float64, K int, y []int32) float64 {
	var s float64
	for t, k := range y {
		s += unary[t*K+int(k)]
		if t > 0 {
			s += trans[int(y[t-1])*K+int(k)]
		}
	}
	return s
}

// TestViterbiMatchesBruteForce checks the maximum and the labeling against
// exhaustive enumeration on random chains, with continuous scores (a
// unique maximizer) and with scores on a coarse grid (many ties: the
// labeling must still attain the maximum exactly).
func TestViterbiMatchesBruteForce(t *testing.T) {
	cases := []struct {
		name  string
		T, K  int
		round bool
	}{
		{"one position", 1, 5, false},
		{"binary", 7, 2, false},
		{"three states", 5, 3, false},
		{"odd K for the SIMD tail", 4, 5, false},
		{"ties", 6, 3, true},
		{"many states", 3, 9, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.T), uint64(tc.K)))
			msg := make([]float64, tc.T*tc.K)
			var y []int32
			for trial := 0; trial < 50; trial++ {
				unary := make([]float64, tc.T*tc.K)
				trans := make([]float64, tc.K*tc.K)
				for _, v := range [][]float64{unary, trans} {
					for j := range v {
						v[j] = rng.NormFloat64()
						if tc.round {
							v[j] = math.Round(v[j])
						}
					}
				}
				var best float64
				y, best = Viterbi(unary, trans, tc.K, msg, y)
				want, wantBest := bruteChain(unary, trans, tc.K)
				if len(y) != tc.T {
					t.Fatalf("trial %d: %d labels for %d positions", trial, len(y), tc.T)
				}
				if math.Abs(best-wantBest) > 1e-9 {
					t.Fatalf("trial %d: maximum %v, brute force %v", trial, best, wantBest)
				}
				if s := chainScore(unary, trans, tc.K, y); math.Abs(s-best) > 1e-12*(1+math.Abs(best)) {
					t.Fatalf("trial %d: labeling %v scores %v, Viterbi returned %v", trial, y, s, best)
				}
				if !tc.round {
					for p := range y {
						if y[p] != want[p] {
							t.Fatalf("trial %d: labeling %v, brute force %v", trial, y, want)
						}
					}
				}
			}
		})
	}
}

// TestViterbiTies checks the documented tie-breaking on all-zero tables:
// the lowest state everywhere.
func TestViterbiTies(t *testing.T) {
	const T, K = 4, 3
	y, best := Viterbi(make([]float64, T*K), make([]float64, K*K), K, make([]float64, T*K), nil)
	if best != 0 {
		t.Fatalf("maximum %v, want 0", best)
	}
	for p, k := range y {
		if k != 0 {
			t.Fatalf("position %d in state %d, want 0", p, k)
		}
	}
}

// TestViterbiAllocationFree checks that Viterbi allocates nothing when
// dst has room.
func TestViterbiAllocationFree(t *testing.T) {
	const T, K = 20, 26
	rng := rand.New(rand.NewPCG(1, 1))
	unary := make([]float64, T*K)
	trans := make([]float64, K*K)
	for j := range unary {
		unary[j] = rng.NormFloat64()
	}
	msg := make([]float64, T*K)
	y := make([]int32, T)
	if n := testing.AllocsPerRun(100, func() { y, _ = Viterbi(unary, trans, K, msg, y) }); n != 0 {
		t.Fatalf("%v allocations per call", n)
	}
}
