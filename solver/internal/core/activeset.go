package core

import (
	"errors"
	"math/rand/v2"
)

// ActiveSet is the active set of shrinking (liblinear's and libsvm's;
// Keerthi et al. 2008, Sec. 3.3, as gap-based skipping): the blocks not yet
// settled, swept in a fresh random order every sweep; a block found
// settled at its visit leaves at the end of the sweep. Its fields are
// exported for checkpoints (gob).
type ActiveSet struct {
	Active []int32 // the blocks of the current sweep, in order
	Pos    int     // the next position in Active
	Keep   int     // Active[:Keep] holds the blocks of this sweep that stay
	// Settled is set when a sweep found no block left: every block
	// settled, time for an exact gap pass (which calls Reset).
	Settled bool
}

// Reset makes every block with a positive (or unknown, +Inf) gap estimate
// active, as after a gap pass.
func (a *ActiveSet) Reset(gapEst []float64) {
	a.Active = a.Active[:0]
	for i, g := range gapEst {
		if g > 0 {
			a.Active = append(a.Active, int32(i))
		}
	}
	a.Pos, a.Keep, a.Settled = len(a.Active), len(a.Active), len(a.Active) == 0
}

// Next returns the next block to visit, starting a new sweep (the blocks
// that stayed, shuffled) when the current one is done; ok is false, and
// Settled set, when no block is left.
func (a *ActiveSet) Next(rng *rand.Rand) (i int, ok bool) {
	if a.Pos >= len(a.Active) {
		a.Active = a.Active[:a.Keep]
		rng.Shuffle(len(a.Active), func(x, y int) { a.Active[x], a.Active[y] = a.Active[y], a.Active[x] })
		a.Pos, a.Keep = 0, 0
		if len(a.Active) == 0 {
			a.Settled = true
			return 0, false
		}
	}
	i = int(a.Active[a.Pos])
	a.Pos++
	return i, true
}

// Visited records whether the block Next returned last stays active.
func (a *ActiveSet) Visited(stays bool) {
	if stays {
		a.Active[a.Keep] = a.Active[a.Pos-1]
		a.Keep++
	}
}

// Validate checks a restored active set over n blocks.
func (a *ActiveSet) Validate(n int) error {
	bad := a.Pos < 0 || a.Pos > len(a.Active) || a.Keep < 0 || a.Keep > a.Pos || len(a.Active) > n
	for _, i := range a.Active {
		bad = bad || i < 0 || int(i) >= n
	}
	if bad {
		return errors.New("active set of shrinking out of range")
	}
	return nil
}
