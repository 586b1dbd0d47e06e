// Package gendata generates small random factor-graph models for the tests
// and benchmarks of the solvers and tools that run on them, writes chain
// problems as factor graphs (FromChain), builds the toy problem on which gap
// sampling pays (GapToy), and generates data files with the properties of
// real data sets (Emotions: unscaled MULAN data), so that every code path
// runs without real data.
package gendata

import (
	"fmt"
	"math/rand/v2"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/oracles"
)

// MultiLabel returns a multi-label model of Meshi et al. (2015, Sec. 6)
// with per-label biases: n examples of the given number of binary labels
// over dense standard-normal features, label i relevant when feature
// i mod features plus noise is positive, or, one time in three, copying
// the previous label (so that pairs matter).
func MultiLabel(n, labels, features int, seed uint64) (*factorgraph.Model, error) {
	if n < 0 || labels < 1 || features < 1 {
		return nil, fmt.Errorf("gendata: %d examples of %d labels over %d features", n, labels, features)
	}
	rng := rand.New(rand.NewPCG(seed, 23))
	x := make([]oracles.SparseVec, n)
	y := make([][]int32, n)
	for m := range x {
		x[m] = normals(rng, features, 0)
		y[m] = make([]int32, labels)
		for i := range y[m] {
			switch {
			case i > 0 && rng.IntN(3) == 0:
				y[m][i] = y[m][i-1]
			case x[m].Val[i%features]+0.5*rng.NormFloat64() > 0:
				y[m][i] = 1
			}
		}
	}
	return factorgraph.NewMultiLabel(factorgraph.MultiLabel{Labels: labels, Features: features, Bias: true}, x, y)
}

// Model returns a model of n examples over one graph with the given
// cardinalities and factor scopes. Every variable has a one-hot term on
// input 0 (features dense normal inputs; weights shared by the variables
// of the largest cardinality) and a bias of its own; every factor a
// one-hot term with weights of its own, on the constant for even factors
// and on input 1 (two features) for odd ones. Loss tables are random on
// the variables and on even factors, zero at the truth.
func Model(n int, cards []int, scopes [][]int, features int, seed uint64) (*factorgraph.Model, error) {
	rng := rand.New(rand.NewPCG(seed, 17))
	kmax := 0
	for _, k := range cards {
		kmax = max(kmax, k)
	}
	dim := features * kmax
	place := func(t *factorgraph.Template, input int) factorgraph.Term {
		term := factorgraph.Term{T: t, Input: input, Offset: dim}
		dim += t.Width()
		return term
	}
	terms := make([][]factorgraph.Term, len(cards))
	for i, k := range cards {
		if k == kmax && features > 0 {
			terms[i] = append(terms[i], factorgraph.Term{T: factorgraph.OneHot(k, features), Input: 0})
		}
		terms[i] = append(terms[i], place(factorgraph.OneHot(k, 1), factorgraph.Const))
	}
	factors := make([]factorgraph.Factor, len(scopes))
	for c, sc := range scopes {
		states := 1
		for _, v := range sc {
			if v < 0 || v >= len(cards) {
				return nil, fmt.Errorf("gendata: factor %d: variable %d of %d", c, v, len(cards))
			}
			states *= cards[v]
		}
		term := place(factorgraph.OneHot(states, 1), factorgraph.Const)
		if c%2 == 1 {
			term = place(factorgraph.OneHot(states, 2), 1)
		}
		factors[c] = factorgraph.Factor{Scope: sc, Terms: []factorgraph.Term{term}}
	}
	g, err := factorgraph.NewGraph(cards, terms, factors)
	if err != nil {
		return nil, err
	}
	examples := make([]factorgraph.Example, n)
	for m := range examples {
		truth := make([]int32, len(cards))
		for i, k := range cards {
			truth[i] = int32(rng.IntN(k))
		}
		loss := make([][]float64, g.NumNodes())
		for a := range loss {
			if a < g.NumVars() || (a-g.NumVars())%2 == 0 {
				loss[a] = randomLoss(rng, g.States(a), g.StateOf(a, truth))
			}
		}
		inputs := []oracles.SparseVec{normals(rng, features, 0), normals(rng, 2, 0)}
		examples[m] = factorgraph.Example{Graph: g, Inputs: inputs, Truth: truth, Loss: loss}
	}
	return factorgraph.NewModel(dim, examples)
}

// normals returns a dense vector of n standard normals plus shift.
func normals(rng *rand.Rand, n int, shift float64) oracles.SparseVec {
	var v oracles.SparseVec
	for f := 0; f < n; f++ {
		v.Append(int32(f), rng.NormFloat64()+shift)
	}
	return v
}

// randomLoss returns a loss table of uniform entries, zero at the truth.
func randomLoss(rng *rand.Rand, states, truth int) []float64 {
	t := make([]float64, states)
	for s := range t {
		if s != truth {
			t[s] = rng.Float64()
		}
	}
	return t
}
