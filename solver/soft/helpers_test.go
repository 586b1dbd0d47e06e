package soft

import (
	"encoding/json"
	"math"
	"sort"
	"testing"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/internal/gendata"
	"github.com/fwstruct/fwstruct/solver/run"
)

// tinyModel builds a random model of n examples over one graph with the
// given cardinalities and factor scopes (see gendata.Model).
func tinyModel(t testing.TB, seed uint64, n int, cards []int, scopes [][]int, features int) *factorgraph.Model {
	t.Helper()
	m, err := gendata.Model(n, cards, scopes, features, seed)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// reference recomputes the objectives of Meshi et al. (2015) from their
// definitions (eq. 2, 3, 5, 6) with dense feature vectors phi_alpha(x^m, s)
// read off NodeScores at the unit vectors, independently of the solver's
// incremental bookkeeping and of NodePsi and Reparam.
type reference struct {
	m           *factorgraph.Model
	lambda, rho float64
	phi         [][][][]float64 // [example][node][state] -> dense phi_alpha(x, s)
}

func newReference(m *factorgraph.Model, lambda, rho float64) *reference {
	r := &reference{m: m, lambda: lambda, rho: rho, phi: make([][][][]float64, m.Len())}
	d := m.Dim()
	e := make([]float64, d)
	for i := range r.phi {
		g := m.Graph(i)
		r.phi[i] = make([][][]float64, g.NumNodes())
		for a := range r.phi[i] {
			r.phi[i][a] = make([][]float64, g.States(a))
			for s := range r.phi[i][a] {
				r.phi[i][a][s] = make([]float64, d)
			}
			sc := make([]float64, g.States(a))
			for j := 0; j < d; j++ {
				e[j] = 1
				m.NodeScores(i, a, e, sc)
				for s, v := range sc {
					r.phi[i][a][s][j] = v
				}
				e[j] = 0
			}
		}
	}
	return r
}

// table returns the marginals of node a of example i in the flat mu.
func (r *reference) table(s *Solver, mu []float64, i, a int) []float64 {
	g := r.m.Graph(i)
	off := s.muOff[i] + g.TableOffset(a)
	return mu[off : off+g.States(a)]
}

// weights returns Psi mu = 1/(lambda M) sum mu_alpha(s) (phi(y^m) - phi(s)).
func (r *reference) weights(s *Solver, mu []float64) []float64 {
	w := make([]float64, r.m.Dim())
	M := float64(r.m.Len())
	for i := range r.phi {
		for a, states := range r.phi[i] {
			t := r.m.TrueState(i, a)
			for st, p := range r.table(s, mu, i, a) {
				for j := range w {
					w[j] += p * (states[t][j] - states[st][j]) / (r.lambda * M)
				}
			}
		}
	}
	return w
}

// marginal returns the marginal of the factor table mu on the variable at
// scope position j, decoding the row-major joint states from the
// cardinalities alone.
func marginal(g *factorgraph.Graph, a, j int, mu []float64) []float64 {
	scope := g.Scope(a)
	out := make([]float64, g.Card(int(scope[j])))
	for s, p := range mu {
		rest := s
		for k := len(scope) - 1; k >= 0; k-- {
			c := g.Card(int(scope[k]))
			if k == j {
				out[rest%c] += p
			}
			rest /= c
		}
	}
	return out
}

// delta returns A mu: (mu_c(y_v) - mu_v(y)) / (rho M) at the solver's
// Layout.DeltaOffset.
func (r *reference) delta(s *Solver, mu []float64) []float64 {
	out := make([]float64, s.deltaOff[len(s.deltaOff)-1])
	M := float64(r.m.Len())
	for i := range r.phi {
		g := r.m.Graph(i)
		for a := g.NumVars(); a < g.NumNodes(); a++ {
			for j, v := range g.Scope(a) {
				mc := marginal(g, a, j, r.table(s, mu, i, a))
				mv := r.table(s, mu, i, int(v))
				for y := range mc {
					out[s.deltaOff[i]+s.k.Layout(i).DeltaOffset(a, j)+y] = (mc[y] - mv[y]) / (r.rho * M)
				}
			}
		}
	}
	return out
}

// dual returns f_rho(mu) (eq. 5).
func (r *reference) dual(s *Solver, mu []float64) float64 {
	M := float64(r.m.Len())
	var lin float64
	for i := range r.phi {
		for a := range r.phi[i] {
			if l := r.m.NodeLoss(i, a); l != nil {
				for st, p := range r.table(s, mu, i, a) {
					lin += p * l[st] / M
				}
			}
		}
	}
	w, d := r.weights(s, mu), r.delta(s, mu)
	return lin - r.lambda/2*dot(w, w) - r.rho/2*dot(d, d)
}

// primals returns the hard primal g(w, delta) of eq. 2 and the soft one
// g_rho of eq. 6.
func (r *reference) primals(s *Solver, w, delta []float64) (hard, soft float64) {
	M := float64(r.m.Len())
	var sum float64
	for i := range r.phi {
		g := r.m.Graph(i)
		dl := delta[s.deltaOff[i]:s.deltaOff[i+1]]
		for a, states := range r.phi[i] {
			t := r.m.TrueState(i, a)
			loss := r.m.NodeLoss(i, a)
			best := math.Inf(-1)
			for st := range states {
				th := dot(w, states[st]) - dot(w, states[t])
				if loss != nil {
					th += loss[st]
				}
				if a < g.NumVars() {
					nodes, pos := g.VarFactors(a)
					for k, c := range nodes {
						th += dl[s.k.Layout(i).DeltaOffset(int(c), int(pos[k]))+st]
					}
				} else {
					for j := range g.Scope(a) {
						onehot := make([]float64, g.States(a))
						onehot[st] = 1
						for y, v := range marginal(g, a, j, onehot) {
							th -= v * dl[s.k.Layout(i).DeltaOffset(a, j)+y]
						}
					}
				}
				best = max(best, th)
			}
			sum += best
		}
	}
	hard = r.lambda/2*dot(w, w) + sum/M
	return hard, hard + r.rho/2*dot(delta, delta)
}

func dot(a, b []float64) float64 {
	var s float64
	for j := range a {
		s += a[j] * b[j]
	}
	return s
}

// assertClose fails when got and want differ by more than tol (absolute,
// relative beyond 1).
func assertClose(t testing.TB, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol*math.Max(1, math.Abs(want)) {
		t.Fatalf("%s = %.15g, want %.15g (tolerance %g)", what, got, want, tol)
	}
}

// oneView returns the exact view of m.
func oneView(t testing.TB, m *factorgraph.Model) *factorgraph.Exact {
	t.Helper()
	e, err := factorgraph.NewExact(m, 0)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// shapes are the graphs of the generated test models: a loopy pairwise
// graph with ternary variables, a graph with a factor of three variables
// and one of a single variable, an isolated variable, and a chain.
var shapes = []struct {
	name   string
	cards  []int
	scopes [][]int
}{
	{"triangle", []int{3, 3, 2}, [][]int{{0, 1}, {1, 2}, {0, 2}}},
	{"triple", []int{2, 3, 2, 2}, [][]int{{0, 1, 2}, {2, 3}, {3}}},
	{"isolated", []int{2, 3, 2}, [][]int{{0, 1}}},
	{"chain", []int{3, 2, 3, 2}, [][]int{{0, 1}, {1, 2}, {2, 3}}},
}

// optimum brackets the optimum f*_rho of the soft dual (eq. 5) with an
// algorithm of its own: accelerated projected gradient ascent (FISTA with
// restarts) on the dense quadratic program l^T mu - 1/2 mu^T Q mu, Q =
// lambda Psi^T Psi + rho A^T A built column by column from the reference,
// over the product of the blocks' simplices. lo = f(mu) at its last
// iterate and hi = lo + its Frank-Wolfe gap, an upper bound by concavity.
func (r *reference) optimum(s *Solver, iters int) (lo, hi float64) {
	n := len(s.mu)
	M := float64(r.m.Len())
	lin := make([]float64, n)
	wcol := make([][]float64, n)
	dcol := make([][]float64, n)
	unit := make([]float64, n)
	var blocks [][2]int
	for i := 0; i < r.m.Len(); i++ {
		g := r.m.Graph(i)
		for a := 0; a < g.NumNodes(); a++ {
			off := s.muOff[i] + g.TableOffset(a)
			blocks = append(blocks, [2]int{off, off + g.States(a)})
			if l := r.m.NodeLoss(i, a); l != nil {
				for st, v := range l {
					lin[off+st] = v / M
				}
			}
		}
	}
	for k := range unit {
		unit[k] = 1
		wcol[k], dcol[k] = r.weights(s, unit), r.delta(s, unit)
		unit[k] = 0
	}
	Q := make([][]float64, n)
	for k := range Q {
		Q[k] = make([]float64, n)
		for l := range Q[k] {
			Q[k][l] = r.lambda*dot(wcol[k], wcol[l]) + r.rho*dot(dcol[k], dcol[l])
		}
	}
	// L, the largest eigenvalue of Q (positive semi-definite), by power
	// iteration, with a margin.
	v, qv := make([]float64, n), make([]float64, n)
	for k := range v {
		v[k] = 1 + float64(k%7)
	}
	var L float64
	for it := 0; it < 500; it++ {
		for k := range qv {
			qv[k] = dot(Q[k], v)
		}
		L = math.Sqrt(dot(qv, qv) / dot(v, v))
		for k := range v {
			v[k] = qv[k] / L
		}
	}
	L *= 1.05
	f := func(x []float64) float64 {
		v := dot(lin, x)
		for k := range x {
			v -= 0.5 * x[k] * dot(Q[k], x)
		}
		return v
	}
	grad := func(x, g []float64) {
		for k := range g {
			g[k] = lin[k] - dot(Q[k], x)
		}
	}
	x := append([]float64(nil), s.mu...) // the starting point of Alg. 1
	for k := range x {
		x[k] = 0
	}
	for _, b := range blocks {
		x[b[0]] = 1
	}
	y := append([]float64(nil), x...)
	g := make([]float64, n)
	next := make([]float64, n)
	tk := 1.0
	fx := f(x)
	for it := 0; it < iters; it++ {
		grad(y, g)
		for k := range next {
			next[k] = y[k] + g[k]/L
		}
		for _, b := range blocks {
			projectSimplex(next[b[0]:b[1]])
		}
		fn := f(next)
		if fn < fx { // restart the momentum
			copy(y, x)
			tk = 1
			continue
		}
		tn := (1 + math.Sqrt(1+4*tk*tk)) / 2
		for k := range y {
			y[k] = next[k] + (tk-1)/tn*(next[k]-x[k])
		}
		copy(x, next)
		fx, tk = fn, tn
	}
	grad(x, g)
	var gap float64
	for _, b := range blocks {
		top := math.Inf(-1)
		var at float64
		for k := b[0]; k < b[1]; k++ {
			top = math.Max(top, g[k])
			at += g[k] * x[k]
		}
		gap += top - at
	}
	return fx, fx + gap
}

// projectSimplex projects v onto the probability simplex in place (the
// sort-based algorithm of Held, Wolfe and Crowder 1974).
func projectSimplex(v []float64) {
	u := append([]float64(nil), v...)
	sort.Sort(sort.Reverse(sort.Float64Slice(u)))
	var sum, theta float64
	for j, x := range u {
		sum += x
		if t := (sum - 1) / float64(j+1); x-t > 0 {
			theta = t
		}
	}
	for j := range v {
		v[j] = math.Max(v[j]-theta, 0)
	}
}

// multiLabel returns a random multi-label model (Meshi Sec. 6) of n
// examples, L labels and F features (see gendata.MultiLabel).
func multiLabel(t testing.TB, n, L, F int, seed uint64) *factorgraph.Model {
	t.Helper()
	m, err := gendata.MultiLabel(n, L, F, seed)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// samePoints reports whether two traces are equal but for the solver time,
// NaN matching NaN (through their JSON form, where NaN is absent).
func samePoints(t testing.TB, a, b []run.Point) bool {
	t.Helper()
	strip := func(tr []run.Point) string {
		c := append([]run.Point(nil), tr...)
		for k := range c {
			c[k].Seconds, c[k].EvalSeconds = 0, 0
		}
		out, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	return strip(a) == strip(b)
}
