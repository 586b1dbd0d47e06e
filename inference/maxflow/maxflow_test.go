package maxflow

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// instance is a graph described by its capacities, so that it can be
// solved by Graph, by brute force and by Edmonds-Karp.
type instance struct {
	n        int
	src, snk []float64 // terminal capacities (accumulated like AddTerminal)
	edges    []edge
}

type edge struct {
	i, j   int
	c, rev float64
}

// capacity draws a capacity: often zero, sometimes huge, else moderate.
func capacity(rng *rand.Rand, integer bool) float64 {
	switch r := rng.IntN(10); {
	case r == 0:
		return 0
	case r == 1 && !integer:
		return 1e9 * rng.Float64()
	case r == 1:
		return float64(1_000_000 + rng.IntN(1_000_000))
	case integer:
		return float64(rng.IntN(100))
	default:
		return 10 * rng.Float64()
	}
}

// randomInstance draws a random graph with n nodes and about deg*n/2
// edges. Terminal capacities may be negative unless integer is set.
func randomInstance(rng *rand.Rand, n int, deg float64, integer bool) instance {
	in := instance{n: n, src: make([]float64, n), snk: make([]float64, n)}
	for i := 0; i < n; i++ {
		in.src[i], in.snk[i] = capacity(rng, integer), capacity(rng, integer)
		if !integer && rng.IntN(5) == 0 {
			in.src[i] -= 5 * rng.Float64()
		}
	}
	if n < 2 {
		return in
	}
	m := int(deg * float64(n) / 2)
	for k := 0; k < m; k++ {
		i, j := rng.IntN(n), rng.IntN(n-1)
		if j >= i {
			j++
		}
		in.edges = append(in.edges, edge{i: i, j: j, c: capacity(rng, integer), rev: capacity(rng, integer)})
	}
	return in
}

// gridInstance is a w x h 4-connected grid with random capacities.
func gridInstance(rng *rand.Rand, w, h int) instance {
	in := instance{n: w * h, src: make([]float64, w*h), snk: make([]float64, w*h)}
	for i := range in.src {
		in.src[i], in.snk[i] = capacity(rng, true), capacity(rng, true)
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			if x+1 < w {
				c := float64(rng.IntN(60))
				in.edges = append(in.edges, edge{i: i, j: i + 1, c: c, rev: c})
			}
			if y+1 < h {
				c := float64(rng.IntN(60))
				in.edges = append(in.edges, edge{i: i, j: i + w, c: c, rev: c})
			}
		}
	}
	return in
}

// build fills g with the instance.
func (in instance) build(t testing.TB, g *Graph) {
	t.Helper()
	g.Reset(in.n)
	for i := 0; i < in.n; i++ {
		// Split the capacities over two calls to exercise accumulation.
		if err := g.AddTerminal(i, in.src[i]/2, in.snk[i]/4); err != nil {
			t.Fatal(err)
		}
		if err := g.AddTerminal(i, in.src[i]-in.src[i]/2, in.snk[i]-in.snk[i]/4); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range in.edges {
		if err := g.AddEdge(e.i, e.j, e.c, e.rev); err != nil {
			t.Fatal(err)
		}
	}
}

// cut returns the cost of the segmentation side(i) (true: Sink).
func (in instance) cut(sink func(i int) bool) float64 {
	var c float64
	for i := 0; i < in.n; i++ {
		if sink(i) {
			c += in.src[i]
		} else {
			c += in.snk[i]
		}
	}
	for _, e := range in.edges {
		si, sj := sink(e.i), sink(e.j)
		if !si && sj {
			c += e.c
		} else if si && !sj {
			c += e.rev
		}
	}
	return c
}

// bruteForce returns the minimum cut cost over all 2^n segmentations.
func (in instance) bruteForce() float64 {
	best := math.Inf(1)
	for mask := 0; mask < 1<<in.n; mask++ {
		best = math.Min(best, in.cut(func(i int) bool { return mask>>i&1 == 1 }))
	}
	return best
}

func close(a, b, scale float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, scale)
}

// scale returns the sum of the absolute capacities, the natural size of
// rounding errors.
func (in instance) scale() float64 {
	var s float64
	for i := range in.src {
		s += math.Abs(in.src[i]) + math.Abs(in.snk[i])
	}
	for _, e := range in.edges {
		s += e.c + e.rev
	}
	return s
}

