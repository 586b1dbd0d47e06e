package features

import (
	"fmt"
	"image"
	"math"
	"sync"
)

// Words are the visual words of an image: the word of the descriptor at
// every point of the grid of a Dense (same Width, Height, Stride, Cols,
// Rows), in grid order.
type Words struct {
	Grid  *Dense // only its geometry is used
	Words []int32
}

// Count returns the raw histograms of every region (r.N x HistogramsDim,
// row-major): the grey values of its pixels (bin v*GreyBins/256), the words
// of the grid points of words falling in it, and the location of its pixels
// (cell (x*Grid/Width, y*Grid/Height)). FromCounts turns them into
// features; they are what a cache needs to keep.
func Count(img *image.Gray, r *Regions, words *Words, cfg Config) ([]int32, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := r.validate(img); err != nil {
		return nil, err
	}
	g := words.Grid
	if g == nil || g.Width != r.Width || g.Height != r.Height || len(words.Words) != g.Cols*g.Rows {
		return nil, fmt.Errorf("features: visual words do not match the %d x %d image", r.Width, r.Height)
	}
	for _, v := range words.Words {
		if v < 0 || int(v) >= cfg.Words {
			return nil, fmt.Errorf("features: word %d outside the codebook of %d words", v, cfg.Words)
		}
	}
	H := cfg.HistogramsDim()
	counts := make([]int32, r.N*H)
	wordOff := cfg.GreyBins
	locOff := cfg.GreyBins + cfg.Words
	for y := 0; y < r.Height; y++ {
		gy := y * cfg.Grid / r.Height
		pix := img.Pix[y*img.Stride : y*img.Stride+r.Width]
		for x, v := range pix {
			row := counts[int(r.Labels[y*r.Width+x])*H:]
			row[int(v)*cfg.GreyBins/256]++
			row[locOff+gy*cfg.Grid+x*cfg.Grid/r.Width]++
		}
	}
	for gr := 0; gr < g.Rows; gr++ {
		y := g.Y(gr)
		for gc := 0; gc < g.Cols; gc++ {
			p := r.Labels[y*r.Width+g.X(gc)]
			counts[int(p)*H+wordOff+int(words.Words[gr*g.Cols+gc])]++
		}
	}
	return counts, nil
}

// FromCounts computes the features of n regions with adjacent pairs edges
// from their raw histograms (n x HistogramsDim, as returned by Count).
//
// Each histogram of a scope (the region; it and its neighbours; its
// second-order neighbourhood) sums the counts of the regions of the scope
// and is normalized to sum 1 (all zero when the scope has no sample); the
// unary features are the constant 1 and the square roots of these
// histograms (the histograms themselves with NoSqrt). The pairwise features
// of an edge are the constant 1 and exp(-eta chi2(a, b)) for every eta,
// every scope and every kind of histogram, with
// chi2(a, b) = 1/2 sum_k (a_k - b_k)^2 / (a_k + b_k) in [0, 1] between the
// histograms a and b of the two regions.
func FromCounts(counts []int32, n int, edges [][2]int32, cfg Config) (unary, pairwise []float32, err error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	H := cfg.HistogramsDim()
	if n < 1 || len(counts) != n*H {
		return nil, nil, fmt.Errorf("features: %d counts for %d regions of %d bins", len(counts), n, H)
	}
	for _, v := range counts {
		if v < 0 {
			return nil, nil, fmt.Errorf("features: negative count %d", v)
		}
	}
	for _, e := range edges {
		if e[0] < 0 || e[1] < 0 || int(e[0]) >= n || int(e[1]) >= n || e[0] == e[1] {
			return nil, nil, fmt.Errorf("features: edge %v outside the %d regions", e, n)
		}
	}
	sc := neighbourhoods(n, edges)
	// hists[s][p] holds the three normalized histograms of scope s; the
	// buffers are reused between calls.
	buf := scratchPool.Get().(*scratch)
	defer scratchPool.Put(buf)
	var hists [Scopes][]float64
	for s := range hists {
		hists[s] = buf.hists(s, n*H)
	}
	sizes := cfg.histSizes()
	acc := buf.acc(H)
	self := make([]int32, 1)
	for p := 0; p < n; p++ {
		self[0] = int32(p)
		for s, scope := range [Scopes][]int32{self, sc.first.of(p), sc.second.of(p)} {
			clear(acc)
			for _, q := range scope {
				src := counts[int(q)*H : int(q+1)*H]
				src = src[:len(acc)]
				for k, v := range src {
					acc[k] += v
				}
			}
			normalize(hists[s][p*H:(p+1)*H], acc, sizes)
		}
	}
	U := cfg.UnaryDim()
	unary = make([]float32, n*U)
	for p := 0; p < n; p++ {
		row := unary[p*U : (p+1)*U]
		row[0] = 1
		for s := range hists {
			for k, v := range hists[s][p*H : (p+1)*H] {
				if !cfg.NoSqrt {
					v = math.Sqrt(v)
				}
				row[1+s*H+k] = float32(v)
			}
		}
	}
	P := cfg.PairwiseDim()
	pairwise = make([]float32, len(edges)*P)
	for e, pq := range edges {
		row := pairwise[e*P : (e+1)*P]
		row[0] = 1
		j := 1
		for s := range hists {
			a := hists[s][int(pq[0])*H : int(pq[0]+1)*H]
			b := hists[s][int(pq[1])*H : int(pq[1]+1)*H]
			off := 0
			for _, size := range sizes {
				d := chi2(a[off:off+size], b[off:off+size])
				off += size
				expScales(row[j:j+len(cfg.Etas)], d, cfg.Etas)
				j += len(cfg.Etas)
			}
		}
	}
	return unary, pairwise, nil
}

// expScales sets dst[k] = exp(-etas[k] d). When an eta doubles the previous
// one the value is the square of the previous value, which saves most
// exponentials with the default powers of two.
func expScales(dst []float32, d float64, etas []float64) {
	var prev float64
	for k, eta := range etas {
		v := 0.0
		if k > 0 && eta == 2*etas[k-1] {
			v = prev * prev
		} else {
			v = math.Exp(-eta * d)
		}
		dst[k] = float32(v)
		prev = v
	}
}

// normalize writes into h the counts of each consecutive histogram (of the
// given sizes) divided by their sum, or zeros when the sum is 0.
func normalize(h []float64, counts []int32, sizes [Kinds]int) {
	off := 0
	for _, size := range sizes {
		seg := counts[off : off+size]
		dst := h[off : off+size]
		var sum int64
		for _, v := range seg {
			sum += int64(v)
		}
		inv := 0.0
		if sum > 0 {
			inv = 1 / float64(sum)
		}
		for k, v := range seg {
			dst[k] = float64(v) * inv
		}
		off += size
	}
}

// scratch holds the working buffers of FromCounts.
type scratch struct {
	h [Scopes][]float64
	a []int32
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

func (b *scratch) hists(s, n int) []float64 {
	if cap(b.h[s]) < n {
		b.h[s] = make([]float64, n)
	}
	return b.h[s][:n]
}

func (b *scratch) acc(n int) []int32 {
	if cap(b.a) < n {
		b.a = make([]int32, n)
	}
	return b.a[:n]
}

// chi2 returns 1/2 sum_k (a_k - b_k)^2 / (a_k + b_k) over the bins where
// a_k + b_k > 0.
func chi2(a, b []float64) float64 {
	b = b[:len(a)]
	var d float64
	for k, x := range a {
		if s := x + b[k]; s > 0 {
			e := x - b[k]
			d += e * e / s
		}
	}
	return d / 2
}
