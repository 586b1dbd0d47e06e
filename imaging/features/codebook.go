package features

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
)

// Codebook is a set of K centres ("visual words") in a Dim-dimensional
// descriptor space; Centers[k*Dim : (k+1)*Dim] is word k.
type Codebook struct {
	K, Dim  int
	Centers []float32
	norms   []float32 // |c_k|^2
}

// NewCodebook wraps centres (K x dim, row-major) as a codebook, e.g. one
// read back from a cache.
func NewCodebook(centers []float32, dim int) (*Codebook, error) {
	if dim < 1 || len(centers) == 0 || len(centers)%dim != 0 {
		return nil, fmt.Errorf("codebook: %d values do not make centres of dimension %d", len(centers), dim)
	}
	cb := &Codebook{K: len(centers) / dim, Dim: dim, Centers: centers}
	cb.norms = make([]float32, cb.K)
	for k := range cb.norms {
		cb.norms[k] = dot(cb.center(k), cb.center(k))
	}
	return cb, nil
}

func (cb *Codebook) center(k int) []float32 {
	return cb.Centers[k*cb.Dim : (k+1)*cb.Dim : (k+1)*cb.Dim]
}

// Nearest returns the index of the centre nearest to x (the first on ties).
func (cb *Codebook) Nearest(x []float32) int {
	x = x[:cb.Dim]
	best, arg := float32(math.Inf(1)), 0
	for k := 0; k < cb.K; k++ {
		// |x - c|^2 - |x|^2 = |c|^2 - 2 <x, c>
		if d := cb.norms[k] - 2*dot(x, cb.center(k)); d < best {
			best, arg = d, k
		}
	}
	return arg
}

// Assign returns the word of every descriptor of d, in grid order.
func (cb *Codebook) Assign(d *Dense) ([]int32, error) {
	if d.Dim != cb.Dim {
		return nil, fmt.Errorf("codebook: descriptors of dimension %d, codebook of dimension %d", d.Dim, cb.Dim)
	}
	n := d.Cols * d.Rows
	words := make([]int32, n)
	for k := 0; k < n; k++ {
		words[k] = int32(cb.Nearest(d.Data[k*d.Dim : (k+1)*d.Dim]))
	}
	return words, nil
}

// dot returns <a, b> for len(a) <= len(b), four products at a time.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	k := 0
	for ; k+3 < len(a); k += 4 {
		s0 += a[k] * b[k]
		s1 += a[k+1] * b[k+1]
		s2 += a[k+2] * b[k+2]
		s3 += a[k+3] * b[k+3]
	}
	for ; k < len(a); k++ {
		s0 += a[k] * b[k]
	}
	return s0 + s1 + s2 + s3
}

// KMeans learns a codebook of k words from samples (n x dim, row-major)
// with Lloyd's algorithm started from k-means++ seeds (Arthur &
// Vassilvitskii 2007) drawn with the given seed, for a fixed number of
// iterations (or until no assignment changes). A cluster that loses all its
// samples is moved to the sample farthest from its centre. The assignment
// steps run on workers goroutines (0: GOMAXPROCS); the result does not
// depend on their number.
func KMeans(samples []float32, dim, k, iters int, seed uint64, workers int) (*Codebook, error) {
	if dim < 1 || len(samples)%dim != 0 {
		return nil, fmt.Errorf("kmeans: %d values do not make samples of dimension %d", len(samples), dim)
	}
	n := len(samples) / dim
	if k < 1 || n < k {
		return nil, fmt.Errorf("kmeans: need at least k = %d samples and k >= 1, have %d", k, n)
	}
	for _, v := range samples {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, errors.New("kmeans: non-finite sample value")
		}
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	sample := func(i int) []float32 { return samples[i*dim : (i+1)*dim : (i+1)*dim] }
	centers := kmeansPlusPlus(samples, dim, k, seed)
	assign := make([]int32, n)
	for i := range assign {
		assign[i] = -1
	}
	dist := make([]float32, n)
	for it := 0; it < iters; it++ {
		cb, err := NewCodebook(centers, dim)
		if err != nil {
			return nil, err
		}
		changed := parallelAssign(cb, sample, assign, dist, workers)
		if changed == 0 && it > 0 {
			break
		}
		sums := make([]float64, k*dim)
		counts := make([]int, k)
		for i, c := range assign {
			counts[c]++
			row := sums[int(c)*dim : (int(c)+1)*dim]
			for j, v := range sample(i) {
				row[j] += float64(v)
			}
		}
		for c := 0; c < k; c++ {
			row := centers[c*dim : (c+1)*dim]
			if counts[c] == 0 {
				far := farthest(dist)
				copy(row, sample(far))
				dist[far] = 0
				continue
			}
			for j := range row {
				row[j] = float32(sums[c*dim+j] / float64(counts[c]))
			}
		}
	}
	return NewCodebook(centers, dim)
}

// parallelAssign sets assign[i] to the nearest centre of sample i and
// dist[i] to its squared distance, and returns how many assignments
// changed.
func parallelAssign(cb *Codebook, sample func(int) []float32, assign []int32, dist []float32, workers int) int {
	n := len(assign)
	changed := make([]int, workers)
	var wg sync.WaitGroup
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := g * n / workers; i < (g+1)*n/workers; i++ {
				x := sample(i)
				c := cb.Nearest(x)
				if int32(c) != assign[i] {
					assign[i] = int32(c)
					changed[g]++
				}
				dist[i] = sqDist(x, cb.center(c))
			}
		}(g)
	}
	wg.Wait()
	total := 0
	for _, c := range changed {
		total += c
	}
	return total
}

// kmeansPlusPlus draws k initial centres: the first uniformly, each next one
// with probability proportional to the squared distance to the nearest
// centre so far.
func kmeansPlusPlus(samples []float32, dim, k int, seed uint64) []float32 {
	n := len(samples) / dim
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	sample := func(i int) []float32 { return samples[i*dim : (i+1)*dim] }
	centers := make([]float32, 0, k*dim)
	first := rng.IntN(n)
	centers = append(centers, sample(first)...)
	d := make([]float64, n)
	for i := range d {
		d[i] = float64(sqDist(sample(i), sample(first)))
	}
	for len(centers) < k*dim {
		var total float64
		for _, v := range d {
			total += v
		}
		pick := 0
		if total > 0 {
			r := rng.Float64() * total
			for pick = 0; pick < n-1; pick++ {
				if r -= d[pick]; r < 0 {
					break
				}
			}
		} else {
			pick = rng.IntN(n) // all samples coincide with centres
		}
		c := sample(pick)
		centers = append(centers, c...)
		for i := range d {
			d[i] = math.Min(d[i], float64(sqDist(sample(i), c)))
		}
	}
	return centers
}

func sqDist(a, b []float32) float32 {
	b = b[:len(a)]
	var s float32
	for j, v := range a {
		e := v - b[j]
		s += e * e
	}
	return s
}

// farthest returns the index of the largest entry.
func farthest(d []float32) int {
	arg := 0
	for i, v := range d {
		if v > d[arg] {
			arg = i
		}
	}
	return arg
}
