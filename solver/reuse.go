package solver

import "github.com/fwstruct/fwstruct/solver/run"

// planeReuse is the policy by which BCFW reuses the planes (corners) that
// earlier oracle calls returned, kept in the blocks' corner sets:
//
//   - noReuse: plain BCFW; pairwise and away steps keep only their active
//     sets (the corners with dual mass);
//   - cachePolicy: the gap-based cache of Osokin et al. (2016, Alg. 5),
//     which decides step by step whether the best cached corner is good
//     enough or the oracle must be called;
//   - multiPlane: the working sets of multi-plane BCFW (Shah et al. 2015,
//     Alg. 3), with outer iterations of one exact pass and up to M
//     approximate passes.
//
// A block step (bcfwStep) asks the policy where its Frank-Wolfe corner comes
// from and tells it when the step is done; the evaluation schedule
// (core.Loop) reads the policy's clock. The policy owns what differs between
// them: the choice of corner, the eviction from the sets, which average the
// step joins, and its own state in a checkpoint.
type planeReuse interface {
	// scoring reports whether the next step needs the scores H_i(c; w) of
	// its block's corners (in work.h), which the policy reads.
	scoring() bool
	// corner sets c to the Frank-Wolfe corner of a step on block i, from
	// the max oracle or from the block's set (nil when the solver keeps
	// none), and reports whether it came from the set (no oracle call).
	// base is lambda <v_i, w> - ell_i.
	corner(i int, set *cornerSet, base float64, c *corner) (fromSet bool, err error)
	// stepped ends a step on block i, which s.steps already counts:
	// eviction from the set, averaging, the policy's own bookkeeping.
	stepped(i int, set *cornerSet)
	// clock is the step counter of the evaluation schedule.
	clock() int64
	// settled reports whether a run may stop on its pass budget here
	// (core.Phased).
	settled() bool
	// describe adds the policy's statistics to a trace point.
	describe(pt *run.Point)
	// rebase tells the policy that the dual objective jumped by delta
	// without a step (SetLambda).
	rebase(delta float64)
	// save and restore write and read the policy's part of a checkpoint.
	save(c *checkpoint)
	restore(c *checkpoint) error
	// fork adapts the checkpoint c of s to the fork the policy belongs to
	// when the multi-plane settings change (see Fork); fresh is the fork's
	// starting state.
	fork(c, fresh *checkpoint, s *Solver)
}

// newReuse returns the policy cfg asks for.
func (s *Solver) newReuse() planeReuse {
	switch {
	case !s.alg.blocks():
		return noReuse{s}
	case s.cfg.MultiPlane.Enabled:
		return newMultiPlane(s)
	case s.cfg.Cache.Enabled:
		return cachePolicy{s}
	}
	return noReuse{s}
}

// noReuse is plain BCFW: every step calls the oracle, and the corner sets
// of pairwise and away steps are exactly their active sets.
type noReuse struct{ s *Solver }

func (p noReuse) scoring() bool { return false }

func (p noReuse) corner(i int, set *cornerSet, base float64, c *corner) (bool, error) {
	return false, p.s.oracleCorner(i, set, c, base)
}

func (p noReuse) stepped(_ int, set *cornerSet) {
	if set != nil {
		set.dropInactive()
	}
	p.s.x.fold(p.s.ell)
}

func (p noReuse) clock() int64              { return p.s.steps }
func (p noReuse) settled() bool             { return true }
func (p noReuse) describe(*run.Point)       {}
func (p noReuse) rebase(float64)            {}
func (p noReuse) save(*checkpoint)          {}
func (p noReuse) restore(*checkpoint) error { return nil }

// fork: a policy without working sets keeps no multi-plane state.
func (p noReuse) fork(c, _ *checkpoint, _ *Solver) { c.MultiPlane = nil }
func (s *Solver) clock() int64                     { return s.reuse.clock() }
func (s *Solver) meanSetSize() (mean float64)      { return float64(s.storedCorners()) / float64(s.n) }

// storedCorners returns the number of corners in all the blocks' sets.
func (s *Solver) storedCorners() int {
	var all int
	for i := range s.sets {
		all += len(s.sets[i].entries)
	}
	return all
}

// bestCorner returns the position of the largest score (the first of
// equal ones).
func bestCorner(h []float64) int {
	best := 0
	for k, v := range h {
		if v > h[best] {
			best = k
		}
	}
	return best
}
