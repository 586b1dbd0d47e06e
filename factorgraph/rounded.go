package factorgraph

import (
	"math"

	"github.com/fwstruct/fwstruct/oracles"
)

// Rounded is the view of a Model whose max oracle and Predict solve the LP
// relaxation over the local polytope and round its solution to an
// assignment: Meshi et al. (2015, Sec. 6) predict test labels this way
// ("we use an LP solver to compute test prediction, and we use a simple
// rounding scheme in case of fractional solutions"). Labelings are
// assignments, as in Exact.
//
// The rounding takes every variable to the state of largest pseudo-marginal
// mu_i, breaking ties (the 1/2, 1/2 of a half-integral vertex) by the
// variable's own score in the LP objective, then by the lower state. On
// forests the LP is tight and Rounded agrees with Exact up to ties.
//
// Rounded is oracles.Approximate: its oracle's labeling is feasible, so its
// H is a lower bound of the exact maximum, and Exact returns the Exact view
// (when every example is small enough for it) to certify gaps.
type Rounded struct {
	assignments
	exact *Exact
}

// NewRounded returns the rounded-LP view of m. It runs phase I of the local
// polytope of every distinct graph of m.
func NewRounded(m *Model) (*Rounded, error) {
	for i := 0; i < m.Len(); i++ {
		if _, err := m.Graph(i).localPolytope(); err != nil {
			return nil, err
		}
	}
	r := &Rounded{assignments: assignments{m}}
	if e, err := NewExact(m, 0); err == nil {
		r.exact = e
	}
	return r, nil
}

// Exact returns the exact view of the same model, or nil when some example
// is too large for it.
func (r *Rounded) Exact() oracles.Problem {
	if r.exact == nil {
		return nil
	}
	return r.exact
}

// MaxOracleErr solves the LP relaxation of loss-augmented MAP, rounds it,
// and returns the assignment with its H_i(y; w). The error comes from the
// LP solver.
func (r *Rounded) MaxOracleErr(i int, w []float64, dst []int32) ([]int32, float64, error) {
	return r.decode(i, w, true, dst)
}

// MaxOracle is MaxOracleErr without the error: on failure it returns the
// truth with h = NaN.
func (r *Rounded) MaxOracle(i int, w []float64, dst []int32) ([]int32, float64) {
	y, h, err := r.decode(i, w, true, dst)
	if err != nil {
		return append(y[:0], r.m.Truth(i)...), math.NaN()
	}
	return y, h
}

// Predict returns the rounding of an LP solution maximizing <w, phi mu>
// over the local polytope (the last vertex the solver reached, should it
// fail).
func (r *Rounded) Predict(i int, w []float64, dst []int32) []int32 {
	y, _, _ := r.decode(i, w, false, dst)
	return y
}

// decode solves the (loss-augmented) LP of example i and rounds it,
// returning the assignment, its score minus the truth's, and the LP
// solver's error.
func (r *Rounded) decode(i int, w []float64, aug bool, dst []int32) ([]int32, float64, error) {
	ws, g, truth := r.m.scored(i, w, aug)
	defer r.m.put(ws)
	_, err := solveLP(g, ws.tab, ws)
	dst = grow(dst, g.NumVars())
	roundLP(g, ws.mu, ws.tab, dst)
	return dst, scoreOf(g, ws.tab, dst) - truth, err
}

// roundLP sets y[i] to the state of largest mu_i, ties (within 1e-9)
// broken by the larger tab_i, then by the lower state.
func roundLP(g *Graph, mu, tab []float64, y []int32) {
	for i := 0; i < g.nv; i++ {
		off := g.TableOffset(i)
		best := 0
		for s := 1; s < g.Card(i); s++ {
			d := mu[off+s] - mu[off+best]
			if d > 1e-9 || (d >= -1e-9 && tab[off+s] > tab[off+best]) {
				best = s
			}
		}
		y[i] = int32(best)
	}
}

var (
	_ oracles.Problem        = (*Rounded)(nil)
	_ oracles.FallibleOracle = (*Rounded)(nil)
	_ oracles.Approximate    = (*Rounded)(nil)
	_ oracles.Labelings      = (*Rounded)(nil)
	_ oracles.Evaluator      = (*Rounded)(nil)
)
