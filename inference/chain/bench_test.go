package chain

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkViterbi times Viterbi on chains of the shapes of the OCR words
// (K = 26 letters, about 9 positions) and of the CoNLL sentences (K = 22
// tags, about 24 positions), the inference inside every max oracle call of
// oracles.Chain.
func BenchmarkViterbi(b *testing.B) {
	for _, bc := range []struct{ T, K int }{{9, 26}, {24, 22}} {
		b.Run(fmt.Sprintf("T=%d,K=%d", bc.T, bc.K), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			unary := make([]float64, bc.T*bc.K)
			trans := make([]float64, bc.K*bc.K)
			for _, v := range [][]float64{unary, trans} {
				for j := range v {
					v[j] = rng.NormFloat64()
				}
			}
			msg := make([]float64, len(unary))
			y := make([]int32, bc.T)
			for b.Loop() {
				y, _ = Viterbi(unary, trans, bc.K, msg, y)
			}
		})
	}
}

// BenchmarkMarginals times forward-backward on the shapes of
// BenchmarkViterbi: the expectation oracle of every online-EG step
// (K^2 + O(T K) exponentials and three K x K products per position).
func BenchmarkMarginals(b *testing.B) {
	for _, bc := range []struct{ T, K int }{{9, 26}, {24, 22}} {
		b.Run(fmt.Sprintf("T=%d,K=%d", bc.T, bc.K), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			unary := make([]float64, bc.T*bc.K)
			trans := make([]float64, bc.K*bc.K)
			for _, v := range [][]float64{unary, trans} {
				for j := range v {
					v[j] = rng.NormFloat64()
				}
			}
			fwd, bwd, node := make([]float64, len(unary)), make([]float64, len(unary)), make([]float64, len(unary))
			edge, scr := make([]float64, bc.K*bc.K), make([]float64, bc.K*bc.K+2*bc.K)
			for b.Loop() {
				Marginals(unary, trans, bc.K, fwd, bwd, scr, node, edge)
			}
		})
	}
}
