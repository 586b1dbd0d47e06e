package factorgraph

import (
	gonumlp "gonum.org/v1/gonum/optimize/convex/lp"

	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
)

var shapes = []struct {
	name   string
	cards  []int
	scopes [][]int
	forest bool
}{
	{"triangle", []int{2, 2, 2}, triangle, false},
	{"loopy4-mixed", []int{2, 3, 2, 3}, loopy4, false},
	{"triple", []int{2, 3, 2, 2}, withTriple, false},
	{"tree5", []int{3, 2, 3, 2, 2}, tree5, true},
	{"chain4", []int{3, 3, 3, 3}, chain4, true},
	{"isolated", []int{2, 3, 2}, [][]int{{0, 1}}, true},
	{"full5-binary", []int{2, 2, 2, 2, 2}, fullyConnected(5), false},
}

func TestGraphStructure(t *testing.T) {
	for _, sh := range shapes {
		m := randomModel(t, randomConfig{N: 1, Cards: sh.cards, Scopes: sh.scopes, Features: 3, Seed: 1})
		g := m.Graph(0)
		if g.isForest() != sh.forest {
			t.Errorf("%s: isForest = %v, want %v", sh.name, g.isForest(), sh.forest)
		}
		// Strides decode joint states back to the scope's states.
		y := make([]int32, g.NumVars())
		assignments{m}.ForEachLabeling(0, func(z []int32) {
			copy(y, z)
			for a := 0; a < g.NumNodes(); a++ {
				s := g.StateOf(a, y)
				for j, v := range g.Scope(a) {
					if got := (s / int(g.Strides(a)[j])) % g.Card(int(v)); got != int(y[v]) {
						t.Fatalf("%s: node %d state %d decodes variable %d to %d, want %d", sh.name, a, s, v, got, y[v])
					}
				}
			}
		})
		// VarFactors lists exactly the factors containing each variable.
		for i := 0; i < g.NumVars(); i++ {
			nodes, pos := g.VarFactors(i)
			count := 0
			for a := g.NumVars(); a < g.NumNodes(); a++ {
				for _, v := range g.Scope(a) {
					if int(v) == i {
						count++
					}
				}
			}
			if len(nodes) != count {
				t.Errorf("%s: variable %d in %d factors, VarFactors lists %d", sh.name, i, count, len(nodes))
			}
			for k, a := range nodes {
				if int(g.Scope(int(a))[pos[k]]) != i {
					t.Errorf("%s: VarFactors(%d) position %d of node %d is wrong", sh.name, i, pos[k], a)
				}
			}
		}
	}
}

func TestExactConformance(t *testing.T) {
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			m := randomModel(t, randomConfig{N: 6, Cards: sh.cards, Scopes: sh.scopes, Features: 4, Seed: 2})
			e, err := NewExact(m, 0)
			if err != nil {
				t.Fatal(err)
			}
			oraclestest.Conformance(t, e, oraclestest.CheckOptions{Weights: 4, Seed: 3})
		})
	}
}

// TestEnumerateAgainstMaxSum compares the two exact decoders on forests, and
// the Gray code with a plain odometer on loopy graphs, on random tables.
func TestEnumerateAgainstMaxSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	for _, sh := range shapes {
		m := randomModel(t, randomConfig{N: 1, Cards: sh.cards, Scopes: sh.scopes, Features: 2, Seed: 6})
		g := m.Graph(0)
		ws := new(work)
		for r := 0; r < 20; r++ {
			tab := randomWeights(rng, g.TableLen(), 1)
			y := make([]int32, g.NumVars())
			got := enumerate(g, tab, ws, y)
			want := math.Inf(-1)
			assignments{m}.ForEachLabeling(0, func(z []int32) { want = max(want, scoreOf(g, tab, z)) })
			if math.Abs(got-want) > 1e-12 || math.Abs(scoreOf(g, tab, y)-got) > 1e-12 {
				t.Fatalf("%s: Gray code max %v (labeling scores %v), odometer %v", sh.name, got, scoreOf(g, tab, y), want)
			}
			if g.isForest() {
				z := make([]int32, g.NumVars())
				if ms := maxSum(g, tab, ws, z); math.Abs(ms-want) > 1e-12 {
					t.Fatalf("%s: max-sum %v, brute force %v", sh.name, ms, want)
				}
			}
		}
	}
}

