package oracles

import "math"

// LabeledProblem is a Problem whose label spaces can be enumerated.
type LabeledProblem interface {
	Problem
	Labelings
}

// Exhaustive wraps a problem with small label spaces and answers MaxOracle
// and Predict by enumerating every labeling, using only Psi and Loss. It is
// the brute-force reference that the fast oracles are tested against; it is
// exponentially slow and meant for tiny problems.
type Exhaustive struct {
	LabeledProblem
}

// MaxOracle returns argmax_y L_i(y) - <w, psi_i(y)> by enumeration.
func (e Exhaustive) MaxOracle(i int, w []float64, dst []int32) ([]int32, float64) {
	var psi SparseVec
	best := math.Inf(-1)
	e.ForEachLabeling(i, func(y []int32) {
		if h := H(e.LabeledProblem, i, y, w, &psi); h > best {
			best = h
			dst = append(dst[:0], y...)
		}
	})
	return dst, best
}

// Predict returns argmax_y <w, phi(x_i, y)> = argmin_y <w, psi_i(y)> by
// enumeration.
func (e Exhaustive) Predict(i int, w []float64, dst []int32) []int32 {
	var psi SparseVec
	best := math.Inf(1)
	e.ForEachLabeling(i, func(y []int32) {
		e.Psi(i, y, &psi)
		if s := psi.Dot(w); s < best {
			best = s
			dst = append(dst[:0], y...)
		}
	})
	return dst
}
