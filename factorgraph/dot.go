package factorgraph

// dotAt returns sum_k val[k] * w[idx[k]]. It sums in four interleaved
// partial sums (k mod 4), combined at the end, so that the additions do
// not wait for each other: a dot product over Yeast's 103 features is the
// largest part of a soft step on a label. The order is fixed, so a score
// is the same number every time it is computed.
func dotAt(w []float64, idx []int32, val []float64) float64 {
	val = val[:len(idx)]
	var s0, s1, s2, s3 float64
	k := 0
	for ; k+4 <= len(idx); k += 4 {
		s0 += val[k] * w[idx[k]]
		s1 += val[k+1] * w[idx[k+1]]
		s2 += val[k+2] * w[idx[k+2]]
		s3 += val[k+3] * w[idx[k+3]]
	}
	for ; k < len(idx); k++ {
		s0 += val[k] * w[idx[k]]
	}
	return (s0 + s1) + (s2 + s3)
}
