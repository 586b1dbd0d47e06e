package features_test

import (
	"fmt"
	"image"

	"github.com/fwstruct/fwstruct/imaging/features"
)

// Describe a 40 x 20 image split into two regions (left and right halves)
// with a 4-word codebook learned on its own texture descriptors.
func Example() {
	img := image.NewGray(image.Rect(0, 0, 40, 20))
	labels := make([]int32, 40*20)
	for y := 0; y < 20; y++ {
		for x := 0; x < 40; x++ {
			img.Pix[y*40+x] = uint8(40 + 5*(x%2)) // dark stripes on the left
			if x >= 20 {
				img.Pix[y*40+x] = 200 // flat and bright on the right
				labels[y*40+x] = 1
			}
		}
	}
	cfg := features.Config{GreyBins: 8, Words: 4, Grid: 2}
	full := cfg.WithDefaults()
	d := features.Describe(img, full.Cells, full.Stride)
	codebook, err := features.KMeans(d.Data, d.Dim, full.Words, 10, 1, 1)
	if err != nil {
		panic(err)
	}
	words, err := codebook.Assign(d)
	if err != nil {
		panic(err)
	}
	r := &features.Regions{Width: 40, Height: 20, Labels: labels, N: 2, Edges: [][2]int32{{0, 1}}}
	// The raw histograms of every region (what a cache keeps), then the
	// features computed from them.
	counts, err := features.Count(img, r, &features.Words{Grid: d, Words: words}, cfg)
	if err != nil {
		panic(err)
	}
	unary, pairwise, err := features.FromCounts(counts, r.N, r.Edges, cfg)
	if err != nil {
		panic(err)
	}
	fmt.Println("unary features per region:", full.UnaryDim(), len(unary)/2)
	fmt.Println("pairwise features per edge:", full.PairwiseDim(), len(pairwise))
	fmt.Printf("exp(-chi2) of the grey histograms of the two regions: %.2f\n", pairwise[1+5]) // eta = 1
	// Output:
	// unary features per region: 49 49
	// pairwise features per edge: 100 100
	// exp(-chi2) of the grey histograms of the two regions: 0.37
}
