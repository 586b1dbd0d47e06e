package solver

import (
	"context"
	"time"

	"gonum.org/v1/gonum/floats"
)

// fwIteration performs one iteration of batch Frank-Wolfe (Lacoste-Julien
// et al. 2013, Alg. 2; with box constraints Osokin et al. 2016, Alg. 8):
// one max-oracle pass at w(k) gives the corner s, the exact duality gap at
// w(k) (recorded in the trace when due, at no extra cost) and the line
// search. It returns done when a stopping criterion holds at w(k).
func (s *Solver) fwIteration(ctx context.Context, stop Stop, start time.Time) (Status, bool) {
	t0 := time.Now()
	n := float64(s.n)
	sigma := 1 / (s.lambda * n)
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
	s.parallel(func(k, i int) {
		ws := &s.work.workers[k]
		ws.y, h[i] = s.p.MaxOracle(i, s.w, ws.y)
		s.p.Psi(i, ws.y, &ws.psi)
		ws.psi.AddTo(ws.acc, sigma)
		ws.ell += s.p.Loss(i, ws.y) / n
	})
	vs := s.work.workers[0].acc
	ellS := s.work.workers[0].ell
	for k := 1; k < len(s.work.workers); k++ {
		floats.Add(vs, s.work.workers[k].acc)
		ellS += s.work.workers[k].ell
	}
	var sumH float64
	for _, v := range h {
		sumH += v
	}
	gap := s.lambda*floats.Dot(s.v, s.w) - s.ell + sumH/n
	s.elapsed += time.Since(t0)

	due := s.lastEvalAtSteps < 0 || s.steps >= s.nextGap || s.steps >= s.nextTrace
	converged := stop.Gap > 0 && gap <= stop.Gap
	if (due || converged) && s.lastEvalAtSteps != s.steps {
		pt := s.countersPoint()
		pt.Primal = s.lambda/2*floats.Dot(s.w, s.w) + sumH/n
		pt.Dual = s.dual(s.v, s.w, s.ell)
		pt.Gap = gap
		s.addExtras(&pt)
		s.appendPoint(pt)
	}
	if s.steps >= s.nextGap {
		s.nextGap = s.advance(s.nextGap, s.cfg.GapEvery)
	}
	if s.steps >= s.nextTrace {
		s.nextTrace = s.advance(s.nextTrace, s.cfg.TraceEvery)
	}
	if converged {
		return StatusConverged, true
	}
	if st, done := s.checkStop(ctx, stop, start); done {
		return st, true
	}

	t0 = time.Now()
	// vs <- v - v_s, the negative FW direction; v <- v - gamma (v - v_s).
	floats.SubTo(vs, s.v, vs)
	gamma := 2 / (float64(s.steps) + 2)
	if s.cfg.StepSize == LineSearch {
		gamma = lineSearch(gap, s.lambda*floats.Dot(vs, vs), 1)
	}
	floats.AddScaled(s.v, -gamma, vs)
	s.ell = (1-gamma)*s.ell + gamma*ellS
	if s.cfg.Box != nil {
		s.cfg.Box.clipAll(s.w, s.v)
	}
	if s.avg != nil {
		s.avg.update(s.v, s.ell)
	}
	s.steps++
	s.calls += int64(s.n)
	s.elapsed += time.Since(t0)
	return 0, false
}
