// Package features computes the superpixel features of the HorseSeg model
// of Osokin et al. (2016, App. I.3), for grey images: per region, a
// constant and histograms of grey values, of visual words (dense texture
// descriptors quantized by a codebook learned with k-means) and of location
// on a uniform grid, each computed on the region itself, on the region with
// its neighbours, and on its second-order neighbourhood; per pair of
// adjacent regions, a constant and exp(-eta * chi2) between every pair of
// corresponding histograms for several eta. All features are non-negative.
package features

import (
	"errors"
	"fmt"
	"image"
	"math"
	"slices"
)

// Config sets the sizes of the features. The zero value is the default of
// every field.
type Config struct {
	// GreyBins is the number of bins of the grey-value histograms; zero
	// means 32.
	GreyBins int
	// Grid is the side of the location grid (Grid x Grid cells); zero
	// means 4.
	Grid int
	// Words is the size of the texture codebook; zero means 64.
	Words int
	// Cells are the cell sizes (in pixels) of the texture descriptors, one
	// scale each; nil means {4, 8}.
	Cells []int
	// Stride is the interval of the grid of texture descriptors; zero means
	// 3.
	Stride int
	// Etas are the scales of the pairwise features exp(-eta * chi2); nil
	// means 2^-5, 2^-4, ..., 2^5 (Osokin et al. 2016, App. I.3).
	Etas []float64
	// NoSqrt keeps the unary histograms as they are. By default every
	// entry h is mapped to sqrt(h), the Hellinger (Bhattacharyya) embedding
	// under which a linear score compares histograms much like a chi2-type
	// kernel (docs/tasks.md gives its effect on the horses' test loss). The
	// pairwise distances always use the histograms themselves.
	NoSqrt bool
}

// Scopes is the number of neighbourhoods a histogram is computed on: the
// region, the region and its neighbours, and the second-order
// neighbourhood.
const Scopes = 3

// Kinds is the number of histogram kinds: grey values, words, location.
const Kinds = 3

// WithDefaults returns c with its zero fields set to their defaults.
func (c Config) WithDefaults() Config {
	if c.GreyBins == 0 {
		c.GreyBins = 32
	}
	if c.Grid == 0 {
		c.Grid = 4
	}
	if c.Words == 0 {
		c.Words = 64
	}
	if c.Cells == nil {
		c.Cells = []int{4, 8}
	}
	if c.Stride == 0 {
		c.Stride = 3
	}
	if c.Etas == nil {
		for e := -5; e <= 5; e++ {
			c.Etas = append(c.Etas, math.Ldexp(1, e))
		}
	}
	return c
}

// Validate reports invalid sizes (after WithDefaults).
func (c Config) Validate() error {
	if c.GreyBins < 1 || c.GreyBins > 256 || c.Grid < 1 || c.Words < 1 || c.Stride < 1 || len(c.Cells) == 0 {
		return fmt.Errorf("features: invalid sizes %+v", c)
	}
	for _, s := range c.Cells {
		if s < 1 {
			return fmt.Errorf("features: cell size %d < 1", s)
		}
	}
	for _, e := range c.Etas {
		if !(e > 0) || math.IsInf(e, 0) {
			return fmt.Errorf("features: eta %v must be positive and finite", e)
		}
	}
	return nil
}

// histSizes returns the lengths of the grey, word and location histograms.
func (c Config) histSizes() [Kinds]int { return [Kinds]int{c.GreyBins, c.Words, c.Grid * c.Grid} }

// HistogramsDim returns the length of the three histograms of one scope.
func (c Config) HistogramsDim() int { return c.GreyBins + c.Words + c.Grid*c.Grid }

// UnaryDim returns the number of unary features: the constant, then for
// each scope (region, neighbours, second order) the grey, word and
// location histograms.
func (c Config) UnaryDim() int { return 1 + Scopes*c.HistogramsDim() }

// PairwiseDim returns the number of pairwise features: the constant, then
// for each scope and kind of histogram (in the order of the unary
// features) one value per eta.
func (c Config) PairwiseDim() int { return 1 + Scopes*Kinds*len(c.Etas) }

// Regions describes a partition of a Width x Height image into N regions.
type Regions struct {
	Width, Height int
	Labels        []int32    // region of pixel (x, y) at Labels[y*Width+x], in [0, N)
	N             int        // number of regions
	Edges         [][2]int32 // adjacent pairs {p, q}, p < q
}

func (r *Regions) validate(img *image.Gray) error {
	b := img.Bounds()
	if b.Dx() != r.Width || b.Dy() != r.Height || len(r.Labels) != r.Width*r.Height {
		return fmt.Errorf("features: regions of a %d x %d image (%d labels) for a %d x %d image", r.Width, r.Height, len(r.Labels), b.Dx(), b.Dy())
	}
	if r.N < 1 {
		return errors.New("features: no regions")
	}
	for _, l := range r.Labels {
		if l < 0 || int(l) >= r.N {
			return fmt.Errorf("features: region label %d outside [0, %d)", l, r.N)
		}
	}
	for _, e := range r.Edges {
		if e[0] < 0 || e[1] < 0 || int(e[0]) >= r.N || int(e[1]) >= r.N || e[0] == e[1] {
			return fmt.Errorf("features: edge %v outside the %d regions", e, r.N)
		}
	}
	return nil
}

// scopes lists, for every region p, the members of its first-order
// neighbourhood (p and its neighbours) at first.members[first.start[p]:
// first.start[p+1]] and likewise of its second-order neighbourhood (those
// and their neighbours), each member once, in no particular order.
type scopes struct {
	first, second csr
}

// csr is a list of lists in compressed form.
type csr struct {
	start   []int32
	members []int32
}

func (c *csr) of(p int) []int32 { return c.members[c.start[p]:c.start[p+1]] }

// neighbourhoods computes the scopes of the n regions joined by edges.
func neighbourhoods(n int, edges [][2]int32) scopes {
	adj := csr{start: make([]int32, n+1), members: make([]int32, 2*len(edges))}
	for _, e := range edges {
		adj.start[e[0]+1]++
		adj.start[e[1]+1]++
	}
	for p := 0; p < n; p++ {
		adj.start[p+1] += adj.start[p]
	}
	fill := slices.Clone(adj.start[:n])
	for _, e := range edges {
		adj.members[fill[e[0]]], fill[e[0]] = e[1], fill[e[0]]+1
		adj.members[fill[e[1]]], fill[e[1]] = e[0], fill[e[1]]+1
	}
	mark := make([]int32, n) // mark[q] == stamp: q already listed
	stamp := int32(0)
	add := func(out *csr, q int32) {
		if mark[q] != stamp {
			mark[q] = stamp
			out.members = append(out.members, q)
		}
	}
	var sc scopes
	sc.first = csr{start: make([]int32, n+1), members: make([]int32, 0, n+2*len(edges))}
	sc.second = csr{start: make([]int32, n+1), members: make([]int32, 0, 4*(n+2*len(edges)))}
	for p := 0; p < n; p++ {
		stamp++
		add(&sc.first, int32(p))
		for _, q := range adj.of(p) {
			add(&sc.first, q)
		}
		sc.first.start[p+1] = int32(len(sc.first.members))
	}
	for p := 0; p < n; p++ {
		stamp++
		for _, q := range sc.first.of(p) {
			for _, m := range sc.first.of(int(q)) {
				add(&sc.second, m)
			}
		}
		sc.second.start[p+1] = int32(len(sc.second.members))
	}
	return sc
}