// TestGrayCodeVisitsAll checks that the Gray code visits every labeling
// exactly once: with table entries that are distinct powers of two for one
// variable, the sums seen identify the labelings.
func TestGrayCodeVisitsAll(t *testing.T) {
	g, err := NewGraph([]int{3, 2, 4}, nil, []Factor{{Scope: []int{0, 1, 2}}})
	if err != nil {
		t.Fatal(err)
	}
	// The factor table gives state s the value s: the running score is the
	// current joint state, and the maximum is reached at the last state.
	tab := make([]float64, g.TableLen())
	for s := 0; s < g.States(3); s++ {
		tab[g.TableOffset(3)+s] = float64(s)
	}
	y := make([]int32, 3)
	if got := enumerate(g, tab, new(work), y); got != 23 || y[0] != 2 || y[1] != 1 || y[2] != 3 {
		t.Fatalf("max %v at %v, want 23 at [2 1 3]", got, y)
	}
	// Count visits with a table that makes every labeling the best once:
	// replay the Gray code order and check distinctness.
	seen := map[[3]int32]bool{}
	ws := &work{}
	ws.y = make([]int32, 3)
	ws.dir = []int8{1, 1, 1}
	cur := [3]int32{}
	seen[cur] = true
	for {
		i := 0
		for ; i < 3; i++ {
			if v := cur[i] + int32(ws.dir[i]); v >= 0 && v < int32(g.Card(i)) {
				break
			}
			ws.dir[i] = -ws.dir[i]
		}
		if i == 3 {
			break
		}
		cur[i] += int32(ws.dir[i])
		if seen[cur] {
			t.Fatalf("labeling %v visited twice", cur)
		}
		seen[cur] = true
	}
	if len(seen) != 24 {
		t.Fatalf("visited %d labelings, want 24", len(seen))
	}
}

func TestRelaxedConformance(t *testing.T) {
	cases := []struct {
		name   string
		cards  []int
		scopes [][]int
		den    int
	}{
		{"triangle-binary", []int{2, 2, 2}, triangle, 2},
		{"loopy4-binary", []int{2, 2, 2, 2}, loopy4, 2},
		{"chain-ternary", []int{3, 3, 3}, [][]int{{0, 1}, {1, 2}}, 1},
		{"tree-binary", []int{2, 2, 2, 2}, [][]int{{0, 1}, {0, 2}, {2, 3}}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := randomModel(t, randomConfig{N: 4, Cards: tc.cards, Scopes: tc.scopes, Features: 3, Seed: 7})
			r, err := NewRelaxed(m, tc.den)
			if err != nil {
				t.Fatal(err)
			}
			oraclestest.Conformance(t, r, oraclestest.CheckOptions{Weights: 4, Seed: 8, Tol: 1e-8})
		})
	}
	m, _ := randomMultiLabel(t, 4, 4, 3, true, 9)
	r, err := NewRelaxed(m, 2)
	if err != nil {
		t.Fatal(err)
	}
	oraclestest.Conformance(t, r, oraclestest.CheckOptions{Weights: 5, Seed: 10, Scale: 3, Tol: 1e-8})
}

