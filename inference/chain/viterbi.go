package chain

import "math"

// Viterbi returns a labeling y of the chain of T = len(unary)/K positions
// with K states maximizing
//
//	sum_t unary[t*K + y_t] + sum_{t < T-1} trans[y_t*K + y_{t+1}],
//
// and that maximum. trans has K*K entries. msg is scratch of at least
// len(unary) entries: the forward pass keeps the max-sum messages there
// (msg[t*K + k] is the best score of a prefix ending in state k at
// position t); the backward pass recovers the argmax of each position by
// recomputing the same sums from the messages, so that the returned
// labeling attains the returned maximum (its score summed position by
// position may differ from it in the last bits: the additions come in
// another order). Ties go to the lower state at the last position and,
// going backwards, to the lower predecessor. dst is reused
// when it has room for T labels. No score may be NaN, and T must be at
// least 1. It does not allocate when dst has room.
func Viterbi(unary, trans []float64, K int, msg []float64, dst []int32) ([]int32, float64) {
	T := len(unary) / K
	theta := unary[:T*K]
	delta := msg[:T*K]
	trans = trans[:K*K]
	copy(delta[:K], theta[:K])
	for t := 1; t < T; t++ {
		prev := delta[(t-1)*K : t*K]
		cur := delta[t*K : t*K+K]
		for l := range cur {
			cur[l] = math.Inf(-1)
		}
		for k, dk := range prev {
			maxPlusRow(cur, trans[k*K:k*K+K], dk)
		}
		un := theta[t*K : t*K+K]
		un = un[:len(cur)]
		for l, u := range un {
			cur[l] += u
		}
	}
	last := delta[(T-1)*K : T*K]
	best, arg := math.Inf(-1), 0
	for k, v := range last {
		if v > best {
			best, arg = v, k
		}
	}
	if cap(dst) < T {
		dst = make([]int32, T)
	}
	dst = dst[:T]
	dst[T-1] = int32(arg)
	for t := T - 1; t > 0; t-- {
		prev := delta[(t-1)*K : t*K]
		l := int(dst[t])
		bestK, bestV := 0, math.Inf(-1)
		for k, dk := range prev {
			if v := dk + trans[k*K+l]; v > bestV {
				bestK, bestV = k, v
			}
		}
		dst[t-1] = int32(bestK)
	}
	return dst, best
}
