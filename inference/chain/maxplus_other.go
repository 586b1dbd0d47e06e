//go:build !amd64 || purego

package chain

func maxPlusRow(dst, row []float64, a float64) { maxPlusRowGeneric(dst, row, a) }
