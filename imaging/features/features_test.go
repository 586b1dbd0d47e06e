package features

import (
	"image"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// ramp returns a w x h image whose intensity grows by slope per pixel along
// (dx, dy), plus a constant.
func ramp(w, h int, dx, dy, slope float64) *image.Gray {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := 128 + slope*(dx*float64(x-w/2)+dy*float64(y-h/2))
			img.Pix[y*img.Stride+x] = uint8(math.Max(0, math.Min(255, math.Round(v))))
		}
	}
	return img
}

func noise(w, h int, seed uint64) *image.Gray {
	rng := rand.New(rand.NewPCG(seed, 3))
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(rng.IntN(256))
	}
	return img
}

// referenceDescriptor computes the descriptor at (x, y) directly from the
// pixels, without integral images.
func referenceDescriptor(img *image.Gray, cells []int, x, y int) []float32 {
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	at := func(x, y int) float64 {
		x = min(max(x, 0), w-1)
		y = min(max(y, 0), h-1)
		return float64(img.Pix[y*img.Stride+x])
	}
	var out []float32
	for _, c := range cells {
		var v []float64
		for _, oy := range []int{-c, 0} {
			for _, ox := range []int{-c, 0} {
				hist := make([]float64, Orientations)
				for py := y + oy; py < y+oy+c; py++ {
					for px := x + ox; px < x+ox+c; px++ {
						if px < 0 || py < 0 || px >= w || py >= h {
							continue
						}
						gx, gy := at(px+1, py)-at(px-1, py), at(px, py+1)-at(px, py-1)
						mag := math.Hypot(gx, gy)
						if mag == 0 {
							continue
						}
						a := math.Atan2(gy, gx)
						if a < 0 {
							a += 2 * math.Pi
						}
						f := a/(2*math.Pi/Orientations) - 0.5
						lo := int(math.Floor(f))
						hist[(lo+Orientations)%Orientations] += mag * (1 - (f - float64(lo)))
						hist[(lo+1+Orientations)%Orientations] += mag * (f - float64(lo))
					}
				}
				v = append(v, hist...)
			}
		}
		var norm float64
		for _, a := range v {
			norm += a * a
		}
		for _, a := range v {
			out = append(out, float32(a/(math.Sqrt(norm)+4*float64(c*c))))
		}
	}
	return out
}

func TestDescribeMatchesDirectComputation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		img    *image.Gray
		cells  []int
		stride int
	}{
		{"noise", noise(37, 29, 1), []int{4, 8}, 3},
		{"ramp", ramp(40, 30, 1, 0.5, 3), []int{3}, 2},
		{"tiny", noise(5, 4, 2), []int{4}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Describe(tc.img, tc.cells, tc.stride)
			if d.Dim != DescriptorDim(tc.cells) || len(d.Data) != d.Cols*d.Rows*d.Dim {
				t.Fatalf("dim %d, %d values for %d x %d points", d.Dim, len(d.Data), d.Cols, d.Rows)
			}
			if d.X(d.Cols-1) >= d.Width || d.Y(d.Rows-1) >= d.Height || d.X(d.Cols-1)+d.Stride < d.Width || d.Y(d.Rows-1)+d.Stride < d.Height {
				t.Fatalf("grid of %d x %d points does not cover the %d x %d image", d.Cols, d.Rows, d.Width, d.Height)
			}
			for r := 0; r < d.Rows; r++ {
				for c := 0; c < d.Cols; c++ {
					want := referenceDescriptor(tc.img, tc.cells, d.X(c), d.Y(r))
					got := d.At(c, r)
					for k := range want {
						if math.Abs(float64(got[k]-want[k])) > 1e-5 {
							t.Fatalf("point (%d, %d) value %d: %v, direct %v", c, r, k, got[k], want[k])
						}
					}
				}
			}
		})
	}
}

