package nodes

import (
	"math/rand/v2"
	"testing"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/internal/gendata"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
)

// fullyConnected returns the scopes of every pair of n variables.
func fullyConnected(n int) [][]int {
	var s [][]int
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			s = append(s, []int{i, j})
		}
	}
	return s
}

// shapes are graphs with cycles, factors of three variables, forests and
// isolated variables.
var shapes = []struct {
	name   string
	cards  []int
	scopes [][]int
}{
	{"triangle", []int{2, 2, 2}, [][]int{{0, 1}, {1, 2}, {0, 2}}},
	{"loopy4-mixed", []int{2, 3, 2, 3}, [][]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 2}}},
	{"triple", []int{2, 3, 2, 2}, [][]int{{0, 1, 2}, {2, 3}, {1, 3}}},
	{"tree5", []int{3, 2, 3, 2, 2}, [][]int{{0, 1}, {1, 2}, {1, 3, 4}, {4}}},
	{"chain4", []int{3, 3, 3, 3}, [][]int{{0, 1}, {1, 2}, {2, 3}}},
	{"isolated", []int{2, 3, 2}, [][]int{{0, 1}}},
	{"full5-binary", []int{2, 2, 2, 2, 2}, fullyConnected(5)},
}

// shapeModel returns a generated model over the graph of a shape.
func shapeModel(t testing.TB, n, sh, features int, seed uint64) *factorgraph.Model {
	t.Helper()
	m, err := gendata.Model(n, shapes[sh].cards, shapes[sh].scopes, features, seed)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// overlapModel builds a model whose variable 0 has two terms over the same
// coordinates (one-hot templates at offset 0 on two inputs) and variable 1
// a two-slot template that maps a state to no slot: node 0's columns
// overlap, node 1's and the factor's do not.
func overlapModel(t testing.TB) *factorgraph.Model {
	t.Helper()
	const F = 4
	two := &factorgraph.Template{InputDim: F, Slots: 2, Slot: []int32{1, -1, 0}}
	pair := &factorgraph.Template{InputDim: 1, Slots: 3, Slot: []int32{0, -1, -1, -1, 1, 0, 2, -1, 1}}
	oneHot := factorgraph.OneHot(3, F)
	terms := [][]factorgraph.Term{
		{{T: oneHot, Input: 0, Offset: 0}, {T: oneHot, Input: 1, Offset: 0}},
		{{T: two, Input: 1, Offset: 3 * F}, {T: factorgraph.OneHot(3, 1), Input: factorgraph.Const, Offset: 5 * F}},
	}
	factors := []factorgraph.Factor{{Scope: []int{0, 1}, Terms: []factorgraph.Term{{T: pair, Input: factorgraph.Const, Offset: 5*F + 3}}}}
	g, err := factorgraph.NewGraph([]int{3, 3}, terms, factors)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var ex []factorgraph.Example
	for m := 0; m < 3; m++ {
		var x0, x1 oracles.SparseVec
		for f := 0; f < F; f++ {
			if rng.IntN(3) != 0 {
				x0.Append(int32(f), rng.NormFloat64())
			}
			x1.Append(int32(F-1-f), rng.NormFloat64())
		}
		ex = append(ex, factorgraph.Example{Graph: g, Inputs: []oracles.SparseVec{x0, x1}, Truth: []int32{int32(m % 3), int32((m + 1) % 3)}})
	}
	mod, err := factorgraph.NewModel(5*F+6, ex)
	if err != nil {
		t.Fatal(err)
	}
	return mod
}

// randomWeights returns d independent N(0, scale^2) weights.
func randomWeights(rng *rand.Rand, d int, scale float64) []float64 {
	return oraclestest.Weights(rng, d, scale)
}

// exactView returns the exact view of m, whose labelings, Psi and Loss
// are the references of the node methods.
func exactView(t testing.TB, m *factorgraph.Model) *factorgraph.Exact {
	t.Helper()
	e, err := factorgraph.NewExact(m, 0)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// hOf returns H_i(y; w) = Loss_i(y) - <w, Psi_i(y)> on a view.
func hOf(p oracles.Problem, i int, y []int32, w []float64) float64 {
	var psi oracles.SparseVec
	p.Psi(i, y, &psi)
	return p.Loss(i, y) - psi.Dot(w)
}

// reparamBound returns sum_alpha max_y Reparam(i, alpha)(y), the bracket
// of example i in Meshi's primal g (eq. 2): the test reference of the
// bound the soft solver's evaluation computes.
func (k *Model) reparamBound(i int, w, delta []float64) float64 {
	g := k.m.Graph(i)
	var sum float64
	for a := 0; a < g.NumNodes(); a++ {
		r := k.Reparam(i, a, w, delta, make([]float64, g.States(a)))
		top := r[0]
		for _, v := range r[1:] {
			top = max(top, v)
		}
		sum += top
	}
	return sum
}
