package solver

import (
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// oraclePass calls the certifying max oracle of every block at w, checks
// every answer (checkAnswer), and stores H_i(y_i*; w) in work.hBlock; with
// blocks it also stores the block gaps
// g_i = lambda <v_i, w> - ell_i + H_i/n in work.gBlock. It returns sum_i H_i
// and whether the oracle was exact (an approximate problem without an exact
// oracle makes the primal a lower bound and the gap an estimate).
func (s *Solver) oraclePass(w []float64, withBlocks bool) (sum float64, exact bool, err error) {
	h, g := s.work.hBlock, s.work.gBlock
	n := float64(s.n)
	oracle, exact := s.exact, true
	if oracle == nil {
		oracle, exact = s.oracle, false
	}
	err = s.parallel(func(ws *workerScratch, i int) error {
		var hi float64
		var err error
		ws.y, hi, err = oracle(i, w, ws.y)
		if err != nil {
			return err
		}
		s.p.Psi(i, ws.y, &ws.psi)
		if err := checkAnswer(i, hi, s.p.Loss(i, ws.y), ws.psi, w); err != nil {
			return err
		}
		h[i] = hi
		if withBlocks {
			g[i] = s.store.baseAt(i, w) + hi/n
		}
		return nil
	})
	if err != nil {
		return 0, exact, err
	}
	for _, v := range h {
		sum += v
	}
	return sum, exact, nil
}

// dual returns the dual objective ell - lambda/2 |w|^2 - lambda (beta_u^T u -
// beta_l^T l) at (v, w, ell) (Osokin et al. 2016, eq. 52).
func (s *Solver) dual(v, w []float64, ell float64) float64 {
	return ell - s.lambda/2*floats.Dot(w, w) - s.lambda*s.box.dualTerm(v)
}

// evalMode says what an exact evaluation does beside computing its point.
type evalMode struct {
	// refresh: it is the algorithm's gap pass, which refreshes the stale
	// block gaps, the sampler and the global gap of the cache and counts
	// as n oracle calls.
	refresh bool
	// keep: the exact block gaps it computes become those of the current
	// iterate (BlockGaps).
	keep bool
	// losses: it computes the task losses; without, the caller does
	// (late losses).
	losses bool
}

// The evaluations the solver makes: its gap passes and observe-only trace
// points (record), and Evaluate's, which changes no state.
var (
	gapPass = evalMode{refresh: true, keep: true, losses: true}
	observe = evalMode{keep: true, losses: true}
	peek    = evalMode{losses: true}
)

// record evaluates the current iterate, appends the trace point and, when
// refresh is true, feeds the exact block gaps to the algorithm.
func (s *Solver) record(refresh bool) error {
	if err := s.settleLosses(); err != nil { // the points stay in order
		return err
	}
	late := s.late.enabled
	mode := observe
	if refresh {
		mode = gapPass
	}
	mode.losses = !late
	pt, err := s.evaluate(mode)
	if err != nil {
		return err
	}
	s.markEvaluated()
	if late {
		s.startLosses(pt) // appended by settleLosses (lateloss.go)
		return nil
	}
	s.appendPoint(pt)
	return nil
}

// evaluate computes the exact primal, dual and gap at the current iterate
// (plus the averaged iterate and losses when configured), doing what mode
// says beside.
func (s *Solver) evaluate(mode evalMode) (run.Point, error) {
	s.sched.Settle() // no worker reads a block while the pass re-anchors them
	pt := s.countersPoint()
	n := float64(s.n)
	withBlocks := s.alg.blocks()
	if mode.refresh && withBlocks {
		s.reanchor()
	}
	sumH, exact, err := s.oraclePass(s.x.w, withBlocks)
	if err != nil {
		return pt, err
	}
	pt.ApproximateGap = !exact
	w := s.x.w
	pt.Primal = s.lambda/2*floats.Dot(w, w) + sumH/n
	s.alg.certify(&pt, sumH, mode)
	pt.Refresh = mode.refresh
	if err := s.addExtras(&pt, mode.losses); err != nil {
		return pt, err
	}
	err = core.Certify(&pt)
	return pt, err
}

// addExtras fills in the averaged iterate and, with losses, the task
// losses when the configuration asks for them (the test loss of the
// averaged iterate too).
func (s *Solver) addExtras(pt *run.Point, losses bool) error {
	if s.avg != nil {
		var err error
		if pt.PrimalAvg, pt.DualAvg, pt.GapAvg, err = s.evaluateAverage(); err != nil {
			return err
		}
	}
	pt.Event = s.takeEvents()
	if !losses {
		return nil
	}
	return s.taskLosses(pt)
}

// markEvaluated records that the current iterate has just been evaluated
// (its point appended now or, with late losses, once they are done).
func (s *Solver) markEvaluated() { s.loop.LastEval, s.evalAt = s.clock(), s.steps }

// appendPoint appends a trace point and calls the Progress callback.
func (s *Solver) appendPoint(pt run.Point) {
	pt.EvalSeconds = s.loop.EvalNow().Seconds()
	s.trace = append(s.trace, pt)
	if s.progress != nil {
		s.progress(pt)
	}
}

// reanchor recomputes the dual bookkeeping from the block state, so that
// rounding errors of the incremental updates do not accumulate: v = sum_i
// v_i from the block store (which also refreshes ell_i from explicit duals),
// ell = sum_i ell_i and w = [v].
func (s *Solver) reanchor() {
	if s.work.vTmp == nil {
		s.work.vTmp = make([]float64, s.d)
	}
	v := s.work.vTmp
	clear(v)
	s.store.accumulate(v)
	s.x.set(v)
	s.ell = floats.Sum(s.ellI)
}

// countersPoint returns a trace point holding the counters and statistics
// of the current state, with every objective value NaN.
func (s *Solver) countersPoint() run.Point {
	pt := run.Blank()
	pt.Pass, pt.OracleCalls, pt.Steps, pt.Seconds = s.Passes(), s.calls, s.steps, s.loop.Elapsed.Seconds()
	pt.Lambda, pt.CacheHits, pt.CacheMisses, pt.DropSteps = s.lambda, s.hits, s.misses, s.drops
	if s.cfg.explicitDuals() {
		var act int
		for i := range s.sets {
			act += s.sets[i].active()
		}
		pt.ActiveMean = float64(act) / float64(s.n)
	}
	s.reuse.describe(&pt)
	return pt
}

// evaluateAverage returns the primal, dual and gap of the weighted-average
// iterate (dual and gap NaN for SSG); for multi-plane BCFW, of the
// interpolation of its two averages with the best dual.
func (s *Solver) evaluateAverage() (primal, dual, gap float64, err error) {
	if s.work.wTmp == nil {
		s.work.wTmp = make([]float64, s.d)
	}
	vBar := make([]float64, s.d)
	ellBar := s.averagedPoint(vBar)
	wBar := vBar
	if s.box != nil {
		wBar = s.work.wTmp
		s.box.clipAll(wBar, vBar)
	}
	s.work.wAvg = append(s.work.wAvg[:0], wBar...)
	n := float64(s.n)
	sumH, _, err := s.oraclePass(wBar, false)
	if err != nil {
		return 0, 0, 0, err
	}
	primal = s.lambda/2*floats.Dot(wBar, wBar) + sumH/n
	if !s.alg.dual() {
		return primal, math.NaN(), math.NaN(), nil
	}
	dual = s.dual(vBar, wBar, ellBar)
	gap = s.lambda*floats.Dot(vBar, wBar) - ellBar + sumH/n
	return primal, dual, gap, nil
}
