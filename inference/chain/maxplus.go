package chain

// maxPlusRowGeneric performs dst[l] = max(dst[l], a + row[l]) for every l
// in dst; row must be at least as long as dst. It is the portable version of
// the kernel of the forward pass of Viterbi.
func maxPlusRowGeneric(dst, row []float64, a float64) {
	row = row[:len(dst)]
	for l, r := range row {
		if v := a + r; v > dst[l] {
			dst[l] = v
		}
	}
}
