package slic

import (
	"image"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// regions draws a piecewise-constant test image: a background, two
// rectangles and a disc of well-separated intensities, plus uniform noise of
// amplitude noise. It returns the image and the region of every pixel.
func regions(w, h int, noise float64, seed uint64) (*image.Gray, []int) {
	rng := rand.New(rand.NewPCG(seed, 1))
	img := image.NewGray(image.Rect(0, 0, w, h))
	region := make([]int, w*h)
	level := []float64{40, 200, 120, 250}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r := 0
			switch {
			case (x-2*w/3)*(x-2*w/3)+(y-h/2)*(y-h/2) < (h/3)*(h/3):
				r = 3
			case x > w/10 && x < w/2 && y > h/8 && y < h/2:
				r = 1
			case x > w/5 && x < w/2 && y >= h/2 && y < 7*h/8:
				r = 2
			}
			region[y*w+x] = r
			v := level[r] + noise*(2*rng.Float64()-1)
			img.Pix[y*img.Stride+x] = uint8(math.Max(0, math.Min(255, math.Round(v))))
		}
	}
	return img, region
}

// noiseImage is pure noise, which fragments the k-means clusters and
// exercises the connectivity step.
func noiseImage(w, h int, seed uint64) *image.Gray {
	rng := rand.New(rand.NewPCG(seed, 2))
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(rng.IntN(256))
	}
	return img
}

// checkConnected fails unless every superpixel of r is one 4-connected
// component, every label is in [0, N) and used, and labels are numbered in
// the raster order of their first pixels.
func checkConnected(t *testing.T, r *Result) {
	t.Helper()
	w, h := r.Width, r.Height
	if len(r.Labels) != w*h {
		t.Fatalf("%d labels for %d x %d pixels", len(r.Labels), w, h)
	}
	first := make([]int, r.N)
	for i := range first {
		first[i] = -1
	}
	next := int32(0)
	for i, l := range r.Labels {
		if l < 0 || int(l) >= r.N {
			t.Fatalf("pixel %d has label %d outside [0, %d)", i, l, r.N)
		}
		if first[l] < 0 {
			if l != next {
				t.Fatalf("label %d first appears after label %d: not in raster order", l, next-1)
			}
			first[l] = i
			next++
		}
	}
	if int(next) != r.N {
		t.Fatalf("%d labels used, N = %d", next, r.N)
	}
	sizes := r.Sizes()
	seen := make([]bool, w*h)
	for l, start := range first {
		// Flood fill from the first pixel within the label.
		stack, reached := []int{start}, 1
		seen[start] = true
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			x, y := i%w, i/w
			for _, d := range [][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
				nx, ny := x+d[0], y+d[1]
				if nx < 0 || ny < 0 || nx >= w || ny >= h {
					continue
				}
				j := ny*w + nx
				if !seen[j] && r.Labels[j] == int32(l) {
					seen[j] = true
					reached++
					stack = append(stack, j)
				}
			}
		}
		if reached != sizes[l] {
			t.Fatalf("superpixel %d has %d pixels but only %d are connected to its first pixel", l, sizes[l], reached)
		}
	}
}

func TestSuperpixelsFollowStrongEdges(t *testing.T) {
	for _, tc := range []struct {
		name        string
		w, h, k     int
		noise       float64
		compactness float64
	}{
		{"clean", 240, 160, 100, 0, 0},
		{"noisy", 240, 160, 100, 12, 0},
		{"fine", 300, 200, 300, 8, 10},
		{"compact", 300, 200, 150, 8, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img, region := regions(tc.w, tc.h, tc.noise, 1)
			r, err := Segment(img, Params{Superpixels: tc.k, Compactness: tc.compactness})
			if err != nil {
				t.Fatal(err)
			}
			checkConnected(t, r)
			counts := make([][4]int, r.N)
			for i, l := range r.Labels {
				counts[l][region[i]]++
			}
			misplaced := 0
			for l, c := range counts {
				best, total := 0, 0
				for _, v := range c {
					best = max(best, v)
					total += v
				}
				if frac := float64(best) / float64(total); frac < 0.8 {
					t.Errorf("superpixel %d straddles an edge: only %.2f of its %d pixels in one region", l, frac, total)
				}
				misplaced += total - best
			}
			if frac := float64(misplaced) / float64(len(region)); frac > 0.01 {
				t.Errorf("%.3f of the pixels lie in a superpixel dominated by another region", frac)
			}
		})
	}
}

