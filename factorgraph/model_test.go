package factorgraph

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

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
		e, err := NewExact(m, 0)
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
			if !m.Graph(i).IsForest() {
				t.Fatalf("example %d: chain graph is not a forest", i)
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
				w := randomWeights(rng, c.Dim(), 1)
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

// TestNodeMethods checks the node-level methods the factor-level solver
// uses against the example-level ones: node scores sum to the score, Theta
// vanishes at the truth and its sum is H, NodePsi of indicator tables sums
// to Psi, and Marginalize agrees with StateOf.
func TestNodeMethods(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, sh := range shapes {
		m := randomModel(t, randomConfig{N: 3, Cards: sh.cards, Scopes: sh.scopes, Features: 3, Seed: 7})
		e := assignments{m}
		for i := 0; i < m.Len(); i++ {
			g := m.Graph(i)
			w := randomWeights(rng, m.Dim(), 1)
			y := make([]int32, g.NumVars())
			for v := range y {
				y[v] = int32(rng.IntN(g.Card(v)))
			}
			var acc oracles.Accumulator
			acc.Ensure(m.Dim())
			var theta, dst []float64
			var sumTheta float64
			for a := 0; a < g.NumNodes(); a++ {
				theta = grow(theta, g.States(a))
				th := m.Theta(i, a, w, theta)
				if th[m.TrueState(i, a)] != 0 {
					t.Fatalf("%s: Theta of node %d at the truth is %v", sh.name, a, th[m.TrueState(i, a)])
				}
				sumTheta += th[g.StateOf(a, y)]
				coef := make([]float64, g.States(a))
				coef[g.StateOf(a, y)] = 1
				m.NodePsi(i, a, coef, &acc)
			}
			var psi, nodePsi oracles.SparseVec
			acc.Flush(&nodePsi)
			e.Psi(i, y, &psi)
			d1, d2 := psi.Dense(m.Dim()), nodePsi.Dense(m.Dim())
			for j := range d1 {
				if math.Abs(d1[j]-d2[j]) > 1e-12 {
					t.Fatalf("%s: sum of NodePsi differs from Psi at %d: %v vs %v", sh.name, j, d2[j], d1[j])
				}
			}
			if h := e.Loss(i, y) - psi.Dot(w); math.Abs(h-sumTheta) > 1e-9 {
				t.Fatalf("%s: sum of Theta %v, H %v", sh.name, sumTheta, h)
			}
			// NodePsi is linear in the coefficients: a mixture of states.
			for a := 0; a < g.NumNodes(); a++ {
				mu := make([]float64, g.States(a))
				var want oracles.SparseVec
				var acc2 oracles.Accumulator
				acc2.Ensure(m.Dim())
				for s := range mu {
					mu[s] = rng.Float64()
					m.addStatePsi(i, a, s, mu[s], &acc2)
				}
				acc2.Flush(&want)
				m.NodePsi(i, a, mu, &acc)
				var got oracles.SparseVec
				acc.Flush(&got)
				g1, g2 := got.Dense(m.Dim()), want.Dense(m.Dim())
				for j := range g1 {
					if math.Abs(g1[j]-g2[j]) > 1e-12 {
						t.Fatalf("%s: node %d: NodePsi of a mixture differs at %d", sh.name, a, j)
					}
				}
				// Marginalize of an indicator is the indicator of the
				// variable's state.
				ind := make([]float64, g.States(a))
				ind[g.StateOf(a, y)] = 1
				for j, v := range g.Scope(a) {
					dst = grow(dst, g.Card(int(v)))
					g.Marginalize(a, j, ind, dst)
					for s, p := range dst {
						if want := float64(b2i(int32(s) == y[v])); p != want {
							t.Fatalf("%s: node %d: marginal of variable %d is %v", sh.name, a, v, dst)
						}
					}
				}
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestMultiLabelLayout(t *testing.T) {
	l := MultiLabel{Labels: 14, Features: 103}
	if l.Dim() != 1533 {
		t.Fatalf("Yeast layout without bias: d = %d, want 1533", l.Dim())
	}
	if lb := (MultiLabel{Labels: 14, Features: 103, Bias: true}); lb.Dim() != 1547 {
		t.Fatalf("Yeast layout with bias: d = %d, want 1547", lb.Dim())
	}
	for _, l := range []MultiLabel{{Labels: 5, Features: 3}, {Labels: 4, Features: 2, Bias: true}, {Labels: 1, Features: 2}} {
		seen := map[int]bool{}
		claim := func(j int) {
			if j < 0 || j >= l.Dim() || seen[j] {
				t.Fatalf("%+v: coordinate %d out of range or used twice", l, j)
			}
			seen[j] = true
		}
		for i := 0; i < l.Labels; i++ {
			for f := 0; f < l.Features; f++ {
				claim(l.UnaryIndex(i, f))
			}
			if l.Bias {
				claim(l.BiasIndex(i))
			}
			for j := i + 1; j < l.Labels; j++ {
				if l.PairIndex(i, j) != l.PairIndex(j, i) {
					t.Fatal("PairIndex is not symmetric")
				}
				claim(l.PairIndex(i, j))
			}
		}
		if len(seen) != l.Dim() {
			t.Fatalf("%+v: %d coordinates used of %d", l, len(seen), l.Dim())
		}
	}
	// The score of a labeling is sum_i (w_i.x + b_i) y_i + sum_{i<j} w_ij y_i y_j.
	m, l := randomMultiLabel(t, 3, 4, 3, true, 8)
	e, err := NewExact(m, 0)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	w := randomWeights(rng, l.Dim(), 1)
	score := func(i int, y []int32) float64 {
		x := m.Input(i, 0)
		var s float64
		for a := 0; a < l.Labels; a++ {
			if y[a] == 0 {
				continue
			}
			for k, f := range x.Idx {
				s += w[l.UnaryIndex(a, int(f))] * x.Val[k]
			}
			s += w[l.BiasIndex(a)]
			for b := a + 1; b < l.Labels; b++ {
				s += w[l.PairIndex(a, b)] * float64(y[b])
			}
		}
		return s
	}
	for i := 0; i < m.Len(); i++ {
		e.ForEachLabeling(i, func(y []int32) {
			want := score(i, e.Truth(i)) - score(i, y)
			if got := dotPsi(e, i, y, w); math.Abs(got-want) > 1e-12 {
				t.Fatalf("example %d labeling %v: <w, psi> = %v, from the formula %v", i, y, got, want)
			}
			mis := 0
			for a := range y {
				mis += b2i(y[a] != e.Truth(i)[a])
			}
			if got := e.Loss(i, y); math.Abs(got-float64(mis)/float64(l.Labels)) > 1e-15 {
				t.Fatalf("loss %v, want %d/%d", got, mis, l.Labels)
			}
		})
	}
	oraclestest.Conformance(t, e, oraclestest.CheckOptions{Seed: 11})
}

func TestMetrics(t *testing.T) {
	g, err := MultiLabel{Labels: 3, Features: 1}.Graph()
	if err != nil {
		t.Fatal(err)
	}
	truths := [][]int32{{1, 0, 1}, {0, 0, 0}, {0, 0, 0}, {1, 1, 0}}
	ex := make([]Example, len(truths))
	for i, y := range truths {
		ex[i] = Example{Graph: g, Inputs: []oracles.SparseVec{{}}, Truth: y}
	}
	m, err := NewModel(MultiLabel{Labels: 3, Features: 1}.Dim(), ex)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		pred    [][]int32
		ham, f1 float64
		subset  float64
	}{
		{"perfect", truths, 0, 1, 1},
		// F1: 2*1/(2+1), empty vs {0}: 0, both empty: 1, wrong length: 0.
		{"mixed", [][]int32{{1, 0, 0}, {1, 0, 0}, {0, 0, 0}, {1}}, (1.0/3 + 1.0/3 + 0 + 1) / 4, (2.0/3 + 0 + 1 + 0) / 4, 0.25},
	}
	for _, tc := range cases {
		got := AssignmentMetrics(m, tc.pred)
		want := []oracles.Metric{{Name: MetricHamming, Value: tc.ham}, {Name: MetricF1, Value: tc.f1}, {Name: MetricSubset, Value: tc.subset}}
		if len(got) != len(want) {
			t.Fatalf("%s: %v", tc.name, got)
		}
		for k := range want {
			if got[k].Name != want[k].Name || math.Abs(got[k].Value-want[k].Value) > 1e-15 {
				t.Fatalf("%s: metric %d is %+v, want %+v", tc.name, k, got[k], want[k])
			}
		}
	}
	// Non-binary models only report the Hamming loss.
	c, _ := FromChain(oraclestest.Chain(oraclestest.ChainConfig{N: 2, MaxLen: 3, Labels: 3, Features: 2, Seed: 1}))
	e, _ := NewExact(c, 0)
	if got := e.Metrics([][]int32{c.Truth(0), c.Truth(1)}); len(got) != 1 || got[0].Name != MetricHamming || got[0].Value != 0 {
		t.Fatalf("chain metrics %v", got)
	}
	empty, _ := NewModel(1, nil)
	if got := AssignmentMetrics(empty, nil); !math.IsNaN(got[0].Value) {
		t.Fatalf("metrics of no examples: %v, want NaN", got)
	}
}

func TestInvalid(t *testing.T) {
	one := OneHot(2, 1)
	g, err := NewGraph([]int{2, 2}, nil, []Factor{{Scope: []int{0, 1}}})
	if err != nil {
		t.Fatal(err)
	}
	graphCases := []struct {
		name    string
		cards   []int
		terms   [][]Term
		factors []Factor
		want    string
	}{
		{"no variables", nil, nil, nil, "without variables"},
		{"zero cardinality", []int{2, 0}, nil, nil, "cardinality"},
		{"empty scope", []int{2}, nil, []Factor{{}}, "empty scope"},
		{"out of range", []int{2}, nil, []Factor{{Scope: []int{1}}}, "outside"},
		{"repeated", []int{2, 2}, nil, []Factor{{Scope: []int{1, 1}}}, "repeated"},
		{"template size", []int{3}, [][]Term{{{T: one, Input: 0}}}, nil, "states"},
		{"const dim", []int{2}, [][]Term{{{T: OneHot(2, 3), Input: Const}}}, nil, "input -1"},
		{"nil template", []int{2}, [][]Term{{{}}}, nil, "nil template"},
		{"too many term lists", []int{2}, [][]Term{nil, nil}, nil, "term lists"},
		{"huge", []int{1 << 16, 1 << 16}, nil, []Factor{{Scope: []int{0, 1}}}, "2^31"},
	}
	for _, tc := range graphCases {
		_, err := NewGraph(tc.cards, tc.terms, tc.factors)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewGraph %s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	gt, err := NewGraph([]int{2}, [][]Term{{{T: OneHot(2, 2), Input: 0, Offset: 1}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	x := oracles.SparseVec{Idx: []int32{1}, Val: []float64{1}}
	modelCases := []struct {
		name string
		dim  int
		ex   Example
		want string
	}{
		{"nil graph", 5, Example{Truth: []int32{0}}, "nil graph"},
		{"dimension", 4, Example{Graph: gt, Inputs: []oracles.SparseVec{x}, Truth: []int32{0}}, "exceed"},
		{"missing input", 5, Example{Graph: gt, Truth: []int32{0}}, "input 0 of 0"},
		{"input index", 5, Example{Graph: gt, Inputs: []oracles.SparseVec{{Idx: []int32{2}, Val: []float64{1}}}, Truth: []int32{0}}, "template dimension"},
		{"NaN input", 5, Example{Graph: gt, Inputs: []oracles.SparseVec{{Idx: []int32{0}, Val: []float64{math.NaN()}}}, Truth: []int32{0}}, "NaN"},
		{"repeated input", 5, Example{Graph: gt, Inputs: []oracles.SparseVec{{Idx: []int32{0, 0}, Val: []float64{1, 1}}}, Truth: []int32{0}}, "repeats"},
		{"truth length", 5, Example{Graph: gt, Inputs: []oracles.SparseVec{x}, Truth: []int32{0, 1}}, "truth has"},
		{"truth range", 5, Example{Graph: gt, Inputs: []oracles.SparseVec{x}, Truth: []int32{2}}, "outside"},
		{"loss size", 5, Example{Graph: g, Truth: []int32{0, 0}, Loss: [][]float64{{0, 1, 2}}}, "entries"},
		{"loss at truth", 5, Example{Graph: g, Truth: []int32{0, 0}, Loss: [][]float64{{1, 0}}}, "true state"},
		{"negative loss", 5, Example{Graph: g, Truth: []int32{0, 0}, Loss: [][]float64{{0, -1}}}, "-1"},
		{"too many losses", 5, Example{Graph: g, Truth: []int32{0, 0}, Loss: make([][]float64, 4)}, "loss tables"},
	}
	for _, tc := range modelCases {
		_, err := NewModel(tc.dim, []Example{tc.ex})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewModel %s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := NewModel(0, nil); err == nil {
		t.Error("NewModel with dimension 0: no error")
	}
	if _, err := NewTemplate(1, []int32{-1, -1}); err == nil {
		t.Error("NewTemplate with no slot: no error")
	}
	if _, err := NewTemplate(0, []int32{0}); err == nil {
		t.Error("NewTemplate with input dimension 0: no error")
	}
	if _, err := NewTemplate(1, []int32{-2}); err == nil {
		t.Error("NewTemplate with slot -2: no error")
	}
	if _, err := NewMultiLabel(MultiLabel{Labels: 2, Features: 1}, []oracles.SparseVec{{}}, [][]int32{{0, 2}}); err == nil {
		t.Error("NewMultiLabel with label 2: no error")
	}
	if _, err := NewMultiLabel(MultiLabel{Labels: 2, Features: 1}, []oracles.SparseVec{{}}, [][]int32{{0}}); err == nil {
		t.Error("NewMultiLabel with a short label vector: no error")
	}
	if _, err := NewMultiLabel(MultiLabel{Labels: 2, Features: 1}, nil, [][]int32{{0}}); err == nil {
		t.Error("NewMultiLabel with mismatched lengths: no error")
	}
	if _, err := NewRelaxed(&Model{dim: 1}, -1); err == nil {
		t.Error("NewRelaxed with denominator -1: no error")
	}
	big, _ := randomMultiLabel(t, 1, 12, 1, false, 1)
	if _, err := NewExact(big, 1000); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("NewExact over the limit: %v", err)
	}
}

// TestReparam checks the reparameterization of Meshi's eq. 2: for any
// delta, sum_alpha Reparam(alpha)(y_alpha) is the loss-augmented score H of
// every labeling y (the delta terms cancel), and ReparamBound is at least
// the LP relaxation's value, itself at least the exact maximum.
func TestReparam(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	for _, sh := range shapes {
		m := randomModel(t, randomConfig{N: 2, Cards: sh.cards, Scopes: sh.scopes, Features: 3, Seed: 14})
		r, err := NewRelaxed(m, 6)
		if err != nil {
			t.Fatal(err)
		}
		e, err := NewExact(m, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < m.Len(); i++ {
			g := m.Graph(i)
			w := randomWeights(rng, m.Dim(), 1)
			delta := randomWeights(rng, g.DeltaLen(), 1)
			var buf []float64
			e.ForEachLabeling(i, func(y []int32) {
				var sum float64
				for a := 0; a < g.NumNodes(); a++ {
					buf = grow(buf, g.States(a))
					sum += m.Reparam(i, a, w, delta, buf)[g.StateOf(a, y)]
				}
				if h := e.Loss(i, y) - dotPsi(e, i, y, w); math.Abs(sum-h) > 1e-9 {
					t.Fatalf("%s: labeling %v: sum of Reparam %v, H %v", sh.name, y, sum, h)
				}
			})
			bound, _ := m.ReparamBound(i, w, delta, nil)
			zero, _ := m.ReparamBound(i, w, make([]float64, g.DeltaLen()), nil)
			_, lp, err := r.MaxOracleErr(i, w, nil)
			if errors.Is(err, ErrFractional) {
				lp = bruteMax(m, i, w, true) // only the weaker chain of bounds
			} else if err != nil {
				t.Fatal(err)
			}
			if bound < lp-1e-9 || zero < lp-1e-9 || lp < bruteMax(m, i, w, true)-1e-9 {
				t.Fatalf("%s: bound %v (delta = 0: %v), LP %v, exact %v", sh.name, bound, zero, lp, bruteMax(m, i, w, true))
			}
		}
	}
	// The per-state agreement tables (stateDelta) and the computation
	// without them (a graph over maxStateDeltas) agree: Reparam,
	// MarginalizeScope against Marginalize position by position, and
	// VarDeltas against DeltaOffset.
	for _, sh := range shapes {
		cfg := randomConfig{N: 1, Cards: sh.cards, Scopes: sh.scopes, Features: 2, Seed: 15}
		m := randomModel(t, cfg)
		g := m.Graph(0)
		limit := maxStateDeltas
		maxStateDeltas = 0
		mb := randomModel(t, cfg) // the same model, without the tables
		maxStateDeltas = limit
		bare := mb.Graph(0)
		if g.stateDelta == nil || bare.stateDelta != nil {
			t.Fatalf("%s: per-state agreement tables %v, %v", sh.name, g.stateDelta != nil, bare.stateDelta != nil)
		}
		w := randomWeights(rng, m.Dim(), 1)
		delta := randomWeights(rng, g.DeltaLen(), 1)
		for a := 0; a < g.NumNodes(); a++ {
			n := g.States(a)
			got := m.Reparam(0, a, w, delta, make([]float64, n))
			want := mb.Reparam(0, a, w, delta, make([]float64, n))
			for s := range want {
				if math.Abs(got[s]-want[s]) > 1e-12*(1+math.Abs(want[s])) {
					t.Fatalf("%s: node %d state %d: Reparam %v with the table, %v without", sh.name, a, s, got[s], want[s])
				}
			}
			if a < g.NumVars() {
				nodes, pos := g.VarFactors(a)
				offs := g.VarDeltas(a)
				for k, c := range nodes {
					if int(offs[k]) != g.DeltaOffset(int(c), int(pos[k])) {
						t.Fatalf("%s: VarDeltas(%d)[%d] = %d, DeltaOffset %d", sh.name, a, k, offs[k], g.DeltaOffset(int(c), int(pos[k])))
					}
				}
				continue
			}
			mu := randomWeights(rng, n, 1)
			tab := make([]float64, g.FactorDeltaLen(a))
			noTab := make([]float64, len(tab))
			g.MarginalizeScope(a, mu, tab)
			bare.MarginalizeScope(a, mu, noTab)
			base := g.DeltaOffset(a, 0)
			for j, v := range g.Scope(a) {
				one := make([]float64, g.Card(int(v)))
				g.Marginalize(a, j, mu, one)
				off := g.DeltaOffset(a, j) - base
				for y, p := range one {
					if math.Abs(tab[off+y]-p) > 1e-12 || math.Abs(noTab[off+y]-p) > 1e-12 {
						t.Fatalf("%s: factor %d position %d state %d: MarginalizeScope %v (without the table %v), Marginalize %v", sh.name, a, j, y, tab[off+y], noTab[off+y], p)
					}
				}
			}
		}
	}
	// DeltaOffset tiles [0, DeltaLen) with one block per (factor, variable).
	g := randomModel(t, randomConfig{N: 1, Cards: []int{2, 3, 2, 2}, Scopes: withTriple, Features: 1, Seed: 1}).Graph(0)
	next := 0
	for a := g.NumVars(); a < g.NumNodes(); a++ {
		for j, v := range g.Scope(a) {
			if g.DeltaOffset(a, j) != next {
				t.Fatalf("DeltaOffset(%d, %d) = %d, want %d", a, j, g.DeltaOffset(a, j), next)
			}
			next += g.Card(int(v))
		}
	}
	if next != g.DeltaLen() {
		t.Fatalf("DeltaLen %d, blocks cover %d", g.DeltaLen(), next)
	}
}
