package factorgraph

import (
	"errors"
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/oracles"
)

// ErrFractional reports an LP vertex that the labelings of a Relaxed view
// cannot represent: an entry that is not a multiple of 1/D, D the
// denominator given to NewRelaxed.
var ErrFractional = errors.New("factorgraph: LP vertex not representable with this denominator")

// Relaxed is the LP relaxation of a Model over the local marginal polytope
// (Meshi et al. 2015, eq. 3-4), with whole examples as blocks: training on
// it with BCFW is Meshi's "LP-hard" baseline (Sec. 6).
//
// A labeling is a point mu of the local polytope of the example, encoded
// as the flat table (Graph.TableOffset) of the pseudo-marginals scaled by
// the common denominator D: y[TableOffset(a)+s] = D*mu_a(s), an integer in
// [0, D]. The truth is the indicator vertex of the true labeling.
// Psi_i(y) = Psi mu = sum_alpha sum_s mu_alpha(s) (phi_alpha(x, y^i_alpha) -
// phi_alpha(x, s)) and Loss_i(y) = Delta . mu = sum_alpha sum_s
// mu_alpha(s) Delta_alpha(s), both linear in mu.
//
// The max oracle solves the LP relaxation of loss-augmented MAP with
// package lp (inference/lp) and returns an optimal vertex. For graphs of binary
// variables and factors of at most two variables every vertex of the local
// polytope is half-integral (Padberg 1989, "The boolean quadric polytope:
// some characteristics, facets and relatives", Math. Programming 45,
// Thm. 10, through the map mu_i = mu_i(1), mu_ij = mu_ij(1,1)), so D = 2
// represents them all; on forests the polytope is integral (D = 1 would do;
// Wainwright and Jordan 2008, Prop. 4.1). Other graphs may have vertices
// with other denominators: the oracle then returns an error wrapping
// ErrFractional through oracles.FallibleOracle.
//
// The view is exact for its own problem: the max of a linear function over
// a polytope is attained at a vertex, and the oracle finds it, so duality
// gaps computed with it certify the relaxed objective g of Meshi's eq. 2,
// the objective the soft-constrained solver approaches as rho -> 0. It is
// therefore not oracles.Approximate: the gap of the exact (integral)
// structural SVM is a different objective, lower than g by at most the
// relaxation's looseness, and no certificate for it.
type Relaxed struct {
	m     *Model
	den   int32
	truth [][]int32
}

// NewRelaxed returns the LP-relaxed view of m with labelings scaled by the
// denominator den (zero means 2). It runs phase I of the local polytope of
// every distinct graph of m.
func NewRelaxed(m *Model, den int) (*Relaxed, error) {
	if den == 0 {
		den = 2
	}
	if den < 1 || den > 1<<20 {
		return nil, fmt.Errorf("factorgraph: relaxed view: denominator %d outside [1, 2^20]", den)
	}
	r := &Relaxed{m: m, den: int32(den), truth: make([][]int32, m.Len())}
	for i := range r.truth {
		g := m.Graph(i)
		if _, err := g.localPolytope(); err != nil {
			return nil, fmt.Errorf("factorgraph: relaxed view: example %d: %w", i, err)
		}
		t := make([]int32, g.TableLen())
		for a := 0; a < g.NumNodes(); a++ {
			t[g.TableOffset(a)+m.TrueState(i, a)] = r.den
		}
		r.truth[i] = t
	}
	return r, nil
}

// Len returns the number of examples.
func (r *Relaxed) Len() int { return r.m.Len() }

// Dim returns the dimension of the weight vector.
func (r *Relaxed) Dim() int { return r.m.Dim() }

// Truth returns the indicator vertex of the true labeling, scaled by D
// (do not modify).
func (r *Relaxed) Truth(i int) []int32 { return r.truth[i] }

// Loss returns Delta . mu, or +Inf for a labeling of the wrong length.
func (r *Relaxed) Loss(i int, y []int32) float64 {
	g := r.m.Graph(i)
	if len(y) != g.TableLen() {
		return math.Inf(1)
	}
	var l float64
	inv := 1 / float64(r.den)
	for a := 0; a < g.NumNodes(); a++ {
		t := r.m.NodeLoss(i, a)
		if t == nil {
			continue
		}
		row := y[g.TableOffset(a):]
		for s, v := range t {
			l += float64(row[s]) * v
		}
	}
	return l * inv
}

// Psi sets dst to Psi mu for the point mu = y/D.
func (r *Relaxed) Psi(i int, y []int32, dst *oracles.SparseVec) {
	ws := r.m.get()
	defer r.m.put(ws)
	g := r.m.Graph(i)
	ws.acc.Ensure(r.m.Dim())
	inv := 1 / float64(r.den)
	for a := 0; a < g.NumNodes(); a++ {
		off := g.TableOffset(a)
		if y[off+r.m.TrueState(i, a)] == r.den {
			continue
		}
		for s, v := range y[off : off+g.States(a)] {
			if v != 0 {
				r.m.addStatePsi(i, a, s, float64(v)*inv, &ws.acc)
			}
		}
	}
	ws.acc.Flush(dst)
}

// MaxOracleErr solves the LP relaxation of loss-augmented MAP,
// max_{mu in M_L} Delta . mu + <w, phi mu>, and returns an optimal vertex
// and H_i(mu; w) = Delta . mu - <w, Psi mu>. The error wraps ErrFractional
// when the vertex is not a multiple of 1/D, or comes from the LP solver.
func (r *Relaxed) MaxOracleErr(i int, w []float64, dst []int32) ([]int32, float64, error) {
	return r.solve(i, w, true, dst)
}

