package solver

// ssgStep performs one stochastic subgradient step on example i with the
// Pegasos step size 1/(lambda (k+1)) (Lacoste-Julien et al. 2013, Sec. 6):
// w <- (1 - 1/(k+1)) w + psi_i(y*) / (lambda (k+1)), projected onto the box
// when there is one. Its iterate is w itself (v is unused).
func (s *Solver) ssgStep() error {
	i := s.samp.Next(s.rng)
	y, _, err := s.oracle(i, s.x.w, s.work.y)
	s.work.y = y
	if err != nil {
		return err
	}
	s.calls++
	s.p.Psi(i, y, &s.work.psi)
	s.observeRadius(i, s.work.psi.NormSq())
	gamma := 1 / float64(s.steps+1)
	s.x.scale(1 - gamma)
	s.x.addSparse(&s.work.psi, gamma/s.lambda)
	if s.box != nil {
		for j, v := range s.x.v {
			if c := s.box.clip(j, v); c != v {
				s.x.add(int32(j), c-v)
			}
		}
	}
	s.x.fold(0)
	s.steps++
	return nil
}