func TestMaxFlowEqualsBruteForceOnSmallGraphs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	g := New(0, 0)
	for n := 1; n <= 14; n++ {
		trials := 400
		if n > 10 {
			trials = 60
		}
		for trial := 0; trial < trials; trial++ {
			deg := []float64{0, 1, 2.5, 4, float64(n)}[trial%5]
			in := randomInstance(rng, n, deg, trial%3 == 0)
			in.build(t, g)
			flow := g.MaxFlow()
			want := in.bruteForce()
			sc := in.scale()
			if !close(flow, want, sc) {
				t.Fatalf("n=%d trial %d: MaxFlow %v, brute-force minimum cut %v", n, trial, flow, want)
			}
			got := in.cut(func(i int) bool { return g.Segment(i) == Sink })
			if !close(got, flow, sc) {
				t.Fatalf("n=%d trial %d: the segmentation cuts %v, MaxFlow says %v", n, trial, got, flow)
			}
			if again := g.MaxFlow(); again != flow {
				t.Fatalf("n=%d trial %d: second MaxFlow %v != %v", n, trial, again, flow)
			}
		}
	}
}

// edmondsKarp is an independent max-flow: shortest augmenting paths found by
// breadth-first search on an explicit residual network with a source and a
// sink node. It needs non-negative capacities.
func edmondsKarp(in instance) (flow float64, sourceSide []bool) {
	n := in.n + 2
	s, t := in.n, in.n+1
	type arcT struct {
		to  int
		cap float64
	}
	var arcs []arcT
	adj := make([][]int, n)
	add := func(u, v int, c, r float64) {
		adj[u] = append(adj[u], len(arcs))
		arcs = append(arcs, arcT{v, c})
		adj[v] = append(adj[v], len(arcs))
		arcs = append(arcs, arcT{u, r})
	}
	for i := 0; i < in.n; i++ {
		add(s, i, in.src[i], 0)
		add(i, t, in.snk[i], 0)
	}
	for _, e := range in.edges {
		add(e.i, e.j, e.c, e.rev)
	}
	prev := make([]int, n)
	queue := make([]int, 0, n)
	for {
		for k := range prev {
			prev[k] = -1
		}
		prev[s] = -2
		queue = append(queue[:0], s)
		for h := 0; h < len(queue) && prev[t] == -1; h++ {
			u := queue[h]
			for _, a := range adj[u] {
				if v := arcs[a].to; arcs[a].cap > 0 && prev[v] == -1 {
					prev[v] = a
					queue = append(queue, v)
				}
			}
		}
		if prev[t] == -1 {
			break
		}
		b := math.Inf(1)
		for v := t; v != s; v = arcs[prev[v]^1].to {
			b = math.Min(b, arcs[prev[v]].cap)
		}
		for v := t; v != s; v = arcs[prev[v]^1].to {
			arcs[prev[v]].cap -= b
			arcs[prev[v]^1].cap += b
		}
		flow += b
	}
	sourceSide = make([]bool, in.n)
	for i := range sourceSide {
		sourceSide[i] = prev[i] != -1
	}
	return flow, sourceSide
}

func TestMaxFlowEqualsEdmondsKarpOnLargeGraphs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	g := New(0, 0)
	cases := []struct {
		name string
		in   instance
	}{
		{"sparse-2000", randomInstance(rng, 2000, 3, true)},
		{"sparse-5000", randomInstance(rng, 5000, 2, true)},
		{"dense-1000", randomInstance(rng, 1000, 12, true)},
		{"grid-60x50", gridInstance(rng, 60, 50)},
		{"grid-100x40", gridInstance(rng, 100, 40)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.build(t, g)
			flow := g.MaxFlow()
			want, sourceSide := edmondsKarp(tc.in)
			if flow != want {
				t.Fatalf("MaxFlow %v, Edmonds-Karp %v", flow, want)
			}
			if c := tc.in.cut(func(i int) bool { return g.Segment(i) == Sink }); c != flow {
				t.Fatalf("the segmentation cuts %v, MaxFlow says %v", c, flow)
			}
			if c := tc.in.cut(func(i int) bool { return !sourceSide[i] }); c != want {
				t.Fatalf("reference: the cut cost %v differs from its flow %v", c, want)
			}
		})
	}
}

