package solver

import "errors"

// shrinking is the active set of Config.Shrinking, liblinear's shrinking
// (Keerthi et al. 2008, Sec. 3.3; Fan et al. 2008, App. E) as gap-based
// skipping: a block whose exact step found it settled (its block gap at
// most SettledFraction times the mean block gap of the last gap pass, e.g.
// all mass on the ground truth with every margin met: gap 0) leaves the
// active set, and the steps sweep the active blocks in a fresh random
// order every sweep. Skipped blocks cost nothing and count as no step.
// Within a block, a class without mass scoring below every class with
// mass (liblinear's be_shrunk) is no longer scored (classStore.shrinkClasses). When the set is empty (every
// block settled, liblinear's "active set converged") the next step asks
// for an exact gap pass (bcfwAlg.EarlyCheckDue); every gap pass visits
// every block with the exact oracle, so a certified gap covers the shrunk
// blocks too, and it rebuilds the set from its block gaps (unshrinking).
type shrinking struct {
	active []int32 // the blocks of the current sweep, in order
	pos    int     // the next position in active
	keep   int     // active[:keep] holds the blocks of this sweep that stay
	// settled is set when a whole sweep found every block settled.
	settled bool
}

// reset makes every block with a positive (or unknown) gap estimate
// active, as after a gap pass.
func (sh *shrinking) reset(gapEst []float64) {
	sh.active = sh.active[:0]
	for i, g := range gapEst {
		if g > 0 {
			sh.active = append(sh.active, int32(i))
		}
	}
	sh.pos, sh.keep, sh.settled = len(sh.active), len(sh.active), len(sh.active) == 0
}

// unshrink makes every block with a positive gap estimate and every class
// active again (after a gap pass).
func (s *Solver) unshrink() {
	s.shrink.reset(s.gapEst)
	s.store.(*classStore).unshrink()
}

// shrinkStep performs the exact step on the next active block. A sweep
// ends when every active block was visited: the settled ones leave, the
// others are shuffled for the next sweep.
func (s *Solver) shrinkStep() error {
	sh := &s.shrink
	if sh.pos >= len(sh.active) {
		sh.active = sh.active[:sh.keep]
		s.rng.Shuffle(len(sh.active), func(a, b int) { sh.active[a], sh.active[b] = sh.active[b], sh.active[a] })
		sh.pos, sh.keep = 0, 0
		if len(sh.active) == 0 {
			// Every block settled: the step is a no-op that counts, so a
			// run without a gap tolerance still spends its budget, and
			// EarlyCheckDue asks for a gap pass.
			sh.settled = true
			s.steps++
			s.reuse.stepped(0, nil)
			return nil
		}
	}
	i := int(sh.active[sh.pos])
	sh.pos++
	s.steps++
	if g := s.exactBlock(i); g > SettledFraction*s.globalGap/float64(s.n) {
		sh.active[sh.keep] = int32(i)
		sh.keep++
	} else {
		s.skipped++ // leaves the active set
	}
	s.reuse.stepped(i, nil)
	return nil
}

// SettledFraction is the threshold of shrinking: a block whose exact step
// found a block gap of at most SettledFraction times the mean block gap of
// the last gap pass leaves the active set. (On digits-like data, lambda
// 1e-3, 1e-4 to 1e-3 make the fewest steps and gap passes together to a
// gap of 1e-6; 1e-2 three times the gap passes, 0.1 twice the work.)
const SettledFraction = 1e-3

// savedShrinking is the active set in a checkpoint.
type savedShrinking struct {
	Active    []int32
	Pos, Keep int
	Settled   bool
	// the active classes of the blocks (classStore.act, nact)
	Classes, NumClasses []int32
}

func (s *Solver) saveShrinking() *savedShrinking {
	sh, b := &s.shrink, s.store.(*classStore)
	return &savedShrinking{Active: sh.active, Pos: sh.pos, Keep: sh.keep, Settled: sh.settled, Classes: b.act, NumClasses: b.nact}
}

// restoreShrinking reads the active sets of c; without them (a fork
// turning shrinking on) it rebuilds them from the block gaps.
func (s *Solver) restoreShrinking(c *savedShrinking) error {
	if c == nil {
		s.unshrink()
		return nil
	}
	sh, b := &s.shrink, s.store.(*classStore)
	n, K := s.n, b.k
	bad := c.Pos < 0 || c.Pos > len(c.Active) || c.Keep < 0 || c.Keep > c.Pos || len(c.Active) > n ||
		len(c.Classes) != n*K || len(c.NumClasses) != n
	for _, i := range c.Active {
		bad = bad || i < 0 || int(i) >= n
	}
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
	sh.active = append(sh.active[:0], c.Active...)
	sh.pos, sh.keep, sh.settled = c.Pos, c.Keep, c.Settled
	copy(b.act, c.Classes)
	copy(b.nact, c.NumClasses)
	return nil
}
