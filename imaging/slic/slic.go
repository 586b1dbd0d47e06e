// Package slic computes SLIC superpixels (Achanta et al. 2012, "SLIC
// superpixels compared to state-of-the-art superpixel methods", IEEE TPAMI
// 34(11), Alg. 1) of grey images: k-means clustering of the pixels in the
// joint (intensity, x, y) space, where each cluster centre only competes for
// the pixels of a 2S x 2S window around it, followed by the enforcement of
// connectivity.
//
// The result is a label map (one superpixel number per pixel, row-major)
// whose superpixels are 4-connected, and the adjacency of the superpixels.
// Segment is deterministic: the same image and parameters give the same
// labels.
package slic

import (
	"errors"
	"fmt"
	"image"
	"math"
)

// Params configures Segment. The zero value asks for 150 superpixels of
// compactness 10 after 10 iterations.
type Params struct {
	// Superpixels is the requested number K of superpixels; zero means 150.
	// The result has about that many (the grid of initial centres and the
	// connectivity step change the count slightly).
	Superpixels int
	// Compactness is the weight m of the spatial distance against the
	// intensity distance, intensities being scaled to [0, 100] like the L
	// channel of CIELAB in the paper: D^2 = dI^2 + (dxy/S)^2 m^2. Larger
	// values give more regular superpixels, smaller ones follow the edges
	// more closely. Zero means 10.
	Compactness float64
	// Iterations is the number of k-means iterations; zero means 10 (the
	// paper's choice, enough for convergence on most images).
	Iterations int
}

func (p Params) withDefaults() Params {
	if p.Superpixels == 0 {
		p.Superpixels = 150
	}
	if p.Compactness == 0 {
		p.Compactness = 10
	}
	if p.Iterations == 0 {
		p.Iterations = 10
	}
	return p
}

// Result is a superpixel segmentation of a Width x Height image.
type Result struct {
	Width, Height int
	// Labels holds the superpixel of pixel (x, y) at Labels[y*Width+x], in
	// [0, N). Superpixels are numbered in the raster order of their first
	// pixel.
	Labels []int32
	// N is the number of superpixels.
	N int
}

// center is a cluster centre in (intensity, x, y).
type center struct{ l, x, y float64 }

// Segment computes the SLIC superpixels of img. It returns an error for an
// empty image and for negative or non-finite parameters; a request for more
// superpixels than pixels is reduced to one superpixel a pixel.
func Segment(img *image.Gray, p Params) (*Result, error) {
	if img == nil {
		return nil, errors.New("slic: nil image")
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= 0 || h <= 0 {
		return nil, fmt.Errorf("slic: empty image %v", b)
	}
	p = p.withDefaults()
	if p.Superpixels < 0 || p.Iterations < 0 || !(p.Compactness > 0) || math.IsInf(p.Compactness, 0) {
		return nil, fmt.Errorf("slic: invalid parameters %+v (superpixels and iterations must be >= 0, compactness positive and finite)", p)
	}
	n := w * h
	k := min(p.Superpixels, n)
	// Intensities on the [0, 100] scale of CIELAB's L.
	lum := make([]float32, n)
	for y := 0; y < h; y++ {
		row := img.Pix[(y)*img.Stride : (y)*img.Stride+w]
		for x, v := range row {
			lum[y*w+x] = float32(v) * (100.0 / 255)
		}
	}
	s := &state{w: w, h: h, lum: lum, step: math.Sqrt(float64(n) / float64(k))}
	s.seed()
	s.iterate(p.Iterations, p.Compactness)
	r := &Result{Width: w, Height: h, Labels: s.labels}
	r.N = enforceConnectivity(r.Labels, lum, w, h, max(1, n/k/4))
	return r, nil
}

// state is the working storage of one segmentation.
type state struct {
	w, h    int
	lum     []float32
	step    float64 // S, the grid interval sqrt(N/K)
	centers []center
	labels  []int32
	dist    []float32
}

// seed places the initial centres on a regular grid of interval about S and
// moves each to the lowest-gradient position of its 3 x 3 neighbourhood, so
// that no centre starts on an edge or a noisy pixel (Alg. 1, steps 1-2).
func (s *state) seed() {
	nx := max(1, int(math.Round(float64(s.w)/s.step)))
	ny := max(1, int(math.Round(float64(s.h)/s.step)))
	s.centers = make([]center, 0, nx*ny)
	for j := 0; j < ny; j++ {
		for i := 0; i < nx; i++ {
			x := int((float64(i) + 0.5) * float64(s.w) / float64(nx))
			y := int((float64(j) + 0.5) * float64(s.h) / float64(ny))
			bx, by, bg := x, y, math.Inf(1)
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if g := s.gradient(x+dx, y+dy); g < bg {
						bx, by, bg = x+dx, y+dy, g
					}
				}
			}
			s.centers = append(s.centers, center{l: float64(s.lum[by*s.w+bx]), x: float64(bx), y: float64(by)})
		}
	}
}

