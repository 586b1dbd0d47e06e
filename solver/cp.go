package solver

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/fwstruct/fwstruct/solver/internal/core"
)

// DefaultCPTol is the default relative tolerance of the cutting-plane QP
// (CuttingPlane.Tol).
const DefaultCPTol = 1e-3

// cpState is the working set of the 1-slack cutting-plane method
// (Joachims et al. 2009) written as fully corrective Frank-Wolfe
// (Lacoste-Julien et al. 2013, Sec. 4, "Relationship with cutting plane
// algorithms"): every iteration's oracle pass gives a vertex s_t of the
// product of simplices (one labeling per example, the aggregated plane of
// the 1-slack formulation), stored as
//
//	u_t = 1/n sum_i psi_i(y_i^t),   ell_t = 1/n sum_i L_i(y_i^t),
//
// and the iterate is the best convex combination alpha = sum_t mu_t s_t of
// the vertices seen so far: w = 1/lambda sum_t mu_t u_t, ell = sum_t mu_t
// ell_t. Vertex 0 is the starting point (every block on its ground truth:
// u_0 = 0, ell_0 = 0), the constraint xi >= 0 of the 1-slack primal. The
// planes are kept scaled by lambda (u_t, not w_t = u_t/lambda) so that
// SetLambda only moves mass (see rescale).
type cpState struct {
	u    [][]float64 // planes u_t, dense
	ell  []float64   // ell_t
	mu   []float64   // the weights of the planes, on the simplex
	gram []float64   // G[a][b] = <u_a, u_b>, row-major, len(mu)^2
	gmu  []float64   // G mu, maintained by the QP steps
	// used[t] is the value of added when plane t last had positive weight
	// after a QP solve (or joined); retire drops the planes unused for
	// cpRetireAfter additions.
	used  []int64
	added int64 // planes added so far (the start excluded)
	// inner counts the corrective steps of the QP solves (diagnostics).
	inner int64
}

// cpRetireAfter is the number of plane additions after which a plane that
// has had no weight since leaves the working set (SVM^struct retires the
// constraints inactive for 50 iterations likewise).
const cpRetireAfter = 50

func newCPState(d int) *cpState {
	return &cpState{u: [][]float64{make([]float64, d)}, ell: []float64{0}, mu: []float64{1}, gram: []float64{0}, gmu: []float64{0}, used: []int64{0}}
}

func (c *cpState) m() int { return len(c.mu) }

func (c *cpState) g(a, b int) float64 { return c.gram[a*c.m()+b] }

// add appends the plane (u, ell) with zero weight, extending the Gram
// matrix by its row and column: O(m d).
func (c *cpState) add(u []float64, ell float64) {
	m := c.m() + 1
	g := make([]float64, m*m)
	for r := 0; r < m-1; r++ {
		copy(g[r*m:r*m+m-1], c.gram[r*(m-1):(r+1)*(m-1)])
	}
	for t := 0; t < m-1; t++ {
		dot := floats.Dot(u, c.u[t])
		g[t*m+m-1] = dot
		g[(m-1)*m+t] = dot
	}
	g[(m-1)*m+m-1] = floats.Dot(u, u)
	c.gram = g
	c.u = append(c.u, u)
	c.ell = append(c.ell, ell)
	c.mu = append(c.mu, 0)
	var gm float64
	for t := 0; t < m-1; t++ {
		gm += g[(m-1)*m+t] * c.mu[t]
	}
	c.gmu = append(c.gmu, gm)
	c.added++
	c.used = append(c.used, c.added)
}

// retire marks the planes with positive weight as used now and drops those
// unused for more than cpRetireAfter additions, except the start (vertex 0,
// which SetLambda moves mass to). A plane without weight contributes
// nothing to w, ell or G mu, so the iterate stays what it is; the QP of the
// next iteration is over fewer planes, and since every iteration still
// makes the Frank-Wolfe step towards its new plane, the convergence of
// batch Frank-Wolfe carries over.
func (c *cpState) retire() {
	keep := 0
	for t, mu := range c.mu {
		if mu > 0 {
			c.used[t] = c.added
		}
		if t == 0 || c.added-c.used[t] <= cpRetireAfter {
			keep++
		}
	}
	m := c.m()
	if keep == m {
		return
	}
	idx := make([]int, 0, keep)
	for t := range c.mu {
		if t == 0 || c.added-c.used[t] <= cpRetireAfter {
			idx = append(idx, t)
		}
	}
	g := make([]float64, keep*keep)
	for r, a := range idx {
		for q, b := range idx {
			g[r*keep+q] = c.gram[a*m+b]
		}
		c.u[r], c.ell[r], c.mu[r], c.gmu[r], c.used[r] = c.u[a], c.ell[a], c.mu[a], c.gmu[a], c.used[a]
	}
	clear(c.u[keep:]) // let the dropped planes go
	c.u, c.ell, c.mu, c.gmu, c.used, c.gram = c.u[:keep], c.ell[:keep], c.mu[:keep], c.gmu[:keep], c.used[:keep], g
}

