package nodes

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/internal/gendata"
	"github.com/fwstruct/fwstruct/oracles"
)

// TestNodeMethods checks the node columns against the example-level view:
// the columns NodePsi of a labeling's indicator tables sum to its Psi, and
// NodePsi is linear in its coefficients.
func TestNodeMethods(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for sh := range shapes {
		m := shapeModel(t, 3, sh, 3, 7)
		k, e := New(m), exactView(t, m)
		name := shapes[sh].name
		for i := 0; i < m.Len(); i++ {
			g := m.Graph(i)
			y := make([]int32, g.NumVars())
			for v := range y {
				y[v] = int32(rng.IntN(g.Card(v)))
			}
			var acc oracles.Accumulator
			acc.Ensure(m.Dim())
			for a := 0; a < g.NumNodes(); a++ {
				coef := make([]float64, g.States(a))
				coef[g.StateOf(a, y)] = 1
				k.NodePsi(i, a, coef, &acc)
			}
			var psi, nodePsi oracles.SparseVec
			acc.Flush(&nodePsi)
			e.Psi(i, y, &psi)
			d1, d2 := psi.Dense(m.Dim()), nodePsi.Dense(m.Dim())
			for j := range d1 {
				if math.Abs(d1[j]-d2[j]) > 1e-12 {
					t.Fatalf("%s: sum of NodePsi differs from Psi at %d: %v vs %v", name, j, d2[j], d1[j])
				}
			}
			// NodePsi is linear in the coefficients: a mixture of states
			// is the mixture of the states' columns.
			for a := 0; a < g.NumNodes(); a++ {
				mu := make([]float64, g.States(a))
				want := make([]float64, m.Dim())
				for s := range mu {
					mu[s] = rng.Float64()
					ind := make([]float64, g.States(a))
					ind[s] = 1
					var col oracles.SparseVec
					k.NodePsi(i, a, ind, &acc)
					acc.Flush(&col)
					col.AddTo(want, mu[s])
				}
				var got oracles.SparseVec
				k.NodePsi(i, a, mu, &acc)
				acc.Flush(&got)
				for j, v := range got.Dense(m.Dim()) {
					if math.Abs(v-want[j]) > 1e-12 {
						t.Fatalf("%s: node %d: NodePsi of a mixture differs at %d: %v, want %v", name, a, j, v, want[j])
					}
				}
			}
		}
	}
}

// TestReparam checks the reparameterization of Meshi's eq. 2: for any
// delta, sum_alpha Reparam(alpha)(y_alpha) is the loss-augmented score H of
// every labeling y (the delta terms cancel), and the bracket sum_alpha
// max Reparam(alpha) is at least the LP relaxation's value, itself at
// least the exact maximum.
func TestReparam(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	for sh := range shapes {
		m := shapeModel(t, 2, sh, 3, 14)
		name := shapes[sh].name
		k, e := New(m), exactView(t, m)
		r, err := factorgraph.NewRelaxed(m, 6)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < m.Len(); i++ {
			g := m.Graph(i)
			w := randomWeights(rng, m.Dim(), 1)
			delta := randomWeights(rng, k.Layout(i).DeltaLen(), 1)
			e.ForEachLabeling(i, func(y []int32) {
				var sum float64
				for a := 0; a < g.NumNodes(); a++ {
					sum += k.Reparam(i, a, w, delta, make([]float64, g.States(a)))[g.StateOf(a, y)]
				}
				if h := hOf(e, i, y, w); math.Abs(sum-h) > 1e-9 {
					t.Fatalf("%s: labeling %v: sum of Reparam %v, H %v", name, y, sum, h)
				}
			})
			_, exact := e.MaxOracle(i, w, nil)
			bound := k.reparamBound(i, w, delta)
			zero := k.reparamBound(i, w, make([]float64, len(delta)))
			_, lp, err := r.MaxOracleErr(i, w, nil)
			if errors.Is(err, factorgraph.ErrFractional) {
				lp = exact // only the weaker chain of bounds
			} else if err != nil {
				t.Fatal(err)
			}
			if bound < lp-1e-9 || zero < lp-1e-9 || lp < exact-1e-9 {
				t.Fatalf("%s: bound %v (delta = 0: %v), LP %v, exact %v", name, bound, zero, lp, exact)
			}
		}
	}
}