// TestRelaxedBounds checks on random instances that the LP value is at
// least the exact MAP value (it is a relaxation), equal to it on forests
// and on attractive multi-label models (w_ij >= 0: supermodular pairwise
// scores, where the LP is tight), and that binary pairwise models never
// produce an unrepresentable vertex with D = 2.
func TestRelaxedBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	type instance struct {
		name       string
		m          *Model
		tight      bool
		halfIntegr bool
		attractive *MultiLabel
	}
	ml, layout := randomMultiLabel(t, 10, 6, 4, true, 13)
	var insts []instance
	for _, sh := range shapes {
		m := randomModel(t, randomConfig{N: 5, Cards: sh.cards, Scopes: sh.scopes, Features: 3, Seed: 14})
		binPair := true
		for _, k := range sh.cards {
			binPair = binPair && k == 2
		}
		for _, sc := range sh.scopes {
			binPair = binPair && len(sc) <= 2
		}
		insts = append(insts, instance{sh.name, m, sh.forest, binPair, nil})
	}
	insts = append(insts, instance{"multilabel", ml, false, true, nil}, instance{"multilabel-attractive", ml, true, true, &layout})
	fractional, representable := 0, 0
	for _, in := range insts {
		r, err := NewRelaxed(in.m, 2)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < in.m.Len(); i++ {
			for k := 0; k < 10; k++ {
				w := randomWeights(rng, in.m.Dim(), 2)
				if in.attractive != nil {
					for a := 0; a < in.attractive.Labels; a++ {
						for b := a + 1; b < in.attractive.Labels; b++ {
							j := in.attractive.PairIndex(a, b)
							w[j] = math.Abs(w[j])
						}
					}
				}
				exact := bruteMax(in.m, i, w, true)
				y, h, err := r.MaxOracleErr(i, w, nil)
				if errors.Is(err, ErrFractional) {
					if in.halfIntegr || in.tight {
						t.Fatalf("%s: example %d: %v on a graph whose vertices are half-integral", in.name, i, err)
					}
					fractional++
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", in.name, err)
				}
				representable++
				if h < exact-1e-9 {
					t.Fatalf("%s: example %d: LP value %v below the exact maximum %v", in.name, i, h, exact)
				}
				if in.tight && math.Abs(h-exact) > 1e-9 {
					t.Fatalf("%s: example %d: LP value %v, exact %v on a tight instance", in.name, i, h, exact)
				}
				if hy := r.Loss(i, y) - dotPsi(r, i, y, w); math.Abs(hy-h) > 1e-9 {
					t.Fatalf("%s: example %d: oracle value %v, labeling value %v", in.name, i, h, hy)
				}
			}
		}
	}
	if representable < 300 {
		t.Fatalf("only %d LP vertices checked (%d fractional)", representable, fractional)
	}
}

func dotPsi(p oracles.Problem, i int, y []int32, w []float64) float64 {
	var psi oracles.SparseVec
	p.Psi(i, y, &psi)
	return psi.Dot(w)
}

func TestRoundedConformance(t *testing.T) {
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			m := randomModel(t, randomConfig{N: 4, Cards: sh.cards, Scopes: sh.scopes, Features: 3, Seed: 15})
			r, err := NewRounded(m)
			if err != nil {
				t.Fatal(err)
			}
			if r.Exact() == nil {
				t.Fatal("no exact view for a small model")
			}
			oraclestest.Conformance(t, r, oraclestest.CheckOptions{Weights: 3, Seed: 16})
			if !sh.forest {
				return
			}
			// On forests the LP is tight: the rounded oracle is exact.
			rng := rand.New(rand.NewPCG(17, 18))
			for i := 0; i < m.Len(); i++ {
				w := randomWeights(rng, m.Dim(), 1)
				_, h := r.MaxOracle(i, w, nil)
				if want := bruteMax(m, i, w, true); math.Abs(h-want) > 1e-9 {
					t.Fatalf("example %d: rounded oracle %v, exact %v on a forest", i, h, want)
				}
			}
		})
	}
}

