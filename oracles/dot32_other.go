//go:build !amd64 || purego

package oracles

// dotRows32 sets out[r] = dot32(w, x[r*stride : r*stride+len(w)]) for every
// r < len(out).
func dotRows32(w []float64, x []float32, stride int, out []float64) {
	dotRowsGo(w, x, stride, out)
}
