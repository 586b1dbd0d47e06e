package solver

import (
	"errors"
	"math"
	"time"

	"gonum.org/v1/gonum/floats"

	"github.com/fwstruct/fwstruct/oracles"
)

// stepOracle is the max oracle of the algorithm's steps. For a problem
// whose approximate oracle is relative to the block's dual state
// (oracles.RelativeOracle, e.g. oracles.WithAccuracy), it passes ref, the
// dual-weighted score of the block's corners, so that the corner satisfies
// the multiplicative accuracy condition of Lacoste-Julien et al. (2013),
// App. C, eq. 12; for every other problem it is the plain oracle.
func (s *Solver) stepOracle(i int, w []float64, ref float64, dst []int32) ([]int32, float64, error) {
	if s.relative == nil {
		return s.oracle(i, w, dst)
	}
	y, h, err := s.relative.MaxOracleRelative(i, w, ref, dst)
	if err == nil && (math.IsNaN(h) || math.IsInf(h, 0)) {
		err = oracles.ErrNaNScore
	}
	if err != nil {
		return y, h, &oracles.OracleError{Example: i, Err: err}
	}
	return y, h, nil
}

// batchRefs returns the references of the blocks in a batch iteration (FW,
// cutting plane) at w when the step oracle is relative, nil otherwise.
// App. C's condition (12) for the whole domain (n = 1) asks the vertex of
// the iteration for a gap G' >= nu G, G = lambda <v, w> - ell + 1/n sum_i
// H_i* the gap at w; with ref_i = H_i* - G every block's answer has
// H_i(y_i') >= H_i* - (1 - nu) G, and averaging over the blocks gives
// exactly that. The references need the exact scores H_i*: this exact
// pass is part of simulating an approximate oracle, so it is neither
// counted as oracle calls nor timed.
func (s *Solver) batchRefs(w []float64) ([]float64, error) {
	if s.relative == nil {
		return nil, nil
	}
	if s.exact == nil {
		return nil, errors.New("solver: a relative approximate oracle needs an exact one for batch iterations")
	}
	t0 := time.Now()
	defer func() { s.loop.Elapsed -= time.Since(t0) }()
	refs := make([]float64, s.n)
	err := s.parallel(func(ws *workerScratch, i int) error {
		var err error
		ws.y, refs[i], err = s.exact(i, w, ws.y)
		return err
	})
	if err != nil {
		return nil, err
	}
	gap := s.lambda*floats.Dot(s.x.v, w) - s.ell + floats.Sum(refs)/float64(s.n)
	for i := range refs {
		refs[i] -= math.Max(gap, 0)
	}
	return refs, nil
}
