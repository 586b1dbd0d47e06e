//go:build amd64 && !purego

package chain

// maxPlusRow performs dst[l] = max(dst[l], a + row[l]) for every l in dst
// with SSE2 (part of every amd64 CPU); row must be at least as long as dst
// and no value may be NaN.
//
//go:noescape
func maxPlusRow(dst, row []float64, a float64)
