package solver

import "gonum.org/v1/gonum/floats"

// ssgStep performs one stochastic subgradient step on example i with the
// Pegasos step size 1/(lambda (k+1)) (Lacoste-Julien et al. 2013, Sec. 6):
// w <- (1 - 1/(k+1)) w + psi_i(y*) / (lambda (k+1)), projected onto the box
// when there is one.
func (s *Solver) ssgStep() {
	i := s.samp.next(s.rng)
	s.work.y, _ = s.p.MaxOracle(i, s.w, s.work.y)
	s.calls++
	s.p.Psi(i, s.work.y, &s.work.psi)
	s.observeRadius(i, s.work.psi.NormSq())
	gamma := 1 / float64(s.steps+1)
	floats.Scale(1-gamma, s.w)
	s.work.psi.AddTo(s.w, gamma/s.lambda)
	if s.cfg.Box != nil {
		s.cfg.Box.clipAll(s.w, s.w)
	}
	if s.avg != nil {
		s.avg.update(s.w, 0)
	}
	s.steps++
}
