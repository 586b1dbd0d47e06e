package maxflow

import (
	"math"
	"math/rand/v2"
	"testing"
)

// superpixelInstance mimics the graph of a ~150-superpixel image: nodes on a
// jittered 15 x 10 lattice joined to their 6 nearest lattice neighbours (an
// average degree near 6, as SLIC adjacency graphs have), unary terms of both
// signs and contrast-like pairwise capacities.
func superpixelInstance(rng *rand.Rand) instance {
	const w, h = 15, 10
	in := instance{n: w * h, src: make([]float64, w*h), snk: make([]float64, w*h)}
	for i := range in.src {
		u := rng.NormFloat64()
		if u > 0 {
			in.src[i] = u
		} else {
			in.snk[i] = -u
		}
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			for _, d := range [][2]int{{1, 0}, {0, 1}, {1, 1}} {
				if x+d[0] < w && y+d[1] < h {
					c := 0.5 * math.Exp(-2*rng.Float64())
					in.edges = append(in.edges, edge{i: i, j: (y+d[1])*w + x + d[0], c: c, rev: c})
				}
			}
		}
	}
	return in
}

func benchmarkInstance(b *testing.B, in instance) {
	g := New(in.n, len(in.edges))
	b.ReportAllocs()
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		in.build(b, g)
		g.MaxFlow()
	}
}

// BenchmarkSuperpixelGraph builds and solves a 150-node superpixel-like
// graph (the max-flow part of one segmentation oracle call).
func BenchmarkSuperpixelGraph(b *testing.B) {
	benchmarkInstance(b, superpixelInstance(rand.New(rand.NewPCG(7, 8))))
}

// BenchmarkGrid100x100 builds and solves a 10,000-node 4-connected grid.
func BenchmarkGrid100x100(b *testing.B) {
	benchmarkInstance(b, gridInstance(rand.New(rand.NewPCG(9, 10)), 100, 100))
}

// BenchmarkSuperpixelTopology builds the graph of BenchmarkSuperpixelGraph
// the way the segmentation oracle does, from a Topology laid out once
// (ResetTopology, AddTerminals), and solves it.
//
//	go test -run '^$' -bench Superpixel ./inference/maxflow/
//
// Interleaved at load 9-10 (issue 21): BenchmarkSuperpixelGraph 22-24 us/op
// before and after the loops were tightened, this one 14-15 us/op;
// callgrind: 315.6k instructions per op before issue 21, 275.0k
// (SuperpixelGraph) and 193.5k (this one) after.
func BenchmarkSuperpixelTopology(b *testing.B) {
	in, edges, caps := undirected(superpixelInstance(rand.New(rand.NewPCG(7, 8))))
	topo, err := NewTopology(in.n, edges)
	if err != nil {
		b.Fatal(err)
	}
	g := New(in.n, len(edges))
	b.ReportAllocs()
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		buildTopology(b, g, topo, in, caps)
		g.MaxFlow()
	}
}