// TestRelaxedFractional builds a frustrated triangle of binary variables
// (each pair rewards disagreement), whose LP optimum is the unique
// half-integral point mu_i = (1/2, 1/2), mu_ij(0,1) = mu_ij(1,0) = 1/2 with
// value 3, while the best assignment scores 2. With D = 1 the oracle must
// report ErrFractional, with D = 2 it must find the value 3.
func TestRelaxedFractional(t *testing.T) {
	tmpl, err := newTemplate(1, []int32{-1, 0, 0, -1})
	if err != nil {
		t.Fatal(err)
	}
	var factors []Factor
	for _, sc := range triangle {
		factors = append(factors, Factor{Scope: sc, Terms: []Term{{T: tmpl, Input: Const, Offset: 0}}})
	}
	g, err := NewGraph([]int{2, 2, 2}, nil, factors)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(1, []Example{{Graph: g, Truth: []int32{0, 0, 0}, Loss: [][]float64{nil, nil, nil}}})
	if err != nil {
		t.Fatal(err)
	}
	w := []float64{1}
	r1, _ := NewRelaxed(m, 1)
	_, h, err := r1.MaxOracleErr(0, w, nil)
	if !errors.Is(err, ErrFractional) || !math.IsNaN(h) {
		t.Fatalf("D=1: h = %v, err = %v; want NaN and ErrFractional", h, err)
	}
	if _, h := r1.MaxOracle(0, w, nil); !math.IsNaN(h) {
		t.Fatalf("MaxOracle without error returned h = %v, want NaN", h)
	}
	if _, _, err := oracles.OracleFunc(r1)(0, w, nil); !errors.Is(err, ErrFractional) {
		t.Fatalf("OracleFunc: %v", err)
	}
	r2, _ := NewRelaxed(m, 2)
	y, h, err := r2.MaxOracleErr(0, w, nil)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(h-3) > 1e-9 {
		t.Fatalf("D=2: LP value %v, want 3 (vertex %v)", h, y)
	}
	for a := 0; a < g.NumVars(); a++ {
		if off := g.TableOffset(a); y[off] != 1 || y[off+1] != 1 {
			t.Fatalf("D=2: variable %d has scaled marginals %v, want [1 1]", a, y[off:off+2])
		}
	}
	if got := bruteMax(m, 0, w, true); math.Abs(got-2) > 1e-12 {
		t.Fatalf("exact maximum %v, want 2", got)
	}
	// Predict falls back to a rounded integral vertex with D = 1.
	p := r1.Predict(0, w, nil)
	for a := 0; a < g.NumNodes(); a++ {
		ones := 0
		for _, v := range p[g.TableOffset(a) : g.TableOffset(a)+g.States(a)] {
			if v == 1 {
				ones++
			} else if v != 0 {
				t.Fatalf("Predict's fallback is not integral: %v", p)
			}
		}
		if ones != 1 {
			t.Fatalf("Predict's fallback is not an indicator: %v", p)
		}
	}
	// The rounded view breaks the 1/2 ties to an assignment scoring 2 at
	// best, and at most the LP value.
	rd, err := NewRounded(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, h := rd.MaxOracle(0, w, nil); h > 2+1e-12 {
		t.Fatalf("rounded oracle value %v above the exact maximum 2", h)
	}
}

// TestLocalPolytopeAgainstGonum solves the local-polytope LPs of random
// graphs with package lp and with gonum's lp.Simplex (an independent
// implementation) and compares the optimal values.
func TestLocalPolytopeAgainstGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	compared := 0
	for _, sh := range shapes {
		m := randomModel(t, randomConfig{N: 1, Cards: sh.cards, Scopes: sh.scopes, Features: 2, Seed: 21})
		g := m.Graph(0)
		lp, err := g.localPolytope()
		if err != nil {
			t.Fatal(err)
		}
		A, b := g.localPolytopeProgram()
		x := make([]float64, g.TableLen())
		for r := 0; r < 10; r++ {
			c := randomWeights(rng, g.TableLen(), 1)
			res, err := lp.Solve(c, x, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, _, err := gonumlp.Simplex(c, A, b, 1e-10, nil)
			if err != nil {
				t.Fatalf("%s: gonum: %v", sh.name, err)
			}
			if math.Abs(res.Objective-want) > 1e-8 {
				t.Fatalf("%s: simplex %v, gonum %v", sh.name, res.Objective, want)
			}
			compared++
		}
	}
	if compared == 0 {
		t.Fatal("nothing compared")
	}
}
