package core

import (
	"fmt"
	"math/rand/v2"
)

// Draws is what a checkpoint keeps of the random choices of a run: the
// sampler's state (see Sampler.State) and the PCG source its draws come
// from, so that a loaded run draws the same blocks as the saved one would
// have.
type Draws struct {
	Perm      []int32
	PermPos   int
	Unvisited []int32
	RNG       []byte
}

// Checkpoint returns the draws state of the sampler and its source pcg.
// The slices are the sampler's own.
func (s *Sampler) Checkpoint(pcg *rand.PCG) (Draws, error) {
	rng, err := pcg.MarshalBinary()
	if err != nil {
		return Draws{}, err
	}
	perm, pos, unvisited := s.State()
	return Draws{Perm: perm, PermPos: pos, Unvisited: unvisited, RNG: rng}, nil
}

// Resume restores the sampler from d, checking it (gaps are the block gap
// estimates, for gap sampling), and returns the restored source.
func (s *Sampler) Resume(d Draws, gaps []float64) (*rand.PCG, error) {
	if err := s.Restore(d.Perm, d.PermPos, d.Unvisited, gaps); err != nil {
		return nil, err
	}
	pcg := new(rand.PCG)
	if err := pcg.UnmarshalBinary(d.RNG); err != nil {
		return nil, fmt.Errorf("random state: %w", err)
	}
	return pcg, nil
}
