package nodes

import (
	"math/rand/v2"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/internal/gendata"
	"github.com/fwstruct/fwstruct/internal/realdata"
	"github.com/fwstruct/fwstruct/oracles"
)

// benchNodeStep times the model side of one factor-level step of Meshi's
// Alg. 1 on a unary node and on a pairwise factor of successive examples:
// the node scores Theta (lines 5, 10, without the delta terms) and the
// sparse direction NodePsi of a step from the truth's indicator to the
// state of largest score.
func benchNodeStep(b *testing.B, m *factorgraph.Model) {
	rng := rand.New(rand.NewPCG(1, 1))
	w := make([]float64, m.Dim())
	for j := range w {
		w[j] = rng.NormFloat64() * 0.3 // the scale of a trained model's weights
	}
	k := New(m)
	g := m.Graph(0)
	for _, bc := range []struct {
		name string
		node int
	}{{"unary", 0}, {"pair", g.NumVars()}} {
		b.Run(bc.name, func(b *testing.B) {
			theta := make([]float64, g.States(bc.node))
			coef := make([]float64, g.States(bc.node))
			var acc oracles.Accumulator
			acc.Ensure(m.Dim())
			var dir oracles.SparseVec
			i := 0
			for b.Loop() {
				th := m.Theta(i, bc.node, w, theta)
				s := 0
				for j := range th {
					if th[j] > th[s] {
						s = j
					}
				}
				clear(coef)
				coef[s]++
				coef[m.TrueState(i, bc.node)]--
				k.NodePsi(i, bc.node, coef, &acc)
				acc.Flush(&dir)
				i = (i + 1) % m.Len()
			}
		})
	}
}

// BenchmarkYeastNodeStep is benchNodeStep on the Yeast training set (103
// features, 14 labels and their 91 pairs).
func BenchmarkYeastNodeStep(b *testing.B) {
	d, err := datasets.LoadMULAN(realdata.File(b, "yeast/yeast-train.arff"), datasets.Options{})
	if err != nil {
		b.Fatal(err)
	}
	benchNodeStep(b, d.Train.Model())
}

// BenchmarkNodeStep is benchNodeStep on a generated multi-label model of
// Yeast's shape, without data.
func BenchmarkNodeStep(b *testing.B) {
	m, err := gendata.MultiLabel(300, 14, 103, 1)
	if err != nil {
		b.Fatal(err)
	}
	benchNodeStep(b, m)
}
