package solver

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/fwstruct/fwstruct/solver/run"
)

// multiPlane is multi-plane BCFW (Shah, Kolmogorov and Lampert 2015,
// Alg. 3) as a plane-reuse policy of the BCFW engine. Its steps are the
// engine's block steps, in the order of the permutation sampler (a fresh
// random order every n steps); it groups them into passes of n steps and
// outer iterations:
//
//	line 5: one exact pass: BCFW steps with the max oracle; the returned
//	        plane joins W_i (oracleCorner adds it to the block's set), and
//	        when |W_i| > N the plane unused for longest leaves it;
//	line 6: up to M approximate passes: BCFW steps with the best plane of
//	        W_i, H~_i(w) = max over W_i of <phi, [w 1]>, and no oracle call,
//	        until the slope rule (Sec. 3.4) ends the iteration; then the
//	        planes unused during the last T outer iterations leave W_i.
//
// A plane is used (the paper's "active") when an exact or an approximate
// oracle call returns it; the corner's lastUse holds the step of its last
// use. The working set W_i is the block's corner set; it starts with the
// ground truth's plane (line 3). The iterate stays a convex combination of
// planes of block i whatever leaves W_i (the paper's footnote 1), so every
// step is a valid BCFW step and the dual never decreases.
//
// The schedule's clock counts exact steps, the last of an iteration when
// the iteration ends: evaluations due after whole passes describe the
// iterate after the approximate passes, and a run's pass budget (which
// only exact steps spend) ends between iterations.
type multiPlane struct {
	s   *Solver
	cfg mpConfig
	n   int64

	iter       int64   // completed outer iterations
	approx     bool    // the current pass is approximate
	pos        int64   // steps made in the current pass
	passes     int     // approximate passes made in the current iteration
	exactSteps int64   // exact steps made
	starts     []int64 // first step of the last T iterations: iteration k at starts[k % T]

	rule slopeRule
	cost float64 // plane evaluations spent (ruleCost)

	lastPasses  int // approximate passes of the last completed iteration (-1: none yet)
	approxSteps int64
	oracleTime  time.Duration // in the exact steps' oracle calls
}

func newMultiPlane(s *Solver) *multiPlane {
	m := &multiPlane{s: s, cfg: s.cfg.MultiPlane, n: int64(s.n), lastPasses: -1}
	if m.cfg.planes() && m.cfg.T > 0 {
		m.starts = make([]int64, m.cfg.T)
	}
	return m
}

// scoring: approximate steps maximize over W_i; exact steps need no scores.
func (m *multiPlane) scoring() bool { return m.approx }

func (m *multiPlane) corner(i int, set *cornerSet, base float64, c *corner) (bool, error) {
	if !m.approx {
		t0 := time.Now()
		err := m.s.oracleCorner(i, set, c, base)
		m.oracleTime += time.Since(t0)
		return false, err
	}
	// The approximate oracle of block i (eq. 6): the best plane of W_i.
	best := bestCorner(m.s.work.h)
	set.entries[best].lastUse = m.s.steps
	*c = m.s.setCorner(set, best)
	return true, nil
}

func (m *multiPlane) stepped(_ int, set *cornerSet) {
	s := m.s
	if set != nil {
		if m.cfg.planes() {
			set.evict(m.cfg.N)
		} else {
			set.dropInactive() // explicit duals without working sets
		}
	}
	if m.approx {
		m.approxSteps++
		m.cost += float64(len(s.work.h)) + m.cfg.updateCost()
		if s.avgApprox != nil {
			s.avgApprox.Fold(s.ell)
		}
	} else {
		m.exactSteps++
		m.cost += m.cfg.CostRatio + m.cfg.updateCost()
		if s.avg != nil {
			s.avg.Fold(s.ell)
		}
	}
	if m.pos++; m.pos == m.n {
		m.pos = 0
		m.passEnded()
	}
}

// passEnded moves on after the last step of a pass.
func (m *multiPlane) passEnded() {
	if !m.approx {
		if !m.cfg.approximate() {
			m.endIteration()
			return
		}
		m.approx, m.passes = true, 0
		m.rule.passed(m.dual(), m.expense())
		return
	}
	m.passes++
	d, c := m.dual(), m.expense()
	if m.passes >= m.cfg.M || !m.rule.more(d, c) {
		m.endIteration()
		return
	}
	m.rule.passed(d, c)
}

// endIteration ends an outer iteration: the planes unused during its last
// T iterations leave their working sets, and the next iteration begins.
func (m *multiPlane) endIteration() {
	s := m.s
	if m.starts != nil {
		T := int64(len(m.starts))
		if first := m.iter - T + 1; first >= 0 {
			since := m.starts[first%T]
			for i := range s.sets {
				s.sets[i].dropUnused(since)
			}
		}
		m.starts[(m.iter+1)%T] = s.steps
	}
	m.iter++
	m.lastPasses, m.approx, m.passes = m.passes, false, 0
	if m.cfg.approximate() {
		m.rule.begin(m.dual(), m.expense())
	}
}

