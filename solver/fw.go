package solver

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/floats"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// batchAlg is batch Frank-Wolfe (Lacoste-Julien et al. 2013, Alg. 2; with
// box constraints Osokin et al. 2016, Alg. 8) or, with cutting, the
// 1-slack cutting-plane method as fully corrective Frank-Wolfe (cp.go). An
// iteration is one max-oracle pass at w(k), which gives the corner s and
// the duality gap at w(k), followed by the step. The gap comes for free, so
// the evaluations the schedule asks for are made from the pass the next
// iteration uses (counted once, before the point is recorded, as for the
// gap passes of BCFW), and the run stops as soon as a pass certifies
// Stop.Gap.
//
// With an approximate oracle (and an exact one for certificates), the
// corner comes from the approximate oracle and the recorded point from an
// exact evaluation, which certifies Stop.Gap.
type batchAlg struct {
	engineBase
	cutting bool
	pass    batchPass
}

// batchPass is the oracle pass of an iteration.
type batchPass struct {
	// at is the step whose iterate the pass was counted for (-1: none);
	// valid says whether the fields below hold it (a pass counted before a
	// Save or a Fork is computed again, not counted again).
	at    int64
	valid bool
	// vs = 1/(lambda n) sum_i psi_i(y_i*) and ellS = 1/n sum_i L_i(y_i*)
	// describe the vertex s; sumH = sum_i H_i(y_i*; w) and gap is the
	// duality gap at w.
	vs              []float64
	ellS, sumH, gap float64
	// The labelings, psi and losses of the blocks (scratch, reused).
	ys   [][]int32
	psis []oracles.SparseVec
	loss []float64
}

// Record makes an iteration whose pass is recorded: the evaluation of
// w(k) comes with the iteration that uses its pass (as a gap pass of BCFW
// is counted before its point, the pass is counted before the point),
// and the iteration's time is solver time, the evaluation's (the point's
// losses and averages) excluded.
func (a *batchAlg) Record(bool) error {
	t0 := time.Now()
	err := a.iterate(true)
	a.s.loop.Elapsed += time.Since(t0)
	return err
}

// Step makes an iteration.
func (a *batchAlg) Step() error { return a.iterate(false) }

// iterate makes an iteration: the oracle pass at w(k) (unless a counted
// one is at hand), its evaluation when record is set or when it certifies
// Stop.Gap (unless w(k) is recorded already), and the step towards its
// vertex unless Stop.Gap is certified at w(k) (Reached then stops the
// run).
func (a *batchAlg) iterate(record bool) error {
	s := a.s
	p, err := a.ensurePass()
	if err != nil {
		return err
	}
	if (record || a.converged(s.stop, p)) && s.loop.LastEval != s.steps {
		t0 := time.Now()
		err := a.recordPass(p)
		s.loop.Exclude(time.Since(t0)) // the pass is the iteration's, its evaluation is not
		if err != nil {
			return err
		}
	}
	if _, done := a.Reached(s.stop); done {
		return nil
	}
	if a.cutting {
		if err := s.cpStep(p); err != nil { // the fully corrective step (cp.go)
			return err
		}
	} else {
		// vs <- v - v_s, the negative FW direction; v <- v - gamma (v - v_s).
		vs := p.vs
		floats.SubTo(vs, s.x.v, vs)
		gamma := 2 / (float64(s.steps) + 2)
		if s.cfg.StepSize == run.LineSearch {
			gamma = core.LineSearch(p.gap, s.lambda*floats.Dot(vs, vs), 1)
		}
		s.x.addDense(vs, -gamma)
		s.ell = (1-gamma)*s.ell + gamma*p.ellS
	}
	s.x.fold(s.ell)
	s.steps++
	p.valid = false
	return nil
}

// converged reports whether the pass p at the current iterate certifies
// Stop.Gap (an approximate oracle's gap certifies nothing: its recorded
// exact evaluations do, see Reached).
func (a *batchAlg) converged(stop run.Stop, p *batchPass) bool {
	return stop.Gap > 0 && p.gap <= stop.Gap && !a.s.approx
}

// Reached reports a pass at the current iterate (or, with an approximate
// oracle, an exact evaluation of it) that certifies Stop.Gap.
func (a *batchAlg) Reached(stop run.Stop) (run.Status, bool) {
	s := a.s
	if stop.Gap <= 0 {
		return 0, false
	}
	if s.approx {
		if last, ok := s.Last(); ok && s.evalAt == s.steps && !last.ApproximateGap && last.Gap <= stop.Gap {
			return run.StatusConverged, true
		}
		return 0, false
	}
	if p := &a.pass; p.at == s.steps && p.valid && a.converged(stop, p) {
		return run.StatusConverged, true
	}
	return 0, false
}

func (a *batchAlg) EarlyCheckDue(run.Stop) bool { return false }

// StepCost is a pass, unless the pass at the current iterate was counted
// by an evaluation.
func (a *batchAlg) StepCost() float64 {
	if a.pass.at == a.s.steps {
		return 0
	}
	return 1
}

// RecordCost: an evaluation is the pass the next iteration uses.
func (a *batchAlg) RecordCost(bool) float64 { return a.StepCost() }

func (a *batchAlg) setup() error {
	a.pass.at = -1
	if a.cutting {
		a.s.cp = newCPState(a.s.d)
		if a.s.cfg.CPCache > 0 {
			a.s.sets = make([]cornerSet, a.s.n)
		}
	}
	return nil
}

// schedule: the clock counts iterations, one to a pass.
func (a *batchAlg) schedule() core.Loop {
	return core.NewLoop(1, a.s.cfg.GapEvery, a.s.cfg.TraceEvery, core.Observations)
}