// MaxOracle is MaxOracleErr without the error: on failure it returns the
// truth with h = NaN.
func (r *Relaxed) MaxOracle(i int, w []float64, dst []int32) ([]int32, float64) {
	y, h, err := r.solve(i, w, true, dst)
	if err != nil {
		return append(y[:0], r.truth[i]...), math.NaN()
	}
	return y, h
}

// Predict returns a vertex maximizing <w, phi mu> over the local polytope;
// when that vertex is not representable it returns the indicator of its
// rounding (Rounded's rule).
func (r *Relaxed) Predict(i int, w []float64, dst []int32) []int32 {
	ws, g, _ := r.m.scored(i, w, false)
	defer r.m.put(ws)
	dst = grow(dst, g.TableLen())
	if _, err := solveLP(g, ws.tab, ws); err == nil && encodeVertex(g, ws.mu, r.den, dst) == nil {
		return dst
	}
	ws.y = grow(ws.y, g.NumVars())
	roundLP(g, ws.mu, ws.tab, ws.y)
	for k := range dst {
		dst[k] = 0
	}
	for a := 0; a < g.NumNodes(); a++ {
		dst[g.TableOffset(a)+g.StateOf(a, ws.y)] = r.den
	}
	return dst
}

// solve maximizes the (loss-augmented) LP of example i and returns the
// vertex, its score minus the truth's and an error.
func (r *Relaxed) solve(i int, w []float64, aug bool, dst []int32) ([]int32, float64, error) {
	ws, g, truth := r.m.scored(i, w, aug)
	defer r.m.put(ws)
	dst = grow(dst, g.TableLen())
	if _, err := solveLP(g, ws.tab, ws); err != nil {
		return dst, math.NaN(), err
	}
	if err := encodeVertex(g, ws.mu, r.den, dst); err != nil {
		return dst, math.NaN(), err
	}
	var best float64
	for k, v := range dst {
		if v != 0 {
			best += float64(v) * ws.tab[k]
		}
	}
	return dst, best/float64(r.den) - truth, nil
}

// encodeVertex writes den*mu into dst, checking that every entry is an
// integer (to 1e-6) and that the rounded point still satisfies the
// constraints of the local polytope exactly.
func encodeVertex(g *Graph, mu []float64, den int32, dst []int32) error {
	D := float64(den)
	for k, v := range mu[:g.TableLen()] {
		x := v * D
		q := math.Round(x)
		if math.Abs(x-q) > 1e-6 || q < 0 || q > D {
			return fmt.Errorf("%w: entry %d is %.9g, times %d = %.9g", ErrFractional, k, v, den, x)
		}
		dst[k] = int32(q)
	}
	for i := 0; i < g.nv; i++ {
		var sum int32
		for _, v := range dst[g.TableOffset(i) : g.TableOffset(i)+g.Card(i)] {
			sum += v
		}
		if sum != den {
			return fmt.Errorf("%w: variable %d sums to %d/%d after rounding", ErrFractional, i, sum, den)
		}
	}
	for a := g.nv; a < g.NumNodes(); a++ {
		if !factorAgrees(g, a, dst) {
			return fmt.Errorf("%w: the marginals of node %d disagree with its variables after rounding", ErrFractional, a)
		}
	}
	return nil
}

// ForEachLabeling enumerates every point of the local polytope of example
// i whose coordinates are multiples of 1/D (a superset of the vertices the
// oracle can return), so that brute force over them finds the LP optimum
// on graphs whose vertices all have denominator D. It is exponential and
// meant for tiny test graphs.
func (r *Relaxed) ForEachLabeling(i int, fn func(y []int32)) {
	g := r.m.Graph(i)
	y := make([]int32, g.TableLen())
	var node func(a int)
	node = func(a int) {
		if a == g.NumNodes() {
			fn(y)
			return
		}
		off := g.TableOffset(a)
		compositions(y[off:off+g.States(a)], r.den, func() {
			if a >= g.nv && !factorAgrees(g, a, y) {
				return
			}
			node(a + 1)
		})
	}
	node(0)
}

// factorAgrees reports whether the table of factor a in y marginalizes to
// the tables of its variables.
func factorAgrees(g *Graph, a int, y []int32) bool {
	off := g.TableOffset(a)
	st := g.Strides(a)
	for j, v := range g.Scope(a) {
		k := int(g.card[v])
		voff := g.TableOffset(int(v))
		for yv := 0; yv < k; yv++ {
			var sum int32
			for s := 0; s < g.States(a); s++ {
				if (s/int(st[j]))%k == yv {
					sum += y[off+s]
				}
			}
			if sum != y[voff+yv] {
				return false
			}
		}
	}
	return true
}

// compositions calls fn with v set to every vector of non-negative integers
// summing to total.
func compositions(v []int32, total int32, fn func()) {
	if len(v) == 1 {
		v[0] = total
		fn()
		return
	}
	for x := int32(0); x <= total; x++ {
		v[0] = x
		compositions(v[1:], total-x, fn)
	}
}

var (
	_ oracles.Problem        = (*Relaxed)(nil)
	_ oracles.FallibleOracle = (*Relaxed)(nil)
	_ oracles.Labelings      = (*Relaxed)(nil)
)
