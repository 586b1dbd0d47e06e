package core

// ProjectSimplex replaces z by its Euclidean projection onto the
// probability simplex {a >= 0, sum a = 1} (Duchi et al. 2008, Fig. 1):
// a_k = max(z_k - theta, 0) with theta from the sorted z. sorted is a
// scratch of len(z).
func ProjectSimplex(z, sorted []float64) {
	u := sorted[:len(z)]
	copy(u, z)
	// insertion sort, descending: K is small
	for a := 1; a < len(u); a++ {
		v := u[a]
		b := a - 1
		for b >= 0 && u[b] < v {
			u[b+1] = u[b]
			b--
		}
		u[b+1] = v
	}
	var cum, theta float64
	for j, v := range u {
		cum += v
		t := (cum - 1) / float64(j+1)
		if v-t > 0 {
			theta = t
		}
	}
	for k, v := range z {
		z[k] = max(v-theta, 0)
	}
}
