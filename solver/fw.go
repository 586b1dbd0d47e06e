package solver

import (
	"context"
	"time"

	"gonum.org/v1/gonum/floats"

	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// runFW runs batch Frank-Wolfe until a criterion of stop is met.
func (s *Solver) runFW(ctx context.Context, stop run.Stop) (run.Status, error) {
	start := time.Now()
	for {
		if st, done := s.loop.Check(ctx, stop, engine{s}, start); done {
			return st, nil
		}
		if !core.Fits(stop, s.Passes(), 1) {
			return run.StatusPasses, nil
		}
		if st, done, err := s.fwIteration(stop); err != nil || done {
			return st, err
		}
	}
}

// fwIteration performs one iteration of batch Frank-Wolfe (Lacoste-Julien
// et al. 2013, Alg. 2; with box constraints Osokin et al. 2016, Alg. 8):
// one max-oracle pass at w(k) gives the corner s, the duality gap at w(k)
// (recorded in the trace when due, at no extra cost; its pass is counted
// before, as for the gap passes of BCFW) and the line search. It returns
// done when the gap at w(k) reached Stop.Gap.
//
// With an approximate oracle (and an exact one for certificates), the
// corner comes from the approximate oracle and the recorded point from an
// exact evaluation.
func (s *Solver) fwIteration(stop run.Stop) (run.Status, bool, error) {
	t0 := time.Now()
	n := float64(s.n)
	sigma := s.sigma()
	for k := range s.work.workers {
		ws := &s.work.workers[k]
		if ws.acc == nil {
			ws.acc = make([]float64, s.d)
		} else {
			clear(ws.acc)
		}
		ws.ell = 0
	}
	h := s.work.hBlock
	w := s.x.w
	refs, err := s.batchRefs(w) // nil unless the oracle is relative
	if err != nil {
		return 0, true, err
	}
	err = s.parallel(func(ws *workerScratch, i int) error {
		var err error
		var ref float64
		if refs != nil {
			ref = refs[i]
		}
		ws.y, h[i], err = s.stepOracle(i, w, ref, ws.y)
		if err != nil {
			return err
		}
		s.p.Psi(i, ws.y, &ws.psi)
		ws.psi.AddTo(ws.acc, sigma)
		ws.ell += s.p.Loss(i, ws.y) / n
		return nil
	})
	if err != nil {
		return 0, true, err
	}
	vs := s.work.workers[0].acc
	ellS := s.work.workers[0].ell
	for k := 1; k < len(s.work.workers); k++ {
		floats.Add(vs, s.work.workers[k].acc)
		ellS += s.work.workers[k].ell
	}
	sumH := floats.Sum(h)
	gap := s.lambda*floats.Dot(s.x.v, w) - s.ell + sumH/n
	s.calls += int64(s.n)
	s.loop.Elapsed += time.Since(t0)

	due := s.loop.LastEval < 0 || s.steps >= s.loop.NextGap || s.steps >= s.loop.NextTrace
	converged := stop.Gap > 0 && gap <= stop.Gap && !s.approx
	if (due || converged) && s.loop.LastEval != s.steps {
		if s.approx && s.exact != nil {
			if err := s.record(false); err != nil {
				return 0, true, err
			}
			last, _ := s.Last()
			converged = stop.Gap > 0 && last.Gap <= stop.Gap
		} else {
			pt := s.countersPoint()
			pt.Primal = s.lambda/2*floats.Dot(w, w) + sumH/n
			pt.Dual = s.dual(s.x.v, w, s.ell)
			pt.Gap = gap
			pt.ApproximateGap = s.exact == nil
			if err := s.addExtras(&pt); err != nil {
				return 0, true, err
			}
			s.appendPoint(pt)
		}
	}
	if s.steps >= s.loop.NextGap {
		s.loop.NextGap = s.loop.Advance(s.loop.NextGap, s.steps, s.cfg.GapEvery)
	}
	if s.steps >= s.loop.NextTrace {
		s.loop.NextTrace = s.loop.Advance(s.loop.NextTrace, s.steps, s.cfg.TraceEvery)
	}
	if converged {
		return run.StatusConverged, true, nil
	}

	t0 = time.Now()
	if s.cp != nil {
		s.cpStep(vs, ellS, gap) // the fully corrective step (cp.go)
	} else {
		// vs <- v - v_s, the negative FW direction; v <- v - gamma (v - v_s).
		floats.SubTo(vs, s.x.v, vs)
		gamma := 2 / (float64(s.steps) + 2)
		if s.cfg.StepSize == run.LineSearch {
			gamma = core.LineSearch(gap, s.lambda*floats.Dot(vs, vs), 1)
		}
		s.x.addDense(vs, -gamma)
		s.ell = (1-gamma)*s.ell + gamma*ellS
	}
	s.x.fold(s.ell)
	s.steps++
	s.loop.Elapsed += time.Since(t0)
	return 0, false, nil
}