// grad returns the gradient of the QP objective
//
//	q(mu) = 1/(2 lambda) mu^T G mu - ell^T mu
//
// at plane t: <u_t, w> - ell_t, minus the violation of plane t at w.
func (c *cpState) grad(t int, lambda float64) float64 { return c.gmu[t]/lambda - c.ell[t] }

// move shifts mass gamma from plane a to plane b (a < 0: scales every
// weight by 1-gamma first, a Frank-Wolfe step towards b).
func (c *cpState) move(a, b int, gamma float64) {
	m := c.m()
	if a < 0 {
		for t := range c.mu {
			c.mu[t] *= 1 - gamma
		}
		floats.Scale(1-gamma, c.gmu)
	} else {
		c.mu[a] -= gamma
		if c.mu[a] < 0 {
			c.mu[a] = 0
		}
		for t := 0; t < m; t++ {
			c.gmu[t] -= gamma * c.gram[a*m+t]
		}
	}
	c.mu[b] += gamma
	for t := 0; t < m; t++ {
		c.gmu[t] += gamma * c.gram[b*m+t]
	}
}

// qpGap returns the Frank-Wolfe gap of the QP, sum_t mu_t grad_t - min_t
// grad_t, with the minimizing (FW) plane and the active plane of largest
// gradient (the away plane).
func (c *cpState) qpGap(lambda float64) (gap float64, fw, away int) {
	fw, away = -1, -1
	var mean, gFW, gAway float64
	for t, mu := range c.mu {
		gt := c.grad(t, lambda)
		if fw < 0 || gt < gFW {
			fw, gFW = t, gt
		}
		if mu > 0 {
			mean += mu * gt
			if away < 0 || gt > gAway {
				away, gAway = t, gt
			}
		}
	}
	return mean - gFW, fw, away
}

// solve re-optimizes mu over all planes: first the Frank-Wolfe step towards
// the newest plane with exact line search (so an iteration gains at least
// what batch FW gains, and the FW convergence guarantee carries over), then
// pairwise Frank-Wolfe steps (mass from the away plane to the FW plane,
// exact line search) until the QP's own duality gap is at most tol. It
// returns the QP gap reached. maxSteps bounds the corrective steps.
func (c *cpState) solve(lambda, tol float64, maxSteps int) float64 {
	m := c.m()
	b := m - 1
	// FW step towards plane b: d = e_b - mu, q'(0) = grad_b - mu^T grad,
	// q'' = (G_bb - 2 (G mu)_b + mu^T G mu) / lambda.
	var muGrad, muGmu float64
	for t := range c.mu {
		muGrad += c.mu[t] * c.grad(t, lambda)
		muGmu += c.mu[t] * c.gmu[t]
	}
	curv := (c.g(b, b) - 2*c.gmu[b] + muGmu) / lambda
	if gamma := core.LineSearch(muGrad-c.grad(b, lambda), curv, 1); gamma > 0 {
		c.move(-1, b, gamma)
	}
	gap, fw, away := c.qpGap(lambda)
	for k := 0; k < maxSteps && gap > tol && fw != away; k++ {
		curv := (c.g(fw, fw) + c.g(away, away) - 2*c.g(fw, away)) / lambda
		gamma := core.LineSearch(c.grad(away, lambda)-c.grad(fw, lambda), curv, c.mu[away])
		if gamma == 0 {
			break
		}
		c.move(away, fw, gamma)
		c.inner++
		gap, fw, away = c.qpGap(lambda)
	}
	return gap
}

// weights writes v = 1/lambda sum_t mu_t u_t and returns ell = sum_t mu_t
// ell_t.
func (c *cpState) weights(lambda float64, v []float64) float64 {
	clear(v)
	var ell float64
	for t, mu := range c.mu {
		if mu > 0 {
			floats.AddScaled(v, mu/lambda, c.u[t])
			ell += mu * c.ell[t]
		}
	}
	return ell
}

// rescale applies SetLambda's Proposition 1 (Osokin et al. 2016) to the
// working set: alpha := rho alpha + (1 - rho) alpha_0, i.e. mu := rho mu
// + (1 - rho) e_0, keeps w = 1/lambda sum mu u (the planes u_t do not
// depend on lambda) and multiplies ell by rho.
func (c *cpState) rescale(rho float64) {
	for t := range c.mu {
		c.mu[t] *= rho
	}
	c.mu[0] += 1 - rho
	c.updateGMu()
}

// updateGMu recomputes G mu from scratch.
func (c *cpState) updateGMu() {
	m := c.m()
	c.gmu = c.gmu[:0]
	for t := 0; t < m; t++ {
		c.gmu = append(c.gmu, floats.Dot(c.gram[t*m:(t+1)*m], c.mu))
	}
}

// active returns the number of planes with positive weight.
func (c *cpState) active() int {
	k := 0
	for _, mu := range c.mu {
		if mu > 0 {
			k++
		}
	}
	return k
}

