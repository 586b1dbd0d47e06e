package oraclestest

import (
	"math"
	"math/rand/v2"

	"github.com/fwstruct/fwstruct/inference/matching"
	"github.com/fwstruct/fwstruct/oracles"
)

// MatchingConfig describes a random matching (word-alignment-like) problem.
type MatchingConfig struct {
	N        int     // examples
	MaxRows  int     // rows and columns are uniform in [1, MaxRows] and [1, MaxCols]
	MaxCols  int     //
	Features int     // dimension d, at least 2
	Density  float64 // probability that a feature of an edge is present (1: dense)
	Seed     uint64
}

// Matching returns a random matching problem: features of every edge with
// some zeros (feature 0 is near 1 on the diagonal, the last one is a
// constant bias), and sure edges that form the maximum-weight matching of
// a hidden linear score of the features plus noise, with now and then a
// second sure edge for a row (so that the sure edges are not always a
// matching) and a few possible edges. A linear model can learn it. It
// panics on invalid configurations (test helper).
func Matching(cfg MatchingConfig) *oracles.Matching {
	rng := rand.New(rand.NewPCG(cfg.Seed, 80))
	model := Weights(rng, cfg.Features, 1)
	model[0] = 3
	model[cfg.Features-1] = -1.5
	examples := make([]oracles.MatchingExample, cfg.N)
	var solver matching.Solver
	for i := range examples {
		n, m := 1+rng.IntN(cfg.MaxRows), 1+rng.IntN(cfg.MaxCols)
		x := oracles.MatchingExample{Rows: n, Cols: m, Start: make([]int32, 1, n*m+1)}
		scores := make([]float64, n*m)
		for e := 0; e < n*m; e++ {
			j, k := e/m, e%m
			diag := 1 - 4*math.Abs(float64(j)/float64(n)-float64(k)/float64(m))
			for f := cfg.Features - 1; f >= 0; f-- { // decreasing order: models must not rely on sorted input
				if f > 0 && f < cfg.Features-1 && rng.Float64() >= cfg.Density {
					continue
				}
				v := rng.NormFloat64()
				switch f {
				case 0:
					v = diag + 0.3*rng.NormFloat64()
				case cfg.Features - 1:
					v = 1
				}
				x.Index = append(x.Index, int32(f))
				x.Value = append(x.Value, float32(v))
				scores[e] += model[f] * v
			}
			scores[e] += 0.3 * rng.NormFloat64()
			x.Start = append(x.Start, int32(len(x.Index)))
		}
		y, _, err := solver.MaxWeight(n, m, scores, nil)
		if err != nil {
			panic(err)
		}
		for j, k := range y {
			if k < 0 {
				continue
			}
			x.Sure = append(x.Sure, [2]int32{int32(j), k})
			if int(k)+1 < m && rng.IntN(6) == 0 { // a second sure link
				x.Sure = append(x.Sure, [2]int32{int32(j), k + 1})
			} else if k > 0 && rng.IntN(4) == 0 {
				x.Possible = append(x.Possible, [2]int32{int32(j), k - 1})
			}
		}
		examples[i] = x
	}
	p, err := oracles.NewMatching(cfg.Features, examples, oracles.MatchingCosts{})
	if err != nil {
		panic(err)
	}
	return p
}
