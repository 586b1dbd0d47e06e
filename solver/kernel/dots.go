package kernel

import "gonum.org/v1/gonum/floats"

// dotRowsGo sets out[r] = floats.Dot(x, m[offs[r]:offs[r]+len(x)]) for
// every r < len(offs), one row at a time (dotRows without a vector
// kernel).
func dotRowsGo(x, m []float64, offs []int, out []float64) {
	for r, o := range offs {
		out[r] = floats.Dot(x, m[o:o+len(x)])
	}
}
