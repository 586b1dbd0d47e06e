package factorgraph

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
)

// randomConfig describes a random model for tests.
type randomConfig struct {
	N        int   // examples
	Cards    []int // variable cardinalities
	Scopes   [][]int
	Features int // input dimension of the unary terms
	Seed     uint64
}

// randomModel builds a model over one graph: every variable has a one-hot
// unary term on input 0 (shared weights) and a bias term with its own
// weights; every factor has a term whose template maps states at random to
// two slots or none, with its own weights, on input 1 or the constant.
// Losses are random non-negative tables on the variables and, for half of
// the factors, on the factors too.
func randomModel(t testing.TB, cfg randomConfig) *Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(cfg.Seed, 99))
	kmax := 0
	for _, k := range cfg.Cards {
		kmax = max(kmax, k)
	}
	F := cfg.Features
	dim := F * kmax
	shared := OneHot(kmax, F)
	terms := make([][]Term, len(cfg.Cards))
	for i, k := range cfg.Cards {
		if k == kmax {
			terms[i] = append(terms[i], Term{T: shared, Input: 0, Offset: 0})
		}
		terms[i] = append(terms[i], Term{T: OneHot(k, 1), Input: Const, Offset: dim})
		dim += k
	}
	factors := make([]Factor, len(cfg.Scopes))
	for c, sc := range cfg.Scopes {
		states := 1
		for _, v := range sc {
			states *= cfg.Cards[v]
		}
		slot := make([]int32, states)
		for s := range slot {
			slot[s] = int32(rng.IntN(3)) - 1
		}
		slot[0] = 1 // at least one slot used, and two slots
		tmpl, err := newTemplate(2, slot)
		input := 1
		if c%2 == 1 {
			tmpl, err = newTemplate(1, slot)
			input = Const
		}
		if err != nil {
			t.Fatal(err)
		}
		factors[c] = Factor{Scope: sc, Terms: []Term{{T: tmpl, Input: input, Offset: dim}}}
		dim += tmpl.Width()
	}
	g, err := NewGraph(cfg.Cards, terms, factors)
	if err != nil {
		t.Fatal(err)
	}
	examples := make([]Example, cfg.N)
	for m := range examples {
		var x, pairIn oracles.SparseVec
		for f := F - 1; f >= 0; f-- {
			if rng.IntN(4) != 0 {
				x.Append(int32(f), rng.NormFloat64())
			}
		}
		pairIn.Append(1, rng.NormFloat64())
		pairIn.Append(0, rng.NormFloat64())
		truth := make([]int32, len(cfg.Cards))
		for i, k := range cfg.Cards {
			truth[i] = int32(rng.IntN(k))
		}
		loss := make([][]float64, g.NumNodes())
		for a := range loss {
			if a >= g.NumVars() && a%2 == 0 {
				continue
			}
			tab := make([]float64, g.States(a))
			for s := range tab {
				tab[s] = rng.Float64()
			}
			tab[g.StateOf(a, truth)] = 0
			loss[a] = tab
		}
		examples[m] = Example{Graph: g, Inputs: []oracles.SparseVec{x, pairIn}, Truth: truth, Loss: loss}
	}
	mod, err := NewModel(dim, examples)
	if err != nil {
		t.Fatal(err)
	}
	return mod
}

// scopes of a few graph shapes used across tests.
var (
	triangle   = [][]int{{0, 1}, {1, 2}, {0, 2}}
	loopy4     = [][]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 2}}
	withTriple = [][]int{{0, 1, 2}, {2, 3}, {1, 3}}
	tree5      = [][]int{{0, 1}, {1, 2}, {1, 3, 4}, {4}}
	chain4     = [][]int{{0, 1}, {1, 2}, {2, 3}}
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

// randomWeights returns d independent N(0, scale^2) weights.
func randomWeights(rng *rand.Rand, d int, scale float64) []float64 {
	return oraclestest.Weights(rng, d, scale)
}

// randomMultiLabel returns a multi-label model with n examples, L labels and
// F dense features, labels drawn independently.
func randomMultiLabel(t testing.TB, n, L, F int, bias bool, seed uint64) (*Model, MultiLabel) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	x := make([]oracles.SparseVec, n)
	y := make([][]int32, n)
	for m := range x {
		for f := 0; f < F; f++ {
			x[m].Append(int32(f), rng.NormFloat64()*0.1)
		}
		y[m] = make([]int32, L)
		for i := range y[m] {
			if rng.IntN(3) == 0 {
				y[m][i] = 1
			}
		}
	}
	l := MultiLabel{Labels: L, Features: F, Bias: bias}
	mod, err := NewMultiLabel(l, x, y)
	if err != nil {
		t.Fatal(err)
	}
	return mod, l
}

// bruteMax returns max over all assignments of the (loss-augmented when
// aug) score, computed from Loss and Psi only, minus the truth's score.
func bruteMax(m *Model, i int, w []float64, aug bool) float64 {
	v := assignments{m}
	best := -1e300
	var psi oracles.SparseVec
	v.ForEachLabeling(i, func(y []int32) {
		v.Psi(i, y, &psi)
		h := -psi.Dot(w)
		if aug {
			h += v.Loss(i, y)
		}
		best = max(best, h)
	})
	return best
}

// newTemplate returns a template with the given slot map; Slots is one
// more than the largest slot.
func newTemplate(inputDim int, slot []int32) (*Template, error) {
	if inputDim < 1 {
		return nil, fmt.Errorf("factorgraph: template input dimension %d < 1", inputDim)
	}
	if len(slot) == 0 {
		return nil, fmt.Errorf("factorgraph: template with no states")
	}
	slots := int32(0)
	for s, v := range slot {
		if v < -1 {
			return nil, fmt.Errorf("factorgraph: template state %d has slot %d < -1", s, v)
		}
		slots = max(slots, v+1)
	}
	if slots == 0 {
		return nil, fmt.Errorf("factorgraph: template maps no state to a slot")
	}
	return &Template{InputDim: inputDim, Slots: int(slots), Slot: append([]int32(nil), slot...)}, nil
}
