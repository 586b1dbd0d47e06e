package solver

import (
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// ssgStep performs one stochastic subgradient step on example i with the
// Pegasos step size 1/(lambda (k+1)) (Lacoste-Julien et al. 2013, Sec. 6):
// w <- (1 - 1/(k+1)) w + psi_i(y*) / (lambda (k+1)), projected onto the box
// when there is one. Its iterate is w itself (v is unused).
func (s *Solver) ssgStep() (err error) {
	i := s.samp.Next(s.rng)
	defer core.Recover(i, &err)
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

// ssgAlg is the stochastic subgradient method: no dual, no gap; its
// evaluations record the primal without counting their oracle calls.
type ssgAlg struct{ engineBase }

func (a ssgAlg) Step() error                           { return a.s.ssgStep() }
func (a ssgAlg) Record(refresh bool) error             { return a.s.record(refresh) }
func (a ssgAlg) Reached(run.Stop) (run.Status, bool)   { return 0, false }
func (a ssgAlg) EarlyCheckDue(run.Stop) bool           { return false }
func (a ssgAlg) setup() error                          { return nil }
func (a ssgAlg) blocks() bool                          { return false }
func (a ssgAlg) projects() bool                        { return true }
func (a ssgAlg) dual() bool                            { return false }
func (a ssgAlg) certify(*run.Point, float64, evalMode) {}
func (a ssgAlg) rescale(float64)                       {}
func (a ssgAlg) raise(float64)                         {}

// schedule: the clock counts steps, n to a pass; the evaluations are
// observe-only.
func (a ssgAlg) schedule() core.Loop {
	return core.NewLoop(int64(a.s.n), a.s.cfg.GapEvery, a.s.cfg.TraceEvery, core.Observations)
}

func (a ssgAlg) stoppable() core.Stoppable {
	st := a.engineBase.stoppable()
	st.NoGap = "ssg has no duality gap, so Stop.Gap can never stop it; use Passes or Duration"
	return st
}
