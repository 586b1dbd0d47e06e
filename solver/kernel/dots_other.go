//go:build !amd64 || noasm || gccgo || safe || purego

package kernel

// dotRows sets out[r] = floats.Dot(x, m[offs[r]:offs[r]+len(x)]) for every
// r < len(offs).
func dotRows(x, m []float64, offs []int, out, _ []float64) {
	dotRowsGo(x, m, offs, out)
}
