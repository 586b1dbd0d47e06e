package solver

import (
	"errors"

	"github.com/fwstruct/fwstruct/solver/internal/core"
)

// shrinking is the active set of Exact.Shrinking, liblinear's shrinking
// (Keerthi et al. 2008, Sec. 3.3; Fan et al. 2008, App. E) as gap-based
// skipping: a block whose exact step found it settled (its block gap at
// most SettledFraction times the mean block gap of the last gap pass, e.g.
// all mass on the ground truth with every margin met: gap 0) leaves the
// active set, and the steps sweep the active blocks in a fresh random
// order every sweep. Skipped blocks cost nothing and count as no step.
// Within a block, a class without mass scoring below every class with
// mass (liblinear's be_shrunk) is no longer scored
// (classStore.shrinkClasses). When the set is empty (every block settled,
// liblinear's "active set converged") the next step asks
// for an exact gap pass (bcfwAlg.EarlyCheckDue); every gap pass visits
// every block with the exact oracle, so a certified gap covers the shrunk
// blocks too, and it rebuilds the set from its block gaps (unshrinking).
type shrinking = core.ActiveSet

// unshrink makes every block with a positive gap estimate and every class
// active again (after a gap pass).
func (s *Solver) unshrink() {
	s.shrink.Reset(s.gapEst)
	s.store.(*classStore).unshrink()
}

// shrinkStep performs the exact step on the next active block. A sweep
// ends when every active block was visited: the settled ones leave, the
// others are shuffled for the next sweep.
func (s *Solver) shrinkStep() error {
	i, ok := s.shrink.Next(s.rng)
	s.steps++
	if !ok {
		// Every block settled: the step is a no-op that counts, so a run
		// without a gap tolerance still spends its budget, and
		// EarlyCheckDue asks for a gap pass.
		s.reuse.stepped(0, nil)
		return nil
	}
	g := s.exactBlock(i)
	stays := g > SettledFraction*s.globalGap/float64(s.n)
	s.shrink.Visited(stays)
	if !stays {
		s.skipped++
	}
	s.reuse.stepped(i, nil)
	return nil
}

// SettledFraction is the threshold of shrinking: a block whose exact step
// found a block gap of at most SettledFraction times the mean block gap of
// the last gap pass leaves the active set. Before the first gap pass
// (mean gap +Inf) every block leaves after its visit, so that the first
// sweep is followed by a gap pass, which sets the scale. (On digits-like data, lambda
// 1e-3, 1e-4 to 1e-3 make the fewest steps and gap passes together to a
// gap of 1e-6; 1e-2 three times the gap passes, 0.1 twice the work.)
const SettledFraction = 1e-3

// savedShrinking is the state of shrinking in a checkpoint: the active
// set of blocks and the active classes of every block (classStore.act,
// nact).
type savedShrinking struct {
	Blocks              core.ActiveSet
	Classes, NumClasses []int32
}

func (s *Solver) saveShrinking() *savedShrinking {
	b := s.store.(*classStore)
	return &savedShrinking{Blocks: s.shrink, Classes: b.act, NumClasses: b.nact}
}

// restoreShrinking reads the active sets of c; without them (a fork
// turning shrinking on) it rebuilds them from the block gaps.
func (s *Solver) restoreShrinking(c *savedShrinking) error {
	if c == nil {
		s.unshrink()
		return nil
	}
	b := s.store.(*classStore)
	n, K := s.n, b.k
	bad := c.Blocks.Validate(n) != nil || len(c.Classes) != n*K || len(c.NumClasses) != n
	for i := 0; !bad && i < n; i++ {
		m := c.NumClasses[i]
		bad = m < 0 || int(m) > K
		for _, k := range c.Classes[i*K : i*K+K] {
			bad = bad || k < 0 || int(k) >= K
		}
	}
	if bad {
		return errors.New("solver: load: corrupt checkpoint: active sets of shrinking out of range")
	}
	s.shrink = c.Blocks
	s.shrink.Active = append([]int32(nil), c.Blocks.Active...)
	copy(b.act, c.Classes)
	copy(b.nact, c.NumClasses)
	return nil
}