func TestSuperpixelCountAndConnectivity(t *testing.T) {
	for _, tc := range []struct {
		name string
		img  *image.Gray
		k    int
	}{
		{"regions-50", func() *image.Gray { g, _ := regions(300, 200, 10, 2); return g }(), 50},
		{"regions-150", func() *image.Gray { g, _ := regions(300, 200, 10, 3); return g }(), 150},
		{"regions-400", func() *image.Gray { g, _ := regions(300, 200, 10, 4); return g }(), 400},
		{"noise-150", noiseImage(280, 190, 5), 150},
		{"noise-tall", noiseImage(90, 310, 6), 120},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Segment(tc.img, Params{Superpixels: tc.k})
			if err != nil {
				t.Fatal(err)
			}
			checkConnected(t, r)
			if float64(r.N) < 0.75*float64(tc.k) || float64(r.N) > 1.25*float64(tc.k) {
				t.Errorf("%d superpixels, asked for %d", r.N, tc.k)
			}
		})
	}
}

func TestDeterministic(t *testing.T) {
	img, _ := regions(200, 150, 20, 7)
	a, err := Segment(img, Params{Superpixels: 80})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Segment(img, Params{Superpixels: 80})
	if a.N != b.N || !slices.Equal(a.Labels, b.Labels) {
		t.Fatal("two runs on the same image differ")
	}
}

func TestAdjacencyMatchesPixelNeighbours(t *testing.T) {
	img, _ := regions(160, 120, 15, 8)
	r, err := Segment(img, Params{Superpixels: 60})
	if err != nil {
		t.Fatal(err)
	}
	want := map[[2]int32]bool{}
	for y := 0; y < r.Height; y++ {
		for x := 0; x < r.Width; x++ {
			a := r.Labels[y*r.Width+x]
			for _, d := range [][2]int{{1, 0}, {0, 1}, {-1, 0}, {0, -1}} {
				nx, ny := x+d[0], y+d[1]
				if nx < 0 || ny < 0 || nx >= r.Width || ny >= r.Height {
					continue
				}
				if b := r.Labels[ny*r.Width+nx]; a < b {
					want[[2]int32{a, b}] = true
				}
			}
		}
	}
	got := r.Adjacency()
	if len(got) != len(want) {
		t.Fatalf("%d adjacent pairs, want %d", len(got), len(want))
	}
	for k, p := range got {
		if !want[p] {
			t.Errorf("pair %v is not adjacent", p)
		}
		if k > 0 && (got[k-1][0] > p[0] || got[k-1][0] == p[0] && got[k-1][1] >= p[1]) {
			t.Errorf("pairs not sorted at %d: %v then %v", k, got[k-1], p)
		}
	}
	degree := make([]int, r.N)
	for _, p := range got {
		degree[p[0]]++
		degree[p[1]]++
	}
	for l, d := range degree {
		if d == 0 {
			t.Errorf("superpixel %d touches no other", l)
		}
	}
}

func TestEdgeCasesAndErrors(t *testing.T) {
	tiny := image.NewGray(image.Rect(0, 0, 1, 1))
	r, err := Segment(tiny, Params{})
	if err != nil || r.N != 1 || len(r.Labels) != 1 || len(r.Adjacency()) != 0 {
		t.Fatalf("1x1 image: %+v, %v", r, err)
	}
	for _, tc := range []struct {
		name string
		img  *image.Gray
		k    int
	}{
		{"more-superpixels-than-pixels", noiseImage(4, 3, 1), 50},
		{"one-row", noiseImage(200, 1, 2), 10},
		{"one-column", noiseImage(1, 150, 3), 10},
		{"one-superpixel", noiseImage(50, 40, 4), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Segment(tc.img, Params{Superpixels: tc.k})
			if err != nil {
				t.Fatal(err)
			}
			checkConnected(t, r)
			if r.N < 1 || r.N > len(r.Labels) {
				t.Errorf("%d superpixels for %d pixels", r.N, len(r.Labels))
			}
		})
	}
	offset := image.NewGray(image.Rect(10, 20, 70, 60)) // bounds not at the origin
	copy(offset.Pix, noiseImage(60, 40, 9).Pix)
	if r, err := Segment(offset, Params{Superpixels: 12}); err != nil || r.Width != 60 || r.Height != 40 {
		t.Errorf("offset image: %v, %v", r, err)
	}
	for _, tc := range []struct {
		name string
		img  *image.Gray
		p    Params
	}{
		{"nil", nil, Params{}},
		{"empty", image.NewGray(image.Rect(0, 0, 0, 5)), Params{}},
		{"negative-k", tiny, Params{Superpixels: -1}},
		{"negative-iterations", tiny, Params{Iterations: -2}},
		{"nan-compactness", tiny, Params{Compactness: math.NaN()}},
		{"negative-compactness", tiny, Params{Compactness: -3}},
	} {
		if _, err := Segment(tc.img, tc.p); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// BenchmarkSegment times SLIC with 150 superpixels on a 300 x 200 image,
// the size of the Weizmann horses.
func BenchmarkSegment(b *testing.B) {
	img, _ := regions(300, 200, 15, 10)
	b.ReportAllocs()
	for k := 0; k < b.N; k++ {
		if _, err := Segment(img, Params{}); err != nil {
			b.Fatal(err)
		}
	}
}
