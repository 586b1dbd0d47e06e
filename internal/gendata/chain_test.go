package gendata

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
)

// TestChainAdapter checks FromChain against oracles.Chain: same dimension,
// truth, loss and psi for random labelings, and the same oracle and
// prediction scores.
func TestChainAdapter(t *testing.T) {
	for _, cfg := range []oraclestest.ChainConfig{
		{N: 12, MaxLen: 5, Labels: 4, Features: 6, Density: 0.5, Seed: 1},
		{N: 8, MaxLen: 3, Labels: 3, Features: 0, Seed: 2},
		{N: 5, MaxLen: 1, Labels: 5, Features: 3, Density: 1, Seed: 3},
	} {
		c := oraclestest.Chain(cfg)
		m, err := FromChain(c)
		if err != nil {
			t.Fatal(err)
		}
		// Allowed to enumerate one labeling, NewExact accepts only graphs
		// without a cycle: every chain must be one.
		e, err := factorgraph.NewExact(m, 1)
		if err != nil {
			t.Fatal(err)
		}
		if e.Dim() != c.Dim() || e.Len() != c.Len() {
			t.Fatalf("dimension %d, %d examples; chain %d, %d", e.Dim(), e.Len(), c.Dim(), c.Len())
		}
		rng := rand.New(rand.NewPCG(cfg.Seed, 4))
		var p1, p2 oracles.SparseVec
		for i := 0; i < c.Len(); i++ {
			if !oracles.SameLabeling(e.Truth(i), c.Truth(i)) {
				t.Fatalf("example %d: truth %v, chain %v", i, e.Truth(i), c.Truth(i))
			}
			y := make([]int32, c.SeqLen(i))
			for r := 0; r < 5; r++ {
				for t := range y {
					y[t] = int32(rng.IntN(cfg.Labels))
				}
				if a, b := e.Loss(i, y), c.Loss(i, y); math.Abs(a-b) > 1e-15 {
					t.Fatalf("example %d: loss %v, chain %v", i, a, b)
				}
				e.Psi(i, y, &p1)
				c.Psi(i, y, &p2)
				d1, d2 := p1.Dense(c.Dim()), p2.Dense(c.Dim())
				for j := range d1 {
					if math.Abs(d1[j]-d2[j]) > 1e-12 {
						t.Fatalf("example %d: psi[%d] = %v, chain %v", i, j, d1[j], d2[j])
					}
				}
				w := oraclestest.Weights(rng, c.Dim(), 1)
				_, h1 := e.MaxOracle(i, w, nil)
				_, h2 := c.MaxOracle(i, w, nil)
				if math.Abs(h1-h2) > 1e-9 {
					t.Fatalf("example %d: oracle %v, chain %v", i, h1, h2)
				}
				s1 := c.Score(i, e.Predict(i, w, nil), w)
				s2 := c.Score(i, c.Predict(i, w, nil), w)
				if math.Abs(s1-s2) > 1e-9 {
					t.Fatalf("example %d: prediction scores %v, chain %v", i, s1, s2)
				}
			}
		}
	}
}
