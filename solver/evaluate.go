package solver

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/floats"

	"github.com/fwstruct/fwstruct/oracles"
)

// solverScratch holds reusable buffers so that steps do not allocate.
type solverScratch struct {
	y       []int32
	psi     oracles.SparseVec
	dense   []float64 // zeroed between uses (sparse-sparse dot products)
	h       []float64 // H of each corner of the current block
	hBlock  []float64 // H_i(y_i*; w) of every block in a pass
	gBlock  []float64 // block gaps of a pass
	wTmp    []float64 // averaged weights
	workers []workerScratch
}

type workerScratch struct {
	y   []int32
	psi oracles.SparseVec
	acc []float64 // dense accumulator (batch FW)
	ell float64
}

func (ws *solverScratch) init(s *Solver) {
	ws.dense = make([]float64, s.d)
	ws.hBlock = make([]float64, s.n)
	ws.gBlock = make([]float64, s.n)
	ws.workers = make([]workerScratch, s.cfg.Workers)
}

// parallel calls fn(worker, i) for every block i, splitting [0, n) into
// contiguous static ranges, one per worker, so that per-worker reductions are
// deterministic.
func (s *Solver) parallel(fn func(worker, i int)) {
	W := s.cfg.Workers
	if W > s.n {
		W = s.n
	}
	if W <= 1 {
		for i := 0; i < s.n; i++ {
			fn(0, i)
		}
		return
	}
	var wg sync.WaitGroup
	for k := 0; k < W; k++ {
		lo, hi := k*s.n/W, (k+1)*s.n/W
		wg.Add(1)
		go func(k, lo, hi int) {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				fn(k, i)
			}
		}(k, lo, hi)
	}
	wg.Wait()
}

// oraclePass calls the max oracle of every block at w and stores
// H_i(y_i*; w) in work.hBlock; with blocks it also stores the block gaps
// g_i = lambda <v_i, w> - ell_i + H_i/n in work.gBlock. It returns sum_i H_i.
func (s *Solver) oraclePass(w []float64, withBlocks bool) float64 {
	h, g := s.work.hBlock, s.work.gBlock
	n := float64(s.n)
	s.parallel(func(k, i int) {
		ws := &s.work.workers[k]
		var hi float64
		ws.y, hi = s.p.MaxOracle(i, w, ws.y)
		h[i] = hi
		if withBlocks {
			g[i] = s.blockBaseAt(i, w) + hi/n
		}
	})
	var sum float64
	for _, v := range h {
		sum += v
	}
	return sum
}

// meanLoss returns the mean task loss of Predict(w) on problem q, in
// parallel.
func (s *Solver) meanLoss(q oracles.Problem, w []float64) float64 {
	m := q.Len()
	if m == 0 {
		return math.NaN()
	}
	W := min(s.cfg.Workers, m)
	if W < 1 {
		W = 1
	}
	sums := make([]float64, W)
	var wg sync.WaitGroup
	for k := 0; k < W; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			var y []int32
			for i := k * m / W; i < (k+1)*m/W; i++ {
				y = q.Predict(i, w, y)
				sums[k] += q.Loss(i, y)
			}
		}(k)
	}
	wg.Wait()
	var sum float64
	for _, v := range sums {
		sum += v
	}
	return sum / float64(m)
}

// dual returns the dual objective ell - lambda/2 |w|^2 - lambda (beta_u^T u -
// beta_l^T l) at (v, w, ell) (Osokin et al. 2016, eq. 52).
func (s *Solver) dual(v, w []float64, ell float64) float64 {
	return ell - s.lambda/2*floats.Dot(w, w) - s.lambda*s.cfg.Box.dualTerm(v)
}

// record evaluates the current iterate, appends the trace point and, when
// refresh is true, feeds the exact block gaps to the algorithm.
func (s *Solver) record(refresh bool) {
	s.appendPoint(s.evaluate(refresh, true))
}

// evaluate computes the exact primal, dual and gap at the current iterate
// (plus the averaged iterate and losses when configured). With refresh it
// also refreshes the stale block gaps, the sampler and the global gap of
// the cache, and counts the pass as n oracle calls; with keep it stores the
// exact block gaps.
func (s *Solver) evaluate(refresh, keep bool) TracePoint {
	pt := s.countersPoint()
	n := float64(s.n)
	withBlocks := s.cfg.Algorithm == BCFW
	if refresh && withBlocks {
		s.reanchor()
	}
	sumH := s.oraclePass(s.w, withBlocks)
	wNorm := floats.Dot(s.w, s.w)
	pt.Primal = s.lambda/2*wNorm + sumH/n
	pt.Dual, pt.Gap = math.NaN(), math.NaN()
	switch s.cfg.Algorithm {
	case BCFW:
		pt.Dual = s.dual(s.v, s.w, s.ell)
		var g float64
		for _, gi := range s.work.gBlock {
			g += gi
		}
		pt.Gap = g
		pt.ChiGap, pt.ChiCurvature, pt.PredictedSpeedup = s.nonUniformity(s.work.gBlock)
		if keep {
			if s.exactGaps == nil {
				s.exactGaps = make([]float64, s.n)
			}
			copy(s.exactGaps, s.work.gBlock)
			s.exactAt = s.steps
		}
		if refresh {
			copy(s.gapEst, s.work.gBlock)
			s.est.reset(s.gapEst)
			s.samp.refresh(s.gapEst)
			s.globalGap = pt.Gap
			s.calls += int64(s.n)
		}
		pt.GapEstimate = s.GapEstimate()
		if math.IsInf(pt.GapEstimate, 1) {
			pt.GapEstimate = math.NaN()
		} else {
			pt.ChiGapEstimate = Chi(s.gapEst)
		}
	case FW:
		pt.Dual = s.dual(s.v, s.w, s.ell)
		pt.Gap = s.lambda*floats.Dot(s.v, s.w) - s.ell + sumH/n
	}
	pt.Refresh = refresh
	s.addExtras(&pt)
	return pt
}