func TestDescribeOrientations(t *testing.T) {
	for _, tc := range []struct {
		name   string
		dx, dy float64
		bins   [2]int // the two bins sharing the gradient direction
	}{
		{"rightwards", 1, 0, [2]int{7, 0}}, // angle 0, between the centres 337.5 and 22.5 degrees
		{"downwards", 0, 1, [2]int{1, 2}},  // angle 90 degrees
		{"leftwards", -1, 0, [2]int{3, 4}}, // 180 degrees
		{"upwards", 0, -1, [2]int{5, 6}},   // 270 degrees
		{"diagonal", 1, 1, [2]int{0, 1}},   // 45 degrees, on the edge of two bins
		{"anti-diagonal", 1, -1, [2]int{6, 7}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Describe(ramp(40, 40, tc.dx, tc.dy, 2), []int{4}, 5)
			v := d.At(d.Cols/2, d.Rows/2)[:Orientations] // first cell
			var in, out float32
			for o, a := range v {
				if o == tc.bins[0] || o == tc.bins[1] {
					in += a
				} else {
					out += a
				}
			}
			if in <= 0 || out > 1e-6*in {
				t.Errorf("orientation histogram %v: energy outside bins %v", v, tc.bins)
			}
		})
	}
	flat := image.NewGray(image.Rect(0, 0, 20, 20))
	for _, v := range Describe(flat, []int{4, 8}, 3).Data {
		if v != 0 {
			t.Fatal("a flat image has a non-zero descriptor")
		}
	}
}

// blobs draws n samples around each of the given centres.
func blobs(centres [][]float32, n int, spread float64, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 4))
	var out []float32
	for k := 0; k < n; k++ {
		for _, c := range centres {
			for _, v := range c {
				out = append(out, v+float32(spread*rng.NormFloat64()))
			}
		}
	}
	return out
}