// gradient returns the squared central-difference gradient at (x, y), +Inf
// outside the image and on its border.
func (s *state) gradient(x, y int) float64 {
	if x < 1 || y < 1 || x >= s.w-1 || y >= s.h-1 {
		if x >= 0 && y >= 0 && x < s.w && y < s.h && (s.w < 3 || s.h < 3) {
			return 0 // images too thin to have an interior
		}
		return math.Inf(1)
	}
	at := func(x, y int) float64 { return float64(s.lum[y*s.w+x]) }
	gx := at(x+1, y) - at(x-1, y)
	gy := at(x, y+1) - at(x, y-1)
	return gx*gx + gy*gy
}

// iterate runs the assignment and update steps of Alg. 1 (steps 3-10) a
// fixed number of times. A pixel outside every window keeps its previous
// label.
func (s *state) iterate(iters int, m float64) {
	n := s.w * s.h
	s.labels = make([]int32, n)
	s.dist = make([]float32, n)
	sums := make([]center, len(s.centers))
	counts := make([]int, len(s.centers))
	// Every pixel starts in the cluster of the nearest grid cell, which is
	// also the answer when iters is 0.
	s.assignNearest()
	spatial := float32(m * m / (s.step * s.step))
	radius := int(math.Ceil(s.step))
	for it := 0; it < iters; it++ {
		for i := range s.dist {
			s.dist[i] = float32(math.Inf(1))
		}
		for c, ctr := range s.centers {
			cx, cy := int(math.Round(ctr.x)), int(math.Round(ctr.y))
			x0, x1 := max(0, cx-radius), min(s.w, cx+radius+1)
			y0, y1 := max(0, cy-radius), min(s.h, cy+radius+1)
			cl, fx, fy := float32(ctr.l), float32(ctr.x), float32(ctr.y)
			for y := y0; y < y1; y++ {
				dy := float32(y) - fy
				row := y * s.w
				lum := s.lum[row+x0 : row+x1]
				dist := s.dist[row+x0 : row+x1]
				labels := s.labels[row+x0 : row+x1]
				for k, v := range lum {
					dl := v - cl
					dx := float32(x0+k) - fx
					d := dl*dl + spatial*(dx*dx+dy*dy)
					if d < dist[k] {
						dist[k] = d
						labels[k] = int32(c)
					}
				}
			}
		}
		for c := range sums {
			sums[c], counts[c] = center{}, 0
		}
		for y := 0; y < s.h; y++ {
			for x := 0; x < s.w; x++ {
				i := y*s.w + x
				c := s.labels[i]
				sums[c].l += float64(s.lum[i])
				sums[c].x += float64(x)
				sums[c].y += float64(y)
				counts[c]++
			}
		}
		for c := range s.centers {
			if cnt := float64(counts[c]); cnt > 0 {
				s.centers[c] = center{l: sums[c].l / cnt, x: sums[c].x / cnt, y: sums[c].y / cnt}
			}
		}
	}
}

// assignNearest labels every pixel with the spatially nearest centre.
func (s *state) assignNearest() {
	for i := range s.dist {
		s.dist[i] = float32(math.Inf(1))
	}
	radius := int(math.Ceil(2*s.step)) + 2
	for c, ctr := range s.centers {
		cx, cy := int(ctr.x), int(ctr.y)
		for y := max(0, cy-radius); y < min(s.h, cy+radius+1); y++ {
			for x := max(0, cx-radius); x < min(s.w, cx+radius+1); x++ {
				dx, dy := float32(x)-float32(ctr.x), float32(y)-float32(ctr.y)
				if d := dx*dx + dy*dy; d < s.dist[y*s.w+x] {
					s.dist[y*s.w+x] = d
					s.labels[y*s.w+x] = int32(c)
				}
			}
		}
	}
}
