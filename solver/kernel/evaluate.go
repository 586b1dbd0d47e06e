package kernel

import (
	"math"

	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// pass is an exact oracle pass over the training set at an expansion, and
// what the evaluation derives from it.
type pass struct {
	at      int64 // steps when computed
	counted bool  // its n oracle calls were counted (a gap pass)
	yStar   []int32
	hStar   []float64 // H_i(y_i*; w)
	hBar    []float64 // sum_c alpha_i(c) H_i(c; w)
	// wNormSq is |w|^2 = 1/(lambda n) sum_j sum_c beta_j(c) <w, phi(x_j, c)>.
	wNormSq  float64
	ell      float64 // b^T alpha, from alpha
	trainErr float64 // mean 0-1 loss of the predictions
	active   float64 // mean number of classes with alpha_i(c) > 0
}

// oraclePass runs the exact oracle of every example at expansion e: the
// kernel values of every example against the support vectors come as
// kernel blocks (sweep) on the workers, exact kernel values (the cache is
// not read: with float32 rows, the certificate is still that of the
// kernel itself). Sums are taken in example order, so the result does not
// depend on the number of workers.
func (s *Solver) oraclePass(e *expansion) *pass {
	n, kk := s.n, s.k
	ps := &pass{at: s.steps, yStar: make([]int32, n), hStar: make([]float64, n), hBar: make([]float64, n)}
	wn := make([]float64, n)
	wrong := make([]bool, n)
	beta := s.betas(e)
	scratch := s.scratch()
	s.cfg.Kernel.sweep(s.in, e.sv, s.in, s.in.all(), scratch, func(w, i int, kv []float64) {
		sc := scratch[w].scoresOf(kk)
		s.expansionScores(beta, kv, sc)
		a := e.alpha[i*kk : (i+1)*kk]
		y := s.in.y[i]
		yStar, hStar, hBar := blockOracle(a, sc, y)
		ps.yStar[i], ps.hStar[i], ps.hBar[i] = int32(yStar), hStar, hBar
		for c, v := range a {
			b := -v
			if int32(c) == y {
				b++
			}
			wn[i] += b * sc[c]
		}
		wrong[i] = int32(predict(sc)) != y
	})
	var errs, act int
	for i := 0; i < n; i++ {
		ps.wNormSq += wn[i]
		ps.ell += 1 - e.alpha[i*kk+int(s.in.y[i])]
		if wrong[i] {
			errs++
		}
		for _, v := range e.alpha[i*kk : (i+1)*kk] {
			if v > 0 {
				act++
			}
		}
	}
	ps.wNormSq /= s.lambda * float64(n)
	ps.ell /= float64(n)
	ps.trainErr = float64(errs) / float64(n)
	ps.active = float64(act) / float64(n)
	return ps
}

// objectives returns the primal, dual and gap of a pass: primal = lambda/2
// |w|^2 + 1/n sum_i H_i*, dual = ell - lambda/2 |w|^2, gap = 1/n sum_i
// (H_i* - sum_c alpha_i(c) H_i(c)), the sum of the exact block gaps; and
// the block gaps.
func (s *Solver) objectives(ps *pass) (primal, dual, gap float64, gaps []float64) {
	n := float64(s.n)
	gaps = make([]float64, s.n)
	var sumH float64
	for i := range gaps {
		gaps[i] = (ps.hStar[i] - ps.hBar[i]) / n
		gap += gaps[i]
		sumH += ps.hStar[i]
	}
	primal = s.lambda/2*ps.wNormSq + sumH/n
	dual = ps.ell - s.lambda/2*ps.wNormSq
	return primal, dual, gap, gaps
}

// testError returns the mean 0-1 loss of expansion e on the test inputs
// (their kernel values as kernel blocks on the workers).
func (s *Solver) testError(e *expansion) float64 {
	m := s.test.len()
	wrong := make([]bool, m)
	beta := s.betas(e)
	scratch := s.scratch()
	s.cfg.Kernel.sweep(s.in, e.sv, s.test, s.test.all(), scratch, func(w, i int, kv []float64) {
		sc := scratch[w].scoresOf(s.k)
		s.expansionScores(beta, kv, sc)
		wrong[i] = int32(predict(sc)) != s.test.y[i]
	})
	errs := 0
	for _, b := range wrong {
		if b {
			errs++
		}
	}
	return float64(errs) / float64(m)
}

// evaluate computes the trace point of the current iterate (and of the
// average when kept) without changing the state; the pass is returned for
// record to commit.
func (s *Solver) evaluate(refresh bool) (run.Point, *pass) {
	pt := run.Blank()
	pt.Pass, pt.OracleCalls, pt.Steps, pt.Seconds = s.Passes(), s.calls, s.steps, s.loop.Elapsed.Seconds()
	pt.Refresh, pt.Lambda = refresh, s.lambda
	e := s.current()
	ps := s.oraclePass(&e)
	pt.Primal, pt.Dual, pt.Gap, _ = s.objectives(ps)
	pt.ActiveMean = ps.active
	if s.trainLoss {
		pt.TrainLoss = ps.trainErr
	}
	if s.test != nil {
		pt.TestLoss = s.testError(&e)
	}
	if s.avg != nil {
		a := s.average()
		pa := s.oraclePass(&a)
		pt.PrimalAvg, pt.DualAvg, pt.GapAvg, _ = s.objectives(pa)
		if s.test != nil {
			pt.TestLossAvg = s.testError(&a)
		}
	}
	return pt, ps
}

// record evaluates the current iterate and appends the trace point; with
// refresh it is the algorithm's gap pass: it counts n oracle calls,
// refreshes the stale block gaps (and gap sampling) and re-anchors ell.
func (s *Solver) record(refresh bool) error {
	pt, ps := s.evaluate(refresh)
	if err := core.Certify(&pt); err != nil {
		return err
	}
	_, _, _, gaps := s.objectives(ps)
	s.exactGaps, s.exactAt, s.exactGap = gaps, s.steps, pt.Gap
	if refresh {
		s.calls += int64(s.n)
		pt.Pass, pt.OracleCalls = s.Passes(), s.calls
		ps.counted = true
		if s.cfg.Algorithm == run.BCFW {
			copy(s.gapEst, gaps)
			s.est.Reset(s.gapEst)
			s.samp.Refresh(s.gapEst)
			s.ell = ps.ell
			s.globalGap = pt.Gap
			if s.cfg.Shrinking {
				s.active.Reset(s.gapEst)
			}
		}
	}
	if s.cfg.Algorithm == run.FW {
		s.pending = ps // the next iteration's oracle pass
	} else if g := s.GapEstimate(); !math.IsInf(g, 1) {
		pt.GapEstimate = g
		pt.ChiGapEstimate = run.Chi(s.gapEst)
	}
	pt.EvalSeconds = s.loop.EvalNow().Seconds()
	s.trace = append(s.trace, pt)
	s.loop.LastEval = s.steps
	if s.progress != nil {
		s.progress(pt)
	}
	return nil
}

// pendingCounted reports whether the oracle pass of the current iterate was
// counted already (by a gap pass).
func (s *Solver) pendingCounted() bool {
	return s.pending != nil && s.pending.at == s.steps && s.pending.counted
}