func (a *batchAlg) blocks() bool   { return false }
func (a *batchAlg) projects() bool { return false }
func (a *batchAlg) dual() bool     { return true }

func (a *batchAlg) certify(pt *run.Point, sumH float64, _ evalMode) {
	s := a.s
	pt.Dual = s.dual(s.x.v, s.x.w, s.ell)
	pt.Gap = s.lambda*floats.Dot(s.x.v, s.x.w) - s.ell + sumH/float64(s.n)
}

// stoppable: the gap of every iterate is known.
func (a *batchAlg) stoppable() core.Stoppable {
	st := a.engineBase.stoppable()
	st.GapEveryStep = true
	return st
}

// rescale: the pass at the old lambda is not reused (w is kept, but v_s
// and the gap scale with lambda); the cutting plane moves mass to the
// starting vertex.
func (a *batchAlg) rescale(rho float64) {
	a.pass.at, a.pass.valid = -1, false
	if a.cutting {
		a.s.cp.rescale(rho)
	}
}

// raise: the pass at the old lambda is not reused, and w = 1/lambda sum
// mu u (the planes of the cutting plane and its weights mu do not depend
// on lambda) scales by f.
func (a *batchAlg) raise(f float64) {
	a.pass.at, a.pass.valid = -1, false
	v := append([]float64(nil), a.s.x.v...)
	for j := range v {
		v[j] *= f
	}
	a.s.x.set(v)
}

func (a *batchAlg) save(c *checkpoint) {
	c.BatchPassCounted = a.pass.at == a.s.steps
	if a.cutting {
		a.s.cp.save(c)
	}
}

func (a *batchAlg) restore(c *checkpoint) error {
	a.pass.at, a.pass.valid = -1, false
	if c.BatchPassCounted {
		a.pass.at = a.s.steps
	}
	if a.cutting {
		return a.s.cp.restore(c, a.s.d)
	}
	return nil
}

// ensurePass returns the oracle pass at the current iterate, making it
// when needed and counting it unless it was counted already.
func (a *batchAlg) ensurePass() (*batchPass, error) {
	s, p := a.s, &a.pass
	if p.at == s.steps && p.valid {
		return p, nil
	}
	if err := a.makePass(p); err != nil {
		return nil, err
	}
	if p.at != s.steps {
		s.calls += int64(s.n)
		p.at = s.steps
	}
	p.valid = true
	return p, nil
}

// makePass calls the step oracle of every block at w (in parallel) and
// sums the vertex up in block order, so that the result does not depend on
// the number of workers.
func (a *batchAlg) makePass(p *batchPass) error {
	s := a.s
	if p.ys == nil {
		p.ys, p.psis, p.loss, p.vs = make([][]int32, s.n), make([]oracles.SparseVec, s.n), make([]float64, s.n), make([]float64, s.d)
	}
	h := s.work.hBlock
	w := s.x.w
	refs, err := s.batchRefs(w) // nil unless the oracle is relative
	if err != nil {
		return err
	}
	err = s.parallel(func(_ *workerScratch, i int) error {
		var err error
		var ref float64
		if refs != nil {
			ref = refs[i]
		}
		p.ys[i], h[i], err = s.stepOracle(i, w, ref, p.ys[i])
		if err != nil {
			return err
		}
		s.p.Psi(i, p.ys[i], &p.psis[i])
		p.loss[i] = s.p.Loss(i, p.ys[i])
		psi := &p.psis[i]
		for k, j := range psi.Idx { // summed below, outside the worker
			if j < 0 || int(j) >= s.d {
				return &oracles.OracleError{Example: i, Err: fmt.Errorf("psi index %d outside [0, %d)", j, s.d)}
			}
			if v := psi.Val[k]; math.IsNaN(v) || math.IsInf(v, 0) {
				return &oracles.OracleError{Example: i, Err: fmt.Errorf("psi value %v at index %d", v, j)}
			}
		}
		if refs == nil { // a relative oracle's H is relative to the dual state
			return checkAnswer(i, h[i], p.loss[i], p.psis[i], w)
		}
		return nil
	})
	if err != nil {
		return err
	}
	n := float64(s.n)
	sigma := s.sigma()
	clear(p.vs)
	p.ellS = 0
	for i := range p.psis {
		p.psis[i].AddTo(p.vs, sigma)
		p.ellS += p.loss[i] / n
	}
	p.sumH = floats.Sum(h)
	p.gap = s.lambda*floats.Dot(s.x.v, w) - s.ell + p.sumH/n
	if !s.approx { // the gap certifies Stop.Gap without an evaluation
		pt := run.Blank()
		pt.Primal, pt.Dual, pt.Gap = s.lambda/2*floats.Dot(w, w)+p.sumH/n, s.dual(s.x.v, w, s.ell), p.gap
		return core.Certify(&pt)
	}
	return nil
}

// recordPass appends the evaluation of the current iterate that the pass
// p gives (an exact observe-only evaluation with an approximate oracle
// that has an exact one).
func (a *batchAlg) recordPass(p *batchPass) error {
	s := a.s
	if s.approx && s.exact != nil {
		return s.record(false)
	}
	pt := s.countersPoint()
	w := s.x.w
	pt.Primal = s.lambda/2*floats.Dot(w, w) + p.sumH/float64(s.n)
	pt.Dual = s.dual(s.x.v, w, s.ell)
	pt.Gap = p.gap
	pt.ApproximateGap = s.exact == nil
	if err := s.addExtras(&pt, true); err != nil {
		return err
	}
	if err := core.Certify(&pt); err != nil {
		return err
	}
	s.markEvaluated()
	s.appendPoint(pt)
	return nil
}
