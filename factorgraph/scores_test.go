package factorgraph

import (
	"fmt"
	"math"
	"math/rand/v2"
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
	two, err := newTemplate(F, []int32{1, -1, 0})
	if err != nil {
		t.Fatal(err)
	}
	pair, err := newTemplate(1, []int32{0, -1, -1, -1, 1, 0, 2, -1, 1})
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

// TestNodeScores checks NodeScores (with its fast paths for one-slot
// templates and the constant input) against the definition of Template,
// on models with overlapping terms, every graph shape and the multi-label
// layout, and that its scores at the states of a labeling sum to the
// score of the labeling (<w, phi(x, y)> = <w, phi(x, y^i)> - <w,
// psi_i(y)>); and that Theta vanishes at the truth and sums to H_i(y; w).
func TestNodeScores(t *testing.T) {
	models := []struct {
		name string
		m    *Model
	}{{"overlap", overlapModel(t)}}
	for _, sh := range shapes {
		models = append(models, struct {
			name string
			m    *Model
		}{sh.name, randomModel(t, randomConfig{N: 2, Cards: sh.cards, Scopes: sh.scopes, Features: 5, Seed: 11})})
	}
	ml, _ := randomMultiLabel(t, 2, 5, 9, true, 4)
	models = append(models, struct {
		name string
		m    *Model
	}{"multilabel", ml})
	rng := rand.New(rand.NewPCG(8, 9))
	for _, tc := range models {
		m := tc.m
		e := &Exact{assignments{m}}
		for i := 0; i < m.Len(); i++ {
			g := m.Graph(i)
			w := randomWeights(rng, m.Dim(), 1)
			y := make([]int32, g.NumVars())
			for v := range y {
				y[v] = int32(rng.IntN(g.Card(v)))
			}
			var atY, atTruth, theta float64
			for a := 0; a < g.NumNodes(); a++ {
				name := fmt.Sprintf("%s: example %d node %d", tc.name, i, a)
				want := naiveScores(m, i, a, w)
				got := m.NodeScores(i, a, w, make([]float64, g.States(a)+2))
				if len(got) != g.States(a) {
					t.Fatalf("%s: %d scores for %d states", name, len(got), g.States(a))
				}
				for s := range want {
					if math.Abs(got[s]-want[s]) > 1e-12*(1+math.Abs(want[s])) {
						t.Fatalf("%s: NodeScores[%d] = %v, want %v", name, s, got[s], want[s])
					}
				}
				atY += got[g.StateOf(a, y)]
				atTruth += got[m.TrueState(i, a)]
				th := m.Theta(i, a, w, make([]float64, g.States(a)))
				if th[m.TrueState(i, a)] != 0 {
					t.Fatalf("%s: Theta at the truth is %v", name, th[m.TrueState(i, a)])
				}
				theta += th[g.StateOf(a, y)]
			}
			if h := e.Loss(i, y) - dotPsi(e, i, y, w); math.Abs(theta-h) > 1e-9*(1+math.Abs(h)) {
				t.Fatalf("%s: example %d: Theta sums to %v at %v, H is %v", tc.name, i, theta, y, h)
			}
			if want := atTruth - dotPsi(e, i, y, w); math.Abs(atY-want) > 1e-9*(1+math.Abs(want)) {
				t.Fatalf("%s: example %d: node scores sum to %v at %v, the labeling scores %v", tc.name, i, atY, y, want)
			}
		}
	}
}
