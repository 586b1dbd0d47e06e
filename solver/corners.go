package solver

import (
	"github.com/fwstruct/fwstruct/oracles"
)

// cornerEntry is a corner held by a block: in its cache (working set C_i of
// Osokin et al. 2016, Alg. 5), in its active set S_i (alpha > 0, pairwise and
// away steps, Alg. 3-4), or both. The active set lives inside the cache, in
// one data structure, as in the paper.
type cornerEntry struct {
	c       *oracles.Corner
	alpha   float64 // dual mass alpha_i(y); tracked only with explicit duals
	lastUse int64   // step of the last insertion or cache hit (for eviction)
}

// cornerSet is the set of corners of one block.
type cornerSet struct {
	entries []cornerEntry
}

// find returns the position of labeling y (with hash h), or -1.
func (cs *cornerSet) find(y []int32, h uint64) int {
	for k := range cs.entries {
		c := cs.entries[k].c
		if c.Hash == h && oracles.SameLabeling(c.Y, y) {
			return k
		}
	}
	return -1
}

// add appends a corner with zero mass and returns its position.
func (cs *cornerSet) add(c *oracles.Corner, step int64) int {
	cs.entries = append(cs.entries, cornerEntry{c: c, lastUse: step})
	return len(cs.entries) - 1
}

// remove deletes the entry at position k, keeping the order of the others.
func (cs *cornerSet) remove(k int) {
	copy(cs.entries[k:], cs.entries[k+1:])
	cs.entries[len(cs.entries)-1] = cornerEntry{}
	cs.entries = cs.entries[:len(cs.entries)-1]
}

// active returns the number of corners with positive mass.
func (cs *cornerSet) active() int {
	m := 0
	for k := range cs.entries {
		if cs.entries[k].alpha > 0 {
			m++
		}
	}
	return m
}

// mass returns the sum of the masses.
func (cs *cornerSet) mass() float64 {
	var s float64
	for k := range cs.entries {
		s += cs.entries[k].alpha
	}
	return s
}

// evict removes inactive corners, least recently used first, until the set
// holds at most maxSize corners or only active ones. keep is a position that
// must survive (the corner of the current step); evict returns its new
// position.
func (cs *cornerSet) evict(maxSize, keep int) int {
	for len(cs.entries) > maxSize {
		victim := -1
		for k := range cs.entries {
			e := &cs.entries[k]
			if k == keep || e.alpha > 0 {
				continue
			}
			if victim < 0 || e.lastUse < cs.entries[victim].lastUse {
				victim = k
			}
		}
		if victim < 0 {
			return keep
		}
		cs.remove(victim)
		if victim < keep {
			keep--
		}
	}
	return keep
}

// dropInactive removes the corners without mass (used without a cache, where
// the set is exactly the active set).
func (cs *cornerSet) dropInactive() {
	out := cs.entries[:0]
	for _, e := range cs.entries {
		if e.alpha > 0 {
			out = append(out, e)
		}
	}
	for k := len(out); k < len(cs.entries); k++ {
		cs.entries[k] = cornerEntry{}
	}
	cs.entries = out
}

func hashOf(y []int32) uint64 { return oracles.HashLabeling(y) }

// newTruthCorner returns the corner of the ground truth of example i.
func newTruthCorner(p oracles.Problem, i int) *oracles.Corner {
	return oracles.NewCorner(p, i, p.Truth(i))
}
