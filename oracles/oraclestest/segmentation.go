package oraclestest

import (
	"math/rand/v2"

	"github.com/fwstruct/fwstruct/oracles"
)

// SegmentationConfig describes a random segmentation problem.
type SegmentationConfig struct {
	N        int // images
	MinNodes int // regions per image, uniform in [MinNodes, MaxNodes]
	MaxNodes int
	Unary    int     // features per region
	Pairwise int     // features per edge
	Degree   float64 // mean number of neighbours of a region
	Seed     uint64
}

// Segmentation returns a random segmentation problem: random region graphs
// (a path through the regions, so that graphs are connected, plus random
// extra edges), unary features with some zeros, non-negative pairwise
// features, random labels correlated with the first unary feature, and
// random areas and foreground counts. It panics on invalid configurations
// (test helper).
func Segmentation(cfg SegmentationConfig) *oracles.Segmentation {
	rng := rand.New(rand.NewPCG(cfg.Seed, 79))
	images := make([]oracles.SegImage, cfg.N)
	for i := range images {
		n := cfg.MinNodes + rng.IntN(cfg.MaxNodes-cfg.MinNodes+1)
		im := oracles.SegImage{
			Unary: make([]float32, n*cfg.Unary),
			Truth: make([]int32, n),
			Area:  make([]int32, n),
		}
		im.Foreground = make([]int32, n)
		for p := 0; p < n; p++ {
			for k := 0; k < cfg.Unary; k++ {
				if rng.IntN(4) > 0 {
					im.Unary[p*cfg.Unary+k] = float32(rng.Float64())
				}
			}
			if im.Unary[p*cfg.Unary]+0.3*float32(rng.NormFloat64()) > 0.5 {
				im.Truth[p] = 1
			}
			im.Area[p] = int32(1 + rng.IntN(50))
			// Mostly pure regions, as superpixels are.
			frac := 0.1 * rng.Float64()
			if im.Truth[p] == 1 {
				frac = 1 - frac
			}
			im.Foreground[p] = int32(frac * float64(im.Area[p]))
		}
		seen := map[[2]int32]bool{}
		addEdge := func(p, q int32) {
			key := [2]int32{min(p, q), max(p, q)}
			if p == q || seen[key] {
				return
			}
			seen[key] = true
			im.Edges = append(im.Edges, [2]int32{p, q})
			for k := 0; k < cfg.Pairwise; k++ {
				v := float32(0)
				if rng.IntN(5) > 0 {
					v = float32(rng.Float64())
				}
				im.Pairwise = append(im.Pairwise, v)
			}
		}
		for p := 1; p < n; p++ {
			addEdge(int32(rng.IntN(p)), int32(p))
		}
		for k := 0; k < int(cfg.Degree*float64(n)/2)-(n-1); k++ {
			addEdge(int32(rng.IntN(n)), int32(rng.IntN(n)))
		}
		images[i] = im
	}
	s, err := oracles.NewSegmentation(cfg.Unary, cfg.Pairwise, images)
	if err != nil {
		panic(err)
	}
	return s
}
