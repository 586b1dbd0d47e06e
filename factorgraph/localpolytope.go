package factorgraph

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/fwstruct/fwstruct/inference/lp"
)

// localPolytope returns the local marginal polytope of g (Meshi et al. 2015,
// eq. 4) as the standard-form program {mu >= 0 : A mu = b} that package
// lp (inference/lp) solves, with one column per (node, state) in the flat table
// layout of g (TableOffset), and rows
//
//   - sum_s mu_i(s) = 1 for every variable i;
//   - sum_{s : y_v = y} mu_c(s) - mu_v(y) = 0 for every factor c, variable v
//     of its scope and state y, leaving out the last state of every scope
//     position after the first (implied by the others and the
//     normalizations).
//
// The factors' own normalization follows from these rows. The phase I of
// the program is run once per graph and cached, so that every example of
// the same shape reuses it.
func (g *Graph) localPolytope() (*lp.Program, error) {
	g.lpOnce.Do(func() {
		A, b := g.localPolytopeProgram()
		g.lp, g.lpErr = lp.New(A, b)
		if g.lpErr != nil {
			g.lpErr = fmt.Errorf("factorgraph: local polytope: %w", g.lpErr)
		}
	})
	return g.lp, g.lpErr
}

// localPolytopeProgram returns the constraint matrix and right-hand side of
// localPolytope, for use with another LP solver (e.g. gonum's lp.Simplex,
// which the tests compare with).
func (g *Graph) localPolytopeProgram() (A *mat.Dense, b []float64) {
	type entry struct {
		col int
		val float64
	}
	var rows [][]entry
	for i := 0; i < g.nv; i++ {
		r := make([]entry, g.Card(i))
		for y := range r {
			r[y] = entry{g.TableOffset(i) + y, 1}
		}
		rows = append(rows, r)
		b = append(b, 1)
	}
	for a := g.nv; a < g.NumNodes(); a++ {
		st := g.Strides(a)
		for j, v := range g.Scope(a) {
			k := g.Card(int(v))
			last := k
			if j > 0 {
				last = k - 1
			}
			for y := 0; y < last; y++ {
				r := []entry{{g.TableOffset(int(v)) + y, -1}}
				for s := 0; s < g.States(a); s++ {
					if (s/int(st[j]))%k == y {
						r = append(r, entry{g.TableOffset(a) + s, 1})
					}
				}
				rows = append(rows, r)
				b = append(b, 0)
			}
		}
	}
	A = mat.NewDense(len(rows), g.TableLen(), nil)
	for i, r := range rows {
		for _, e := range r {
			A.Set(i, e.col, e.val)
		}
	}
	return A, b
}

// solveLP maximizes sum_alpha sum_s tab[alpha][s] mu_alpha(s) over the
// local polytope of g, writing a maximizing vertex into ws.mu (flat like
// tab) and returning the solver's report (Objective is the maximum).
func solveLP(g *Graph, tab []float64, ws *work) (lp.Result, error) {
	prog, err := g.localPolytope()
	if err != nil {
		return lp.Result{}, err
	}
	n := g.TableLen()
	ws.aux = grow(ws.aux, n)
	ws.mu = grow(ws.mu, n)
	for k, v := range tab[:n] {
		ws.aux[k] = -v
	}
	res, err := prog.Solve(ws.aux, ws.mu, &ws.lpws)
	res.Objective = -res.Objective
	return res, err
}