// dual returns the dual objective at the current iterate.
func (m *multiPlane) dual() float64 { return m.s.dual(m.s.x.v, m.s.x.w, m.s.ell) }

// expense returns what the pass rule measures progress against: solver
// time in seconds (ruleTime) or plane evaluations (ruleCost).
func (m *multiPlane) expense() float64 {
	if m.cfg.Rule == ruleCost {
		return m.cost
	}
	return m.s.loop.Now().Seconds()
}

func (m *multiPlane) clock() int64 {
	if m.approx {
		return m.exactSteps - 1
	}
	return m.exactSteps
}

func (m *multiPlane) settled() bool { return !m.approx }

func (m *multiPlane) describe(pt *run.Point) {
	pt.ApproxPasses = float64(m.approxSteps) / float64(m.n)
	if m.lastPasses >= 0 {
		pt.ApproxPassesLast = float64(m.lastPasses)
	}
	pt.WorkingSetMean = 0
	if m.cfg.planes() {
		pt.WorkingSetMean = m.s.meanSetSize()
	}
	if e := m.s.loop.Elapsed; e > 0 && !m.s.sched.Ahead() { // a mini-batch's oracle calls run on the workers
		pt.OracleTimeShare = float64(m.oracleTime) / float64(e)
	}
}

func (m *multiPlane) rebase(delta float64) {
	m.rule.D0 += delta
	m.rule.D1 += delta
}

// dropUnused removes the corners without dual mass that were last used
// before step since (multi-plane BCFW, Alg. 3, line 6).
func (cs *cornerSet) dropUnused(since int64) {
	for k := len(cs.entries) - 1; k >= 0; k-- {
		if e := &cs.entries[k]; e.alpha <= 0 && e.lastUse < since {
			cs.remove(k)
		}
	}
}

// savedMultiPlane is the state of multi-plane BCFW in a checkpoint.
type savedMultiPlane struct {
	Iter, Pos, ExactSteps, ApproxSteps int64
	Approx                             bool
	Passes, LastPasses                 int
	Starts                             []int64
	Rule                               slopeRule
	Cost                               float64
	OracleTime                         time.Duration
	AvgApprox                          *savedAverage
}

func (m *multiPlane) save(c *checkpoint) {
	c.MultiPlane = &savedMultiPlane{
		Iter: m.iter, Pos: m.pos, ExactSteps: m.exactSteps, ApproxSteps: m.approxSteps,
		Approx: m.approx, Passes: m.passes, LastPasses: m.lastPasses, Starts: m.starts,
		Rule: m.rule, Cost: m.cost, OracleTime: m.oracleTime,
	}
	if a := m.s.avgApprox; a != nil {
		c.MultiPlane.AvgApprox = saveAverage(a)
	}
}

func (m *multiPlane) restore(c *checkpoint) error {
	sv := c.MultiPlane
	if sv == nil {
		return errors.New("solver: load: corrupt checkpoint: no multi-plane state")
	}
	bad := sv.Iter < 0 || sv.Pos < 0 || sv.Pos >= m.n || sv.ExactSteps < 0 || sv.ApproxSteps < 0 ||
		sv.ExactSteps+sv.ApproxSteps != c.Steps || sv.Passes < 0 || sv.LastPasses < -1 || sv.OracleTime < 0 ||
		(sv.Approx && !m.cfg.approximate()) || len(sv.Starts) != len(m.starts) || math.IsNaN(sv.Cost) || sv.Cost < 0
	for _, st := range sv.Starts {
		bad = bad || st < 0 || st > c.Steps
	}
	if bad {
		return errors.New("solver: load: corrupt checkpoint: multi-plane state out of range")
	}
	m.iter, m.pos, m.exactSteps, m.approxSteps = sv.Iter, sv.Pos, sv.ExactSteps, sv.ApproxSteps
	m.approx, m.passes, m.lastPasses = sv.Approx, sv.Passes, sv.LastPasses
	copy(m.starts, sv.Starts)
	m.rule, m.cost, m.oracleTime = sv.Rule, sv.Cost, sv.OracleTime
	if a := m.s.avgApprox; a != nil {
		if sv.AvgApprox == nil {
			return errors.New("solver: load: corrupt checkpoint: no average of the approximate steps")
		}
		if err := restoreAverage(a, sv.AvgApprox, m.s.d); err != nil {
			return fmt.Errorf("%w (average of the approximate steps)", err)
		}
	}
	return nil
}