// cpStep is the step of a cutting-plane iteration, after fwIteration's
// oracle pass p at w(k): p.vs = 1/(lambda n) sum_i psi_i(y_i*) and p.ellS =
// 1/n sum_i L_i(y_i*) describe the new vertex, p.gap is the duality gap at
// w(k). It adds the aggregated plane and re-optimizes over every plane
// (the QP of the 1-slack formulation) until the QP's gap is at most
// CuttingPlane.Tol times p.gap; with the constraint cache, it puts the pass's
// labelings into the cache and adds the cache's planes while they are
// violated enough (cpcache.go). Then it sets w and ell.
func (s *Solver) cpStep(p *batchPass) error {
	c := s.cp
	u := make([]float64, s.d)
	floats.AddScaled(u, s.lambda, p.vs)
	c.add(u, p.ellS)
	steps := 1000 + 100*c.m()
	c.solve(s.lambda, s.cfg.CPTol*math.Max(p.gap, 0), steps)
	if s.work.vTmp == nil {
		s.work.vTmp = make([]float64, s.d)
	}
	c.retire()
	s.ell = c.weights(s.lambda, s.work.vTmp)
	if s.sets != nil {
		s.misses++
		s.cacheLabelings(p)
		if err := s.cachedPlanes(s.work.vTmp, p.gap); err != nil {
			return err
		}
	}
	s.x.set(s.work.vTmp)
	return nil
}

// Planes returns the number of planes of the cutting-plane working set
// (the starting vertex included) and how many have positive weight; zero
// for the other algorithms.
func (s *Solver) Planes() (total, active int) {
	if s.cp == nil {
		return 0, 0
	}
	return s.cp.m(), s.cp.active()
}

// InnerSteps returns the cumulative number of corrective (pairwise) steps
// of the cutting-plane QP solves; zero for the other algorithms.
func (s *Solver) InnerSteps() int64 {
	if s.cp == nil {
		return 0
	}
	return s.cp.inner
}

// save and restore write and read the working set of a checkpoint.
func (c *cpState) save(ck *checkpoint) {
	ck.CPPlanes, ck.CPEll, ck.CPMu, ck.CPGram, ck.CPGMu, ck.CPInner = c.u, c.ell, c.mu, c.gram, c.gmu, c.inner
	ck.CPUsed, ck.CPAdded = c.used, c.added
}

func (c *cpState) restore(ck *checkpoint, d int) error {
	m := len(ck.CPMu)
	if m < 1 || len(ck.CPPlanes) != m || len(ck.CPEll) != m || len(ck.CPGram) != m*m || len(ck.CPGMu) != m || ck.CPInner < 0 ||
		(ck.CPUsed != nil && len(ck.CPUsed) != m) || ck.CPAdded < 0 {
		return fmt.Errorf("solver: load: corrupt checkpoint: cutting-plane working set of %d weights, %d planes, %d losses, %d Gram entries", m, len(ck.CPPlanes), len(ck.CPEll), len(ck.CPGram))
	}
	var mass float64
	for t, mu := range ck.CPMu {
		if !(mu >= 0 && mu <= 1+1e-9) || len(ck.CPPlanes[t]) != d || math.IsNaN(ck.CPEll[t]) || math.IsInf(ck.CPEll[t], 0) {
			return fmt.Errorf("solver: load: corrupt checkpoint: cutting plane %d (weight %v, %d coordinates, loss %v)", t, mu, len(ck.CPPlanes[t]), ck.CPEll[t])
		}
		if err := finiteAll(fmt.Sprintf("cutting plane %d", t), ck.CPPlanes[t]); err != nil {
			return err
		}
		if ck.CPUsed != nil && !(ck.CPUsed[t] >= 0 && ck.CPUsed[t] <= ck.CPAdded) {
			return fmt.Errorf("solver: load: corrupt checkpoint: cutting plane %d last used at addition %d of %d", t, ck.CPUsed[t], ck.CPAdded)
		}
		mass += mu
	}
	if math.Abs(mass-1) > 1e-9 {
		return fmt.Errorf("solver: load: corrupt checkpoint: cutting-plane weights sum to %v, want 1", mass)
	}
	if err := finiteAll("cutting-plane Gram matrix", ck.CPGram); err != nil {
		return err
	}
	c.u, c.ell, c.mu, c.gram, c.inner = ck.CPPlanes, ck.CPEll, ck.CPMu, ck.CPGram, ck.CPInner
	c.added, c.used = ck.CPAdded, ck.CPUsed
	if c.used == nil { // a checkpoint from before retirement: every plane counts as used now
		c.added, c.used = int64(m-1), make([]int64, m)
		for t := range c.used {
			c.used[t] = c.added
		}
	}
	// G mu is maintained incrementally: keep the saved one (so that the run
	// continues identically) after checking it against a recomputation.
	c.updateGMu()
	for t, v := range ck.CPGMu {
		if math.Abs(v-c.gmu[t]) > 1e-6*(1+math.Abs(c.gmu[t])) {
			return fmt.Errorf("solver: load: corrupt checkpoint: cutting-plane G mu[%d] = %v, recomputed %v", t, v, c.gmu[t])
		}
	}
	c.gmu = ck.CPGMu
	return nil
}
