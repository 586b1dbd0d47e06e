package soft

import (
	"math"

	"github.com/fwstruct/fwstruct/solver/run"

	"gonum.org/v1/gonum/floats"

	"github.com/fwstruct/fwstruct/solver/internal/core"
)

// evalMode says what an exact evaluation does beside computing its point.
type evalMode struct {
	// refresh: a scheduled gap pass; it re-anchors w and delta on mu,
	// refreshes the stale block gaps and the sampler, and counts as
	// Blocks() oracle calls.
	refresh bool
	// keep: the gap is remembered for the stopping test.
	keep bool
}

// The evaluations: gap passes and observe-only trace points (record), and
// Evaluate's, which changes no state.
var (
	gapPass = evalMode{refresh: true, keep: true}
	observe = evalMode{keep: true}
	peek    = evalMode{}
)

// record evaluates the current iterate, appends the trace point and, with
// refresh (a scheduled gap pass), feeds the exact block gaps to the
// algorithm.
func (s *Solver) record(refresh bool) error {
	mode := observe
	if refresh {
		mode = gapPass
	}
	pt, err := s.evaluate(mode)
	if err != nil {
		return err
	}
	pt.EvalSeconds = s.loop.EvalNow().Seconds()
	s.trace = append(s.trace, pt)
	s.loop.LastEval = s.steps
	if s.progress != nil {
		s.progress(pt)
	}
	return nil
}

// evaluate computes the soft primal g_rho, the soft dual f_rho, their gap
// and the hard primal g of eq. 2 at the current iterate, plus the test
// loss, doing what mode says beside.
func (s *Solver) evaluate(mode evalMode) (run.Point, error) {
	if mode.refresh {
		s.reanchor()
	}
	bracket, lossDot := s.blockPass()
	lambda, rho, M := s.cfg.Lambda, s.cfg.Rho, float64(s.nEx)
	wSq, dSq := floats.Dot(s.w, s.w), floats.Dot(s.delta, s.delta)
	hard := lambda/2*wSq + bracket/M
	pt := run.Blank()
	pt.Steps, pt.Seconds = s.steps, s.loop.Elapsed.Seconds()
	pt.Primal, pt.Dual = hard+rho/2*dSq, lossDot/M-lambda/2*wSq-rho/2*dSq
	pt.Refresh, pt.Lambda, pt.Rho, pt.HardPrimal = mode.refresh, lambda, rho, hard
	pt.Gap = pt.Primal - pt.Dual
	if mode.refresh {
		copy(s.gapEst, s.work.blkGap)
		s.est.Reset(s.gapEst)
		s.samp.Refresh(s.gapEst)
		s.calls += int64(s.blocks)
	}
	if mode.keep {
		s.lastGap, s.gapAt = pt.Gap, s.steps
	}
	pt.Pass, pt.OracleCalls = s.Passes(), s.calls
	if est := s.est.Sum(); !math.IsInf(est, 1) {
		pt.GapEstimate = est
	}
	if s.test != nil {
		pt.TestLoss, _ = predictions(s.test, s.w, s.workers, false)
	}
	err := core.Certify(&pt)
	return pt, err
}

// blockPass maximizes the reparameterized scores of every block at the
// current (w, delta), in parallel over examples. It returns sum_m
// sum_alpha max theta^m_alpha (the brackets of eq. 2) and sum_m Delta .
// mu^m (M l^T mu), and leaves the exact block gaps (max theta - theta^T
// mu) / M in work.blkGap. The sums are taken in example order, so the
// result does not depend on the number of workers.
func (s *Solver) blockPass() (bracket, lossDot float64) {
	M := float64(s.nEx)
	_ = core.Parallel(s.nEx, len(s.work.workers), func(k, i int) error {
		ws := &s.work.workers[k]
		g := s.m.Graph(i)
		delta := s.delta[s.deltaOff[i]:s.deltaOff[i+1]]
		var bound, loss float64
		for a := 0; a < g.NumNodes(); a++ {
			off := s.muOff[i] + g.TableOffset(a)
			mu := s.mu[off : off+g.States(a)]
			th := s.k.Reparam(i, a, s.w, delta, ws.theta)
			top := th[0]
			for _, v := range th[1:] {
				top = max(top, v)
			}
			var gap float64
			for y, v := range mu {
				gap += v * (top - th[y])
			}
			s.work.blkGap[int(s.blockOff[i])+a] = gap / M
			bound += top
			if l := s.m.NodeLoss(i, a); l != nil {
				loss += floats.Dot(l, mu)
			}
		}
		s.work.exBound[i], s.work.exLoss[i] = bound, loss
		return nil
	})
	for i := range s.work.exBound {
		bracket += s.work.exBound[i]
		lossDot += s.work.exLoss[i]
	}
	return bracket, lossDot
}

// reanchor recomputes w = Psi mu and delta = A mu from the marginals, so
// that the rounding errors of the incremental updates do not accumulate.
// w is summed block by block in order (deterministic); delta example by
// example in parallel.
func (s *Solver) reanchor() {
	acc := &s.work.acc
	for i := 0; i < s.nEx; i++ {
		g := s.m.Graph(i)
		for a := 0; a < g.NumNodes(); a++ {
			off := s.muOff[i] + g.TableOffset(a)
			s.k.NodePsi(i, a, s.mu[off:off+g.States(a)], acc)
		}
	}
	acc.Flush(&s.work.psi)
	clear(s.w)
	s.work.psi.AddTo(s.w, 1/(s.cfg.Lambda*float64(s.nEx)))
	scale := 1 / (s.cfg.Rho * float64(s.nEx))
	_ = core.Parallel(s.nEx, len(s.work.workers), func(k, i int) error {
		s.agreement(i, scale, s.work.workers[k].marg, s.delta[s.deltaOff[i]:s.deltaOff[i+1]])
		return nil
	})
}

// agreement writes scale * (A_ci mu_c - mu_i) for every factor c and
// variable i of c of example i into delta (Meshi eq. 5: delta = A mu with
// scale = 1/(rho M)); marg is scratch of a scope's total cardinality.
func (s *Solver) agreement(i int, scale float64, marg, delta []float64) {
	g, lay := s.m.Graph(i), s.k.Layout(i)
	base := s.muOff[i]
	for a := g.NumVars(); a < g.NumNodes(); a++ {
		off := base + g.TableOffset(a)
		mu := s.mu[off : off+g.States(a)]
		mg := marg[:lay.FactorDeltaLen(a)]
		lay.MarginalizeScope(a, mu, mg) // laid out as the factor's delta
		first := lay.DeltaOffset(a, 0)
		for j, v := range g.Scope(a) {
			r := lay.DeltaOffset(a, j)
			mv := s.mu[base+g.TableOffset(int(v)):]
			dd := delta[r : r+g.Card(int(v))]
			for y, m := range mg[r-first : r-first+len(dd)] {
				dd[y] = scale * (m - mv[y])
			}
		}
	}
}
