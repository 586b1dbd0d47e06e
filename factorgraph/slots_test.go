package factorgraph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
)

// overlapModel builds a model whose variable 0 has two terms over the same
// coordinates (one-hot templates at offset 0 on two inputs) and variable 1
// a two-slot template that maps a state to no slot: node 0's columns
// overlap, node 1's and the factor's do not.
func overlapModel(t testing.TB) *Model {
	t.Helper()
	const F = 4
	two, err := NewTemplate(F, []int32{1, -1, 0})
	if err != nil {
		t.Fatal(err)
	}
	pair, err := NewTemplate(1, []int32{0, -1, -1, -1, 1, 0, 2, -1, 1})
	if err != nil {
		t.Fatal(err)
	}
	terms := [][]Term{
		{{T: OneHot(3, F), Input: 0, Offset: 0}, {T: OneHot(3, F), Input: 1, Offset: 0}},
		{{T: two, Input: 1, Offset: 3 * F}, {T: OneHot(3, 1), Input: Const, Offset: 5 * F}},
	}
	g, err := NewGraph([]int{3, 3}, terms, []Factor{{Scope: []int{0, 1}, Terms: []Term{{T: pair, Input: Const, Offset: 5*F + 3}}}})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var ex []Example
	for m := 0; m < 3; m++ {
		var x0, x1 oracles.SparseVec
		for f := 0; f < F; f++ {
			if rng.IntN(3) != 0 {
				x0.Append(int32(f), rng.NormFloat64())
			}
			x1.Append(int32(F-1-f), rng.NormFloat64())
		}
		ex = append(ex, Example{Graph: g, Inputs: []oracles.SparseVec{x0, x1}, Truth: []int32{int32(m % 3), int32((m + 1) % 3)}})
	}
	mod, err := NewModel(5*F+6, ex)
	if err != nil {
		t.Fatal(err)
	}
	return mod
}

// naiveScores returns <w, phi_alpha(x, s)> for every state, straight from
// the definition of Template (an independent reference for NodeScores).
func naiveScores(m *Model, i, a int, w []float64) []float64 {
	x := &m.ex[i]
	out := make([]float64, x.g.States(a))
	for s := range out {
		for _, t := range x.g.Terms(a) {
			sl := t.T.Slot[s]
			if sl < 0 {
				continue
			}
			idx, val := x.input(t)
			for k, f := range idx {
				out[s] += val[k] * w[t.Offset+int(f)*t.T.Slots+int(sl)]
			}
		}
	}
	return out
}

// TestSlotColumns checks the slot-column form of NodePsi against the
// accumulated vector: AddPsiSlots(PsiSlots(coef)) = NodePsi(coef) for
// distributions, Frank-Wolfe directions and arbitrary coefficients;
// PsiSlotsNormSq is its squared norm exactly when the node's terms are
// disjoint; NodeScores (with its one-slot fast path) equals the
// definition.
func TestSlotColumns(t *testing.T) {
	models := []struct {
		name    string
		m       *Model
		overlap func(a int) bool
	}{
		{"overlap", overlapModel(t), func(a int) bool { return a == 0 }},
	}
	for _, sh := range shapes {
		models = append(models, struct {
			name    string
			m       *Model
			overlap func(a int) bool
		}{sh.name, randomModel(t, randomConfig{N: 2, Cards: sh.cards, Scopes: sh.scopes, Features: 5, Seed: 11}), func(int) bool { return false }})
	}
	ml, _ := randomMultiLabel(t, 2, 5, 9, true, 4)
	models = append(models, struct {
		name    string
		m       *Model
		overlap func(a int) bool
	}{"multilabel", ml, func(int) bool { return false }})
	rng := rand.New(rand.NewPCG(8, 9))
	coefs := map[string]func(n int) []float64{
		"distribution": func(n int) []float64 {
			c := make([]float64, n)
			var sum float64
			for s := range c {
				c[s] = rng.Float64()
				sum += c[s]
			}
			for s := range c {
				c[s] /= sum
			}
			return c
		},
		"direction": func(n int) []float64 {
			c := make([]float64, n)
			for s := range c {
				c[s] = -1 / float64(n)
			}
			c[rng.IntN(n)]++
			return c
		},
		"arbitrary": func(n int) []float64 {
			c := make([]float64, n)
			for s := range c {
				c[s] = rng.NormFloat64()
			}
			return c
		},
	}
	for _, tc := range models {
		m := tc.m
		var acc oracles.Accumulator
		acc.Ensure(m.Dim())
		for i := 0; i < m.Len(); i++ {
			g := m.Graph(i)
			w := randomWeights(rng, m.Dim(), 1)
			for a := 0; a < g.NumNodes(); a++ {
				name := fmt.Sprintf("%s: example %d node %d", tc.name, i, a)
				if v := m.Prefetch(i, a); math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("%s: Prefetch read %v", name, v)
				}
				want := naiveScores(m, i, a, w)
				got := m.NodeScores(i, a, w, make([]float64, g.States(a)))
				for s := range want {
					if math.Abs(got[s]-want[s]) > 1e-12*(1+math.Abs(want[s])) {
						t.Fatalf("%s: NodeScores[%d] = %v, want %v", name, s, got[s], want[s])
					}
				}
				for kind, coef := range coefs {
					c := coef(g.States(a))
					m.NodePsi(i, a, c, &acc)
					var psi oracles.SparseVec
					acc.Flush(&psi)
					dense := psi.Dense(m.Dim())
					sl := m.PsiSlots(i, a, c, make([]float64, g.NodeSlots(a)))
					if len(sl) != g.NodeSlots(a) {
						t.Fatalf("%s: %d slot coefficients, want %d", name, len(sl), g.NodeSlots(a))
					}
					back := make([]float64, m.Dim())
					m.AddPsiSlots(i, a, sl, 1, back)
					for j := range dense {
						if math.Abs(back[j]-dense[j]) > 1e-12 {
							t.Fatalf("%s, %s: AddPsiSlots at %d is %v, NodePsi %v", name, kind, j, back[j], dense[j])
						}
					}
					sq, ok := m.PsiSlotsNormSq(i, a, sl)
					// The fused form gives the same coefficients and norm.
					sl2, sq2, ok2 := m.PsiSlotsNorm(i, a, c, make([]float64, g.NodeSlots(a)))
					if !slices.Equal(sl2, sl) || ok2 != ok || (ok && sq2 != sq) {
						t.Fatalf("%s, %s: PsiSlotsNorm = %v, %v, %v; PsiSlots and PsiSlotsNormSq %v, %v, %v", name, kind, sl2, sq2, ok2, sl, sq, ok)
					}
					if ok == tc.overlap(a) {
						t.Fatalf("%s: PsiSlotsNormSq ok = %v with overlapping columns %v", name, ok, tc.overlap(a))
					}
					if !ok {
						if !math.IsNaN(sq) {
							t.Fatalf("%s: PsiSlotsNormSq refused but returned %v", name, sq)
						}
						continue
					}
					if n2 := psi.NormSq(); math.Abs(sq-n2) > 1e-12*(1+n2) {
						t.Fatalf("%s, %s: PsiSlotsNormSq %v, |NodePsi|^2 %v", name, kind, sq, n2)
					}
				}
			}
		}
	}
}