// TestLayout checks the layout of the agreement variables: DeltaOffset
// tiles [0, DeltaLen) with one block of |Y_v| entries per (factor,
// variable v of its scope), in order; VarDeltas lists the blocks of a
// variable in the order of VarFactors; the per-state tables and the
// computation without them (a layout over maxStateDeltas) agree in
// Reparam and in MarginalizeScope, which is marginalize position by
// position, and the marginals of an indicator table are the indicators of
// its variables' states.
func TestLayout(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for sh := range shapes {
		m := shapeModel(t, 1, sh, 2, 15)
		name := shapes[sh].name
		g := m.Graph(0)
		k := New(m)
		lay := k.Layout(0)
		limit := maxStateDeltas
		maxStateDeltas = 0
		bare := New(m) // the same model, without the tables
		maxStateDeltas = limit
		if lay.stateDelta == nil || bare.Layout(0).stateDelta != nil {
			t.Fatalf("%s: per-state agreement tables %v, %v", name, lay.stateDelta != nil, bare.Layout(0).stateDelta != nil)
		}
		next := 0
		for a := g.NumVars(); a < g.NumNodes(); a++ {
			first := next
			for j, v := range g.Scope(a) {
				if lay.DeltaOffset(a, j) != next {
					t.Fatalf("%s: DeltaOffset(%d, %d) = %d, want %d", name, a, j, lay.DeltaOffset(a, j), next)
				}
				next += g.Card(int(v))
			}
			if lay.FactorDeltaLen(a) != next-first {
				t.Fatalf("%s: FactorDeltaLen(%d) = %d, want %d", name, a, lay.FactorDeltaLen(a), next-first)
			}
		}
		if next != lay.DeltaLen() || next != DeltaLen(g) {
			t.Fatalf("%s: DeltaLen %d (without the layout %d), blocks cover %d", name, lay.DeltaLen(), DeltaLen(g), next)
		}
		w := randomWeights(rng, m.Dim(), 1)
		delta := randomWeights(rng, lay.DeltaLen(), 1)
		y := make([]int32, g.NumVars())
		for v := range y {
			y[v] = int32(rng.IntN(g.Card(v)))
		}
		for a := 0; a < g.NumNodes(); a++ {
			n := g.States(a)
			got := k.Reparam(0, a, w, delta, make([]float64, n))
			want := bare.Reparam(0, a, w, delta, make([]float64, n))
			for s := range want {
				if math.Abs(got[s]-want[s]) > 1e-12*(1+math.Abs(want[s])) {
					t.Fatalf("%s: node %d state %d: Reparam %v with the table, %v without", name, a, s, got[s], want[s])
				}
			}
			if a < g.NumVars() {
				nodes, pos := g.VarFactors(a)
				offs := lay.VarDeltas(a)
				if len(offs) != len(nodes) {
					t.Fatalf("%s: VarDeltas(%d) has %d entries for %d factors", name, a, len(offs), len(nodes))
				}
				for j, c := range nodes {
					if int(offs[j]) != lay.DeltaOffset(int(c), int(pos[j])) {
						t.Fatalf("%s: VarDeltas(%d)[%d] = %d, DeltaOffset %d", name, a, j, offs[j], lay.DeltaOffset(int(c), int(pos[j])))
					}
				}
				continue
			}
			ind := make([]float64, n)
			ind[g.StateOf(a, y)] = 1
			for _, mu := range [][]float64{randomWeights(rng, n, 1), ind} {
				tab := make([]float64, lay.FactorDeltaLen(a))
				noTab := make([]float64, len(tab))
				lay.MarginalizeScope(a, mu, tab)
				bare.Layout(0).MarginalizeScope(a, mu, noTab)
				base := lay.DeltaOffset(a, 0)
				for j, v := range g.Scope(a) {
					one := make([]float64, g.Card(int(v)))
					marginalize(g, a, j, mu, one)
					off := lay.DeltaOffset(a, j) - base
					for s, p := range one {
						if math.Abs(tab[off+s]-p) > 1e-12 || math.Abs(noTab[off+s]-p) > 1e-12 {
							t.Fatalf("%s: factor %d position %d state %d: MarginalizeScope %v (without the table %v), marginalize %v", name, a, j, s, tab[off+s], noTab[off+s], p)
						}
						if &mu[0] == &ind[0] && p != float64(b2i(int32(s) == y[v])) {
							t.Fatalf("%s: factor %d: the marginal of variable %d of an indicator is %v", name, a, v, one)
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

// TestSlotColumns checks the slot-column form of NodePsi against the
// accumulated vector: AddPsiSlots of the coefficients of PsiSlotsNorm(coef)
// is NodePsi(coef) for distributions, Frank-Wolfe directions and arbitrary
// coefficients, and its squared norm is |NodePsi(coef)|^2 exactly when the
// node's terms are disjoint (NaN and false otherwise).
func TestSlotColumns(t *testing.T) {
	type model struct {
		name    string
		m       *factorgraph.Model
		overlap func(a int) bool
	}
	models := []model{{"overlap", overlapModel(t), func(a int) bool { return a == 0 }}}
	for sh := range shapes {
		models = append(models, model{shapes[sh].name, shapeModel(t, 2, sh, 5, 11), func(int) bool { return false }})
	}
	ml, err := gendata.MultiLabel(2, 5, 9, 4)
	if err != nil {
		t.Fatal(err)
	}
	models = append(models, model{"multilabel", ml, func(int) bool { return false }})
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
		k := New(m)
		var acc oracles.Accumulator
		acc.Ensure(m.Dim())
		for i := 0; i < m.Len(); i++ {
			g, lay := m.Graph(i), k.Layout(i)
			for a := 0; a < g.NumNodes(); a++ {
				name := fmt.Sprintf("%s: example %d node %d", tc.name, i, a)
				if v := k.Prefetch(i, a); math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("%s: Prefetch read %v", name, v)
				}
				for kind, coef := range coefs {
					c := coef(g.States(a))
					k.NodePsi(i, a, c, &acc)
					var psi oracles.SparseVec
					acc.Flush(&psi)
					dense := psi.Dense(m.Dim())
					sl, sq, ok := k.PsiSlotsNorm(i, a, c, make([]float64, lay.NodeSlots(a)+1))
					if len(sl) != lay.NodeSlots(a) {
						t.Fatalf("%s: %d slot coefficients, want %d", name, len(sl), lay.NodeSlots(a))
					}
					back := make([]float64, m.Dim())
					k.AddPsiSlots(i, a, sl, 1, back)
					for j := range dense {
						if math.Abs(back[j]-dense[j]) > 1e-12 {
							t.Fatalf("%s, %s: AddPsiSlots at %d is %v, NodePsi %v", name, kind, j, back[j], dense[j])
						}
					}
					if ok == tc.overlap(a) {
						t.Fatalf("%s: PsiSlotsNorm ok = %v with overlapping columns %v", name, ok, tc.overlap(a))
					}
					if !ok {
						if !math.IsNaN(sq) {
							t.Fatalf("%s: PsiSlotsNorm refused but returned %v", name, sq)
						}
						continue
					}
					if n2 := psi.NormSq(); math.Abs(sq-n2) > 1e-12*(1+n2) {
						t.Fatalf("%s, %s: PsiSlotsNorm %v, |NodePsi|^2 %v", name, kind, sq, n2)
					}
				}
			}
		}
		for i := 0; i < m.Len(); i++ {
			if v := k.PrefetchExample(i); math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%s: PrefetchExample read %v", tc.name, v)
			}
		}
	}
}