func TestKMeansRecoversSeparatedClusters(t *testing.T) {
	centres := [][]float32{{0, 0, 0}, {5, 5, 0}, {0, 5, 5}, {5, 0, 5}}
	samples := blobs(centres, 200, 0.3, 1)
	cb, err := KMeans(samples, 3, 4, 30, 7, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range centres {
		k := cb.Nearest(c)
		if d := sqDist(c, cb.center(k)); d > 0.1 {
			t.Errorf("true centre %v: nearest word %v at squared distance %v", c, cb.center(k), d)
		}
	}
	// Deterministic, and independent of the number of workers.
	for _, workers := range []int{1, 2, 5} {
		again, err := KMeans(samples, 3, 4, 30, 7, workers)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(again.Centers, cb.Centers) {
			t.Fatalf("%d workers give other centres", workers)
		}
	}
	// Nearest is the brute-force nearest centre.
	rng := rand.New(rand.NewPCG(2, 2))
	for trial := 0; trial < 200; trial++ {
		x := []float32{float32(6 * rng.Float64()), float32(6 * rng.Float64()), float32(6 * rng.Float64())}
		best := 0
		for k := 1; k < cb.K; k++ {
			if sqDist(x, cb.center(k)) < sqDist(x, cb.center(best)) {
				best = k
			}
		}
		if got := cb.Nearest(x); sqDist(x, cb.center(got)) > sqDist(x, cb.center(best))*(1+1e-5)+1e-6 {
			t.Fatalf("Nearest(%v) = %d, brute force %d", x, got, best)
		}
	}
}

func TestKMeansEdgeCasesAndErrors(t *testing.T) {
	// Identical samples: every centre is that sample (empty clusters are
	// re-seeded without failing).
	same := blobs([][]float32{{1, 2}}, 10, 0, 1)
	cb, err := KMeans(same, 2, 3, 5, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < cb.K; k++ {
		if c := cb.center(k); c[0] != 1 || c[1] != 2 {
			t.Errorf("centre %d = %v", k, c)
		}
	}
	for _, tc := range []struct {
		name    string
		samples []float32
		dim, k  int
	}{
		{"ragged", []float32{1, 2, 3}, 2, 1},
		{"too-few", []float32{1, 2}, 2, 2},
		{"zero-k", []float32{1, 2}, 2, 0},
		{"nan", []float32{1, float32(math.NaN())}, 2, 1},
	} {
		if _, err := KMeans(tc.samples, tc.dim, tc.k, 5, 1, 1); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	if _, err := NewCodebook([]float32{1, 2, 3}, 2); err == nil {
		t.Error("NewCodebook accepted a ragged matrix")
	}
	d := Describe(noise(10, 10, 1), []int{4}, 2)
	if _, err := cb.Assign(d); err == nil {
		t.Error("Assign accepted descriptors of another dimension")
	}
}

// gridRegions splits a w x h image into a cols x rows grid of rectangular
// regions with 4-adjacency between grid cells.
func gridRegions(w, h, cols, rows int) *Regions {
	r := &Regions{Width: w, Height: h, Labels: make([]int32, w*h), N: cols * rows}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r.Labels[y*w+x] = int32((y*rows/h)*cols + x*cols/w)
		}
	}
	for j := 0; j < rows; j++ {
		for i := 0; i < cols; i++ {
			p := int32(j*cols + i)
			if i+1 < cols {
				r.Edges = append(r.Edges, [2]int32{p, p + 1})
			}
			if j+1 < rows {
				r.Edges = append(r.Edges, [2]int32{p, p + int32(cols)})
			}
		}
	}
	return r
}

// randomWords assigns random words of a k-word codebook to the grid of d.
func randomWords(d *Dense, k int, seed uint64) *Words {
	rng := rand.New(rand.NewPCG(seed, 5))
	w := &Words{Grid: d, Words: make([]int32, d.Cols*d.Rows)}
	for i := range w.Words {
		w.Words[i] = int32(rng.IntN(k))
	}
	return w
}

func TestCountMatchesBruteForce(t *testing.T) {
	img := noise(41, 33, 3)
	r := gridRegions(41, 33, 4, 3)
	cfg := Config{GreyBins: 8, Words: 5, Grid: 3, Stride: 4}.WithDefaults()
	words := randomWords(Describe(img, cfg.Cells, cfg.Stride), cfg.Words, 1)
	counts, err := Count(img, r, words, cfg)
	if err != nil {
		t.Fatal(err)
	}
	H := cfg.HistogramsDim()
	want := make([]int32, r.N*H)
	for y := 0; y < 33; y++ {
		for x := 0; x < 41; x++ {
			p := int(r.Labels[y*41+x])
			want[p*H+int(img.Pix[y*img.Stride+x])*8/256]++
			want[p*H+8+5+(y*3/33)*3+x*3/41]++
		}
	}
	g := words.Grid
	for k, word := range words.Words {
		x, y := g.X(k%g.Cols), g.Y(k/g.Cols)
		want[int(r.Labels[y*41+x])*H+8+int(word)]++
	}
	if !slices.Equal(counts, want) {
		t.Fatal("counts differ from brute force")
	}
}

// histogram returns the normalized histogram of scope members of one kind
// computed from counts, the reference for FromCounts.
func histogram(counts []int32, H, off, size int, members []int32) []float64 {
	h := make([]float64, size)
	var sum float64
	for _, q := range members {
		for k := 0; k < size; k++ {
			v := float64(counts[int(q)*H+off+k])
			h[k] += v
			sum += v
		}
	}
	for k := range h {
		if sum > 0 {
			h[k] /= sum
		}
	}
	return h
}

func TestFromCountsMatchesDefinition(t *testing.T) {
	img := noise(60, 45, 4)
	r := gridRegions(60, 45, 5, 4)
	for _, noSqrt := range []bool{false, true} {
		cfg := Config{GreyBins: 8, Words: 6, Grid: 2, Stride: 3, NoSqrt: noSqrt, Etas: []float64{0.5, 1, 2, 3}}.WithDefaults()
		words := randomWords(Describe(img, cfg.Cells, cfg.Stride), cfg.Words, 2)
		counts, err := Count(img, r, words, cfg)
		if err != nil {
			t.Fatal(err)
		}
		unary, pairwise, err := FromCounts(counts, r.N, r.Edges, cfg)
		if err != nil {
			t.Fatal(err)
		}
		U, P, H := cfg.UnaryDim(), cfg.PairwiseDim(), cfg.HistogramsDim()
		if len(unary) != r.N*U || len(pairwise) != len(r.Edges)*P {
			t.Fatalf("%d unary and %d pairwise values", len(unary), len(pairwise))
		}
		// Reference neighbourhoods on the grid: by brute force over edges.
		adjacent := func(p, q int32) bool {
			return slices.Contains(r.Edges, [2]int32{min(p, q), max(p, q)})
		}
		scope := func(p int32, order int) []int32 {
			var m []int32
			for q := int32(0); q < int32(r.N); q++ {
				near := p == q || adjacent(p, q)
				if order == 2 && !near {
					for s := int32(0); s < int32(r.N); s++ {
						if (s == p || adjacent(p, s)) && (s == q || adjacent(s, q)) {
							near = true
						}
					}
				}
				if (order == 0 && p == q) || (order > 0 && near) {
					m = append(m, q)
				}
			}
			return m
		}
		sizes := cfg.histSizes()
		hists := func(p int32) [Scopes][Kinds][]float64 {
			var out [Scopes][Kinds][]float64
			for s := 0; s < Scopes; s++ {
				off := 0
				for k, size := range sizes {
					out[s][k] = histogram(counts, H, off, size, scope(p, s))
					off += size
				}
			}
			return out
		}
		for p := int32(0); p < int32(r.N); p++ {
			row := unary[int(p)*U : int(p+1)*U]
			if row[0] != 1 {
				t.Fatalf("constant feature %v", row[0])
			}
			j := 1
			for _, perKind := range hists(p) {
				for _, h := range perKind {
					for _, v := range h {
						if !noSqrt {
							v = math.Sqrt(v)
						}
						if math.Abs(float64(row[j])-v) > 1e-6 {
							t.Fatalf("sqrt=%v region %d feature %d: %v, want %v", !noSqrt, p, j, row[j], v)
						}
						j++
					}
				}
			}
		}
		for e, pq := range r.Edges {
			row := pairwise[e*P : (e+1)*P]
			if row[0] != 1 {
				t.Fatalf("constant pairwise feature %v", row[0])
			}
			a, b := hists(pq[0]), hists(pq[1])
			j := 1
			for s := 0; s < Scopes; s++ {
				for k := 0; k < Kinds; k++ {
					var d float64
					for i, x := range a[s][k] {
						if y := b[s][k][i]; x+y > 0 {
							d += (x - y) * (x - y) / (x + y) / 2
						}
					}
					for _, eta := range cfg.Etas {
						if want := math.Exp(-eta * d); math.Abs(float64(row[j])-want) > 1e-6 {
							t.Fatalf("edge %d feature %d: %v, want %v", e, j, row[j], want)
						}
						j++
					}
				}
			}
		}
	}
}

func TestFeaturesAreNonNegativeAndBounded(t *testing.T) {
	img := noise(50, 40, 5)
	r := gridRegions(50, 40, 6, 5)
	cfg := Config{Words: 7}.WithDefaults()
	words := randomWords(Describe(img, cfg.Cells, cfg.Stride), cfg.Words, 3)
	unary, pairwise, err := extract(img, r, words, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range slices.Concat(unary, pairwise) {
		if !(v >= 0 && v <= 1) {
			t.Fatalf("feature %v outside [0, 1]", v)
		}
	}
	// Two regions with identical histograms have all pairwise features 1.
	same := []int32{1, 0, 2, 1, 0, 2}
	H := 3
	c := Config{GreyBins: 1, Words: 1, Grid: 1, Etas: []float64{1, 2}}
	_, pw, err := FromCounts(same, 2, [][2]int32{{0, 1}}, c)
	if err != nil || len(pw) != c.WithDefaults().PairwiseDim() || H != c.WithDefaults().HistogramsDim() {
		t.Fatalf("%v, %d pairwise features", err, len(pw))
	}
	for _, v := range pw {
		if v != 1 {
			t.Fatalf("identical regions: pairwise features %v", pw)
		}
	}
}

func TestFeatureErrors(t *testing.T) {
	img := noise(20, 20, 6)
	r := gridRegions(20, 20, 2, 2)
	cfg := Config{Words: 4}.WithDefaults()
	d := Describe(img, cfg.Cells, cfg.Stride)
	good := randomWords(d, 4, 1)
	for _, tc := range []struct {
		name  string
		img   *image.Gray
		r     *Regions
		words *Words
		cfg   Config
		want  string
	}{
		{"size", noise(21, 20, 1), r, good, cfg, "regions of a"},
		{"label", img, &Regions{Width: 20, Height: 20, Labels: make([]int32, 400), N: 0}, good, cfg, "no regions"},
		{"edge", img, &Regions{Width: 20, Height: 20, Labels: r.Labels, N: 4, Edges: [][2]int32{{0, 4}}}, good, cfg, "edge"},
		{"words-grid", img, r, &Words{Grid: Describe(noise(10, 10, 1), cfg.Cells, cfg.Stride), Words: good.Words}, cfg, "visual words"},
		{"word-range", img, r, randomWords(d, 9, 1), cfg, "outside the codebook"},
		{"bins", img, r, good, Config{GreyBins: 300}, "invalid sizes"},
		{"eta", img, r, good, Config{Words: 4, Etas: []float64{-1}}, "eta"},
		{"cell", img, r, good, Config{Words: 4, Cells: []int{0}}, "cell size"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := extract(tc.img, tc.r, tc.words, tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
	if _, _, err := FromCounts([]int32{1, 2}, 1, nil, Config{GreyBins: 1, Words: 1, Grid: 1}); err == nil {
		t.Error("FromCounts accepted counts of the wrong length")
	}
	if _, _, err := FromCounts([]int32{1, -2, 3}, 1, nil, Config{GreyBins: 1, Words: 1, Grid: 1}); err == nil {
		t.Error("FromCounts accepted a negative count")
	}
	if _, _, err := FromCounts([]int32{1, 2, 3}, 1, [][2]int32{{0, 0}}, Config{GreyBins: 1, Words: 1, Grid: 1}); err == nil {
		t.Error("FromCounts accepted a self edge")
	}
}

// BenchmarkDescribe times the texture descriptors of a 300 x 200 image (the
// size of the Weizmann horses) with the default cells and stride.
func BenchmarkDescribe(b *testing.B) {
	img := noise(300, 200, 7)
	cfg := Config{}.WithDefaults()
	for k := 0; k < b.N; k++ {
		Describe(img, cfg.Cells, cfg.Stride)
	}
}

// BenchmarkAssign times quantizing those descriptors with a 64-word
// codebook.
func BenchmarkAssign(b *testing.B) {
	img := noise(300, 200, 7)
	cfg := Config{}.WithDefaults()
	d := Describe(img, cfg.Cells, cfg.Stride)
	cb, err := KMeans(d.Data[:2000*d.Dim], d.Dim, cfg.Words, 5, 1, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		cb.Assign(d)
	}
}

// BenchmarkFromCounts times the features of 150 regions from their
// histograms (what a cached load of the horses does per image).
func BenchmarkFromCounts(b *testing.B) {
	img := noise(300, 200, 8)
	r := gridRegions(300, 200, 15, 10)
	cfg := Config{}.WithDefaults()
	counts, err := Count(img, r, randomWords(Describe(img, cfg.Cells, cfg.Stride), cfg.Words, 4), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		FromCounts(counts, r.N, r.Edges, cfg)
	}
}

// extract computes the unary and pairwise features of the regions of img
// as the package's users do, FromCounts(Count(...)).
func extract(img *image.Gray, r *Regions, words *Words, cfg Config) (unary, pairwise []float32, err error) {
	counts, err := Count(img, r, words, cfg)
	if err != nil {
		return nil, nil, err
	}
	return FromCounts(counts, r.N, r.Edges, cfg)
}
