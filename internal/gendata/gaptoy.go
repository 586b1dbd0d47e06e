package gendata

import (
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/oracles"
)

// maxGapToyEntries bounds n*(K+1), the number of tabulated labels of GapToy.
const maxGapToyEntries = 1 << 26

// GapToy builds the toy problem of Osokin et al. (2016, App. C.1) on which
// BCFW with gap sampling needs min(n, K) times fewer oracle calls than with
// uniform sampling: one hard object and n-1 easy ones.
//
// Every object has the K+1 labels 0..K, label 0 being the truth, and the 0-1
// loss (L(0) = 0, L(k) = 1 for k >= 1). The dimension is d = K+1, with
// e_1..e_K at coordinates 0..K-1 and e_{K+1} at coordinate K:
//
//   - phi(x_i, 0) = 0 for every object i;
//   - object 0, the hard one, has phi(x_0, k) = -(1/sqrt 2) e_k, k = 1..K;
//   - every easy object i >= 1 has phi(x_i, k) = -e_{K+1} for all k >= 1.
//
// (The paper numbers objects from 1 and calls the hard one i = 1.) The
// problem is meant to be trained with lambda = 1/n, so that 1/(lambda n) = 1.
// Its optimum is then GapToyOptimum(K). It requires n >= 2 and K >= 2.
func GapToy(n, K int) (*oracles.Tabular, error) {
	if n < 2 || K < 2 {
		return nil, fmt.Errorf("gap toy: need n >= 2 objects and K >= 2 labels, got n = %d, K = %d", n, K)
	}
	if n > maxGapToyEntries/(K+1) {
		return nil, fmt.Errorf("gap toy: n = %d objects with K+1 = %d labels is too large (limit %d entries)", n, K+1, maxGapToyEntries)
	}
	loss := make([]float64, K+1)
	for k := 1; k <= K; k++ {
		loss[k] = 1
	}
	// The easy objects share their feature vectors and losses (NewTabular
	// copies them).
	easy := oracles.TabularExample{Loss: loss, Phi: make([]oracles.SparseVec, K+1)}
	hard := oracles.TabularExample{Loss: loss, Phi: make([]oracles.SparseVec, K+1)}
	s := -1 / math.Sqrt2
	for k := 1; k <= K; k++ {
		easy.Phi[k] = oracles.SparseVec{Idx: []int32{int32(K)}, Val: []float64{-1}}
		hard.Phi[k] = oracles.SparseVec{Idx: []int32{int32(k - 1)}, Val: []float64{s}}
	}
	ex := make([]oracles.TabularExample, n)
	ex[0] = hard
	for i := 1; i < n; i++ {
		ex[i] = easy
	}
	t, err := oracles.NewTabular(K+1, ex)
	if err != nil {
		return nil, fmt.Errorf("gap toy: %w", err)
	}
	return t, nil
}

// GapToyOptimum returns the optimal weights w* of GapToy(n, K) with
// lambda = 1/n (the same for every n >= 2):
//
//	w* = e_{K+1} + 1/(K sqrt 2) sum_{k=1..K} e_k,
//
// that is, 1/(K sqrt 2) at coordinates 0..K-1 and 1 at coordinate K. The dual
// optimum puts mass 1/K on each wrong label of the hard object and total mass
// 1 on the wrong labels of the easy objects; primal and dual values are both
// (1 + 1/(2K)) / (2n) + (1 - 1/(2K)) / n.
//
// Osokin et al. (2016, App. C.1) print w* = e_{K+1} + (1/K) sum_k e_k, which
// would be the optimum if the hard object's features were -e_k: with their
// -(1/sqrt 2) e_k the hard coordinates are scaled by 1/sqrt 2, as computed
// here. The function returns nil for K < 1.
func GapToyOptimum(K int) []float64 {
	if K < 1 {
		return nil
	}
	w := make([]float64, K+1)
	for k := 0; k < K; k++ {
		w[k] = 1 / (float64(K) * math.Sqrt2)
	}
	w[K] = 1
	return w
}
