// Package oraclestest provides small random structured problems for tests
// and benchmarks of fwstruct: they are tiny enough for the exhaustive oracle
// and cheap enough to solve to high precision.
package oraclestest

import (
	"math/rand/v2"

	"github.com/fwstruct/fwstruct/oracles"
)

// ChainConfig describes a random chain problem.
type ChainConfig struct {
	N        int     // sequences
	MaxLen   int     // lengths are uniform in [1, MaxLen]
	Labels   int     // K
	Features int     // F
	Density  float64 // probability that a feature is present (1: dense)
	Seed     uint64
}

// Chain returns a random chain problem. The features of each position are
// listed in decreasing index order so that models cannot rely on sorted
// input. It panics on invalid configurations (test helper).
func Chain(cfg ChainConfig) *oracles.Chain {
	rng := rand.New(rand.NewPCG(cfg.Seed, 77))
	seqs := make([]oracles.Sequence, cfg.N)
	for i := range seqs {
		T := 1 + rng.IntN(cfg.MaxLen)
		s := oracles.Sequence{Labels: make([]int32, T), Features: make([]oracles.SparseVec, T)}
		for p := 0; p < T; p++ {
			s.Labels[p] = int32(rng.IntN(cfg.Labels))
			for f := cfg.Features - 1; f >= 0; f-- {
				if rng.Float64() < cfg.Density {
					s.Features[p].Append(int32(f), rng.NormFloat64())
				}
			}
		}
		seqs[i] = s
	}
	c, err := oracles.NewChain(cfg.Labels, cfg.Features, seqs)
	if err != nil {
		panic(err)
	}
	return c
}

// Multiclass returns a random multiclass problem with n examples, K classes
// and F features where the label depends on the features through a random
// linear model plus noise, so that learning makes progress.
func Multiclass(n, K, F int, seed uint64) *oracles.Multiclass {
	rng := rand.New(rand.NewPCG(seed, 78))
	model := Weights(rng, K*F, 1)
	x := make([]oracles.SparseVec, n)
	y := make([]int32, n)
	for i := range x {
		for f := 0; f < F; f++ {
			x[i].Append(int32(f), rng.NormFloat64())
		}
		best, arg := -1e300, 0
		for k := 0; k < K; k++ {
			s := rng.NormFloat64() * 0.5
			for f := 0; f < F; f++ {
				s += model[f*K+k] * x[i].Val[f]
			}
			if s > best {
				best, arg = s, k
			}
		}
		y[i] = int32(arg)
	}
	m, err := oracles.NewMulticlass(K, F, x, y)
	if err != nil {
		panic(err)
	}
	return m
}

// Weights returns a vector of d independent N(0, scale^2) entries.
func Weights(rng *rand.Rand, d int, scale float64) []float64 {
	w := make([]float64, d)
	for j := range w {
		w[j] = scale * rng.NormFloat64()
	}
	return w
}

// SparseDot returns <a, b> for two sparse vectors with distinct indices,
// the reference for the inner products (Gram matrices) a solver keeps.
// scratch must be a zeroed dense vector covering every index of a; it is
// left zeroed on return.
func SparseDot(a, b *oracles.SparseVec, scratch []float64) float64 {
	a.AddTo(scratch, 1)
	sum := b.Dot(scratch)
	for _, i := range a.Idx {
		scratch[i] = 0
	}
	return sum
}

// Primal returns the SSVM primal objective
// lambda/2 |w|^2 + 1/n sum_i max_y H_i(y; w) of weights w, computed with
// the problem's own max oracle, independently of any solver's dual
// bookkeeping: the reference tests compare certificates with.
func Primal(p oracles.Problem, lambda float64, w []float64) float64 {
	var sq, sum float64
	for _, v := range w {
		sq += v * v
	}
	var y []int32
	for i := 0; i < p.Len(); i++ {
		var h float64
		y, h = p.MaxOracle(i, w, y)
		sum += h
	}
	return lambda/2*sq + sum/float64(p.Len())
}
