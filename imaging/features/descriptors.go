package features

import (
	"image"
	"math"
)

// Orientations is the number of gradient-orientation bins of a descriptor
// cell (signed orientations over 2 pi, as in SIFT).
const Orientations = 8

// Dense holds local texture descriptors sampled on a regular grid of an
// image: the point (X(c), Y(r)) of column c and row r of the grid owns
// Data[(r*Cols+c)*Dim : (r*Cols+c+1)*Dim].
type Dense struct {
	Width, Height int // image size
	Stride        int // grid interval in pixels
	Cols, Rows    int // grid size
	Dim           int // descriptor length
	Data          []float32
}

// X returns the pixel column of grid column c.
func (d *Dense) X(c int) int { return d.Stride/2 + c*d.Stride }

// Y returns the pixel row of grid row r.
func (d *Dense) Y(r int) int { return d.Stride/2 + r*d.Stride }

// At returns the descriptor of grid point (c, r), sharing storage.
func (d *Dense) At(c, r int) []float32 {
	k := (r*d.Cols + c) * d.Dim
	return d.Data[k : k+d.Dim : k+d.Dim]
}

// DescriptorDim returns the length of the descriptors of Describe for the
// given cell sizes: 2 x 2 cells of Orientations bins per scale.
func DescriptorDim(cells []int) int { return 4 * Orientations * len(cells) }

// Describe computes a SIFT-like descriptor (Lowe 2004, much simplified) at
// every point of a grid of interval stride: for each cell size c in cells,
// the histograms of gradient orientations, weighted by gradient magnitude
// and split linearly between the two nearest of Orientations bins, of the
// 2 x 2 cells of c x c pixels around the point (clipped to the image). Each
// scale's 32 values v are normalized to v / (|v| + 4 c^2), so that strong
// textures give unit-length descriptors and flat regions shrink towards 0
// instead of having their noise amplified (the constant is a mean gradient
// of 1 grey level per pixel of the window). Descriptors are
// deterministic and cost O(pixels) through integral images.
func Describe(img *image.Gray, cells []int, stride int) *Dense {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	stride = max(stride, 1)
	d := &Dense{Width: w, Height: h, Stride: stride, Dim: DescriptorDim(cells)}
	d.Cols = max(0, (w-stride/2+stride-1)/stride)
	d.Rows = max(0, (h-stride/2+stride-1)/stride)
	d.Data = make([]float32, d.Cols*d.Rows*d.Dim)
	if d.Cols == 0 || d.Rows == 0 {
		return d
	}
	integ := orientationIntegrals(img)
	stride1 := w + 1
	box := func(o, x0, y0, x1, y1 int) float64 {
		x0, y0 = max(x0, 0), max(y0, 0)
		x1, y1 = min(x1, w), min(y1, h)
		if x0 >= x1 || y0 >= y1 {
			return 0
		}
		t := integ[o]
		return t[y1*stride1+x1] - t[y0*stride1+x1] - t[y1*stride1+x0] + t[y0*stride1+x0]
	}
	var v [4 * Orientations]float64
	for r := 0; r < d.Rows; r++ {
		y := d.Y(r)
		for c := 0; c < d.Cols; c++ {
			x := d.X(c)
			out := d.At(c, r)
			for s, cell := range cells {
				k := 0
				for _, dy := range [2]int{-cell, 0} {
					for _, dx := range [2]int{-cell, 0} {
						for o := 0; o < Orientations; o++ {
							v[k] = box(o, x+dx, y+dy, x+dx+cell, y+dy+cell)
							k++
						}
					}
				}
				var norm float64
				for _, a := range v {
					norm += a * a
				}
				scale := 1 / (math.Sqrt(norm) + 4*float64(cell*cell))
				for j, a := range v {
					out[s*len(v)+j] = float32(a * scale)
				}
			}
		}
	}
	return d
}

// orientationIntegrals returns, for each orientation bin o, the integral
// image (of size (w+1) x (h+1)) of the gradient magnitude assigned to o.
// Gradients are central differences (one-sided on the border).
func orientationIntegrals(img *image.Gray) [Orientations][]float64 {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	at := func(x, y int) float64 {
		x = min(max(x, 0), w-1)
		y = min(max(y, 0), h-1)
		return float64(img.Pix[y*img.Stride+x])
	}
	var integ [Orientations][]float64
	for o := range integ {
		integ[o] = make([]float64, (w+1)*(h+1))
	}
	var row [Orientations]float64
	const binWidth = 2 * math.Pi / Orientations
	for y := 0; y < h; y++ {
		row = [Orientations]float64{}
		for x := 0; x < w; x++ {
			gx := at(x+1, y) - at(x-1, y)
			gy := at(x, y+1) - at(x, y-1)
			if mag := math.Hypot(gx, gy); mag > 0 {
				a := math.Atan2(gy, gx)
				if a < 0 {
					a += 2 * math.Pi
				}
				f := a/binWidth - 0.5 // bin centres at (o + 0.5) * binWidth
				lo := int(math.Floor(f))
				frac := f - float64(lo)
				row[(lo+Orientations)%Orientations] += mag * (1 - frac)
				row[(lo+1+Orientations)%Orientations] += mag * frac
			}
			for o := range integ {
				integ[o][(y+1)*(w+1)+x+1] = integ[o][y*(w+1)+x+1] + row[o]
			}
		}
	}
	return integ
}