func TestResetReusesStorageWithoutAllocating(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	small := randomInstance(rng, 150, 6, false)
	big := gridInstance(rng, 40, 40)
	g := New(0, 0)
	big.build(t, g)
	wantBig := g.MaxFlow()
	small.build(t, g)
	wantSmall := g.MaxFlow()
	// The same graphs solved again on the reused storage give the same
	// answers, without allocating.
	var got float64
	allocs := testing.AllocsPerRun(20, func() {
		small.build(t, g)
		got = g.MaxFlow()
	})
	if allocs != 0 {
		t.Errorf("rebuilding and solving allocates %.1f times", allocs)
	}
	if got != wantSmall {
		t.Errorf("reused graph gives %v, first solve %v", got, wantSmall)
	}
	big.build(t, g)
	if got := g.MaxFlow(); got != wantBig {
		t.Errorf("reused graph gives %v on the grid, first solve %v", got, wantBig)
	}
}

func TestErrors(t *testing.T) {
	g := New(3, 2)
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"node-range", g.AddTerminal(3, 1, 1), "outside [0, 3)"},
		{"negative-node", g.AddEdge(-1, 0, 1, 1), "outside [0, 3)"},
		{"nan-terminal", g.AddTerminal(0, math.NaN(), 1), "finite"},
		{"inf-terminal", g.AddTerminal(0, 1, math.Inf(1)), "finite"},
		{"self-loop", g.AddEdge(1, 1, 1, 1), "itself"},
		{"negative-edge", g.AddEdge(0, 1, -1, 1), "non-negative"},
		{"nan-edge", g.AddEdge(0, 1, 1, math.NaN()), "non-negative"},
		{"inf-edge", g.AddEdge(0, 1, math.Inf(1), 0), "finite"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, tc.err, tc.want)
		}
	}
	if g.Edges() != 0 {
		t.Errorf("rejected edges were added: %d edges", g.Edges())
	}
	if err := g.AddEdge(0, 1, 1, 2); err != nil {
		t.Fatal(err)
	}
	if f := g.MaxFlow(); f != 0 {
		t.Errorf("flow %v without terminal capacities", f)
	}
	if err := g.AddEdge(0, 2, 1, 1); err == nil || !strings.Contains(err.Error(), "Reset") {
		t.Errorf("AddEdge after MaxFlow: %v", err)
	}
	if err := g.AddTerminal(0, 1, 1); err == nil {
		t.Error("AddTerminal after MaxFlow accepted")
	}
	if s := g.Segment(7); s != Source {
		t.Errorf("Segment out of range = %v", s)
	}
}

func TestSegmentOfSimpleGraphs(t *testing.T) {
	for _, tc := range []struct {
		name     string
		src, snk []float64
		edges    []edge
		flow     float64
		sides    []Side
	}{
		{"source-only", []float64{3}, []float64{0}, nil, 0, []Side{Source}},
		{"sink-only", []float64{0}, []float64{2}, nil, 0, []Side{Sink}},
		{"both", []float64{3}, []float64{2}, nil, 2, []Side{Source}},
		{"negative-source", []float64{-1}, []float64{2}, nil, -1, []Side{Sink}},
		{"chain", []float64{5, 0, 0}, []float64{0, 0, 4}, []edge{{i: 0, j: 1, c: 3}, {i: 1, j: 2, c: 2}}, 2, []Side{Source, Source, Sink}},
		{"reverse-only", []float64{5, 0}, []float64{0, 4}, []edge{{i: 0, j: 1, rev: 3}}, 0, []Side{Source, Sink}},
		{"free-node", []float64{1, 0}, []float64{0, 0}, nil, 0, []Side{Source, Source}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := instance{n: len(tc.src), src: tc.src, snk: tc.snk, edges: tc.edges}
			g := New(in.n, len(in.edges))
			in.build(t, g)
			if f := g.MaxFlow(); f != tc.flow {
				t.Errorf("flow %v, want %v", f, tc.flow)
			}
			for i, want := range tc.sides {
				if got := g.Segment(i); got != want {
					t.Errorf("node %d on the %v side, want %v", i, got, want)
				}
			}
		})
	}
}