// addExtras fills in the averaged iterate and the task losses when the
// configuration asks for them.
func (s *Solver) addExtras(pt *TracePoint) {
	if s.avg != nil {
		pt.PrimalAvg, pt.DualAvg, pt.GapAvg = s.evaluateAverage()
	}
	if s.cfg.TrainLoss {
		pt.TrainLoss = s.meanLoss(s.p, s.w)
	}
	if s.cfg.Test != nil {
		pt.TestLoss = s.meanLoss(s.cfg.Test, s.w)
	}
}

// appendPoint appends a trace point and calls the Progress callback.
func (s *Solver) appendPoint(pt TracePoint) {
	s.trace = append(s.trace, pt)
	s.lastEvalAtSteps = s.steps
	if s.cfg.Progress != nil {
		s.cfg.Progress(pt)
	}
}

// reanchor recomputes the dual bookkeeping from the block state, so that
// rounding errors of the incremental updates do not accumulate: ell_i and
// v_i from the explicit duals (or |v_i|^2 from the dense blocks), then
// v = sum_i v_i, ell = sum_i ell_i and w = [v].
func (s *Solver) reanchor() {
	n := float64(s.n)
	clear(s.v)
	if s.blk != nil {
		for i := 0; i < s.n; i++ {
			s.blk.refreshNorm(i)
			floats.AddScaled(s.v, s.blk.scale[i], s.blk.row(i))
		}
	} else {
		sigma := 1 / (s.lambda * n)
		for i := range s.sets {
			set := &s.sets[i]
			var ell float64
			for k := range set.entries {
				if e := &set.entries[k]; e.alpha > 0 {
					psi := set.psi(k)
					psi.AddTo(s.v, sigma*e.alpha)
					ell += e.alpha * e.loss / n
				}
			}
			s.ellI[i] = ell
		}
	}
	s.ell = 0
	for _, e := range s.ellI {
		s.ell += e
	}
	if s.cfg.Box != nil {
		s.cfg.Box.clipAll(s.w, s.v)
	}
}

// countersPoint returns a trace point holding the counters and statistics
// of the current state, with every objective value NaN.
func (s *Solver) countersPoint() TracePoint {
	nan := math.NaN()
	pt := TracePoint{
		Pass: s.Passes(), OracleCalls: s.calls, Steps: s.steps, Seconds: s.elapsed.Seconds(),
		Primal: nan, Dual: nan, Gap: nan, GapEstimate: nan, TrainLoss: nan, TestLoss: nan,
		PrimalAvg: nan, DualAvg: nan, GapAvg: nan, Lambda: s.lambda,
		ChiGap: nan, ChiCurvature: nan, PredictedSpeedup: nan, ChiGapEstimate: nan,
		CacheHits: s.hits, CacheMisses: s.misses, DropSteps: s.drops,
		ActiveMean: nan, CacheMean: nan,
	}
	if s.sets != nil {
		var act, all int
		for i := range s.sets {
			act += s.sets[i].active()
			all += len(s.sets[i].entries)
		}
		if s.cfg.explicitDuals() {
			pt.ActiveMean = float64(act) / float64(s.n)
		}
		if s.cfg.Cache.Enabled {
			pt.CacheMean = float64(all) / float64(s.n)
		}
	}
	return pt
}

// evaluateAverage returns the primal, dual and gap of the weighted-average
// iterate (dual and gap NaN for SSG).
func (s *Solver) evaluateAverage() (primal, dual, gap float64) {
	if s.work.wTmp == nil {
		s.work.wTmp = make([]float64, s.d)
	}
	vBar := make([]float64, s.d)
	s.avg.value(vBar)
	wBar := vBar
	if s.cfg.Box != nil {
		wBar = s.work.wTmp
		s.cfg.Box.clipAll(wBar, vBar)
	}
	n := float64(s.n)
	sumH := s.oraclePass(wBar, false)
	primal = s.lambda/2*floats.Dot(wBar, wBar) + sumH/n
	if s.cfg.Algorithm == SSG {
		return primal, math.NaN(), math.NaN()
	}
	dual = s.dual(vBar, wBar, s.avg.ell)
	gap = s.lambda*floats.Dot(vBar, wBar) - s.avg.ell + sumH/n
	return primal, dual, gap
}
