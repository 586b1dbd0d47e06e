//go:build !amd64 || purego

package oracles

func maxPlusRow(dst, row []float64, a float64) { maxPlusRowGeneric(dst, row, a) }
