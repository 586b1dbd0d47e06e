package maxflow

import (
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// undirected returns in with every edge's reverse capacity set to its
// capacity (the graphs of a Topology) and its edge list.
func undirected(in instance) (instance, [][2]int32, []float64) {
	edges := make([][2]int32, len(in.edges))
	caps := make([]float64, len(in.edges))
	for k := range in.edges {
		in.edges[k].rev = in.edges[k].c
		edges[k] = [2]int32{int32(in.edges[k].i), int32(in.edges[k].j)}
		caps[k] = in.edges[k].c
	}
	return in, edges, caps
}

// buildTopology fills g with in through a Topology and AddTerminals.
func buildTopology(t testing.TB, g *Graph, topo *Topology, in instance, caps []float64) {
	t.Helper()
	if err := g.ResetTopology(topo, caps); err != nil {
		t.Fatal(err)
	}
	if err := g.AddTerminals(in.src, in.snk); err != nil {
		t.Fatal(err)
	}
}

// TestResetTopologyMatchesAddEdge: a graph given its edges by
// ResetTopology and its terminals by AddTerminals has, bit for bit, the
// flow and the cut of the same graph built node by node and edge by edge
// (edges of capacity 0 left out, as ResetTopology's doc promises), on
// random graphs with zero, tiny and huge capacities; the small ones also
// against brute force. One Graph serves every size in turn.
func TestResetTopologyMatchesAddEdge(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	ref, g := New(0, 0), New(0, 0)
	for trial := 0; trial < 300; trial++ {
		n := 1 + rng.IntN(12)
		if trial%10 == 0 {
			n = 100 + rng.IntN(200)
		}
		in, edges, caps := undirected(randomInstance(rng, n, []float64{0, 1, 3, 6}[trial%4], trial%3 == 0))
		topo, err := NewTopology(n, edges)
		if err != nil {
			t.Fatal(err)
		}
		ref.Reset(n)
		for i := 0; i < n; i++ {
			if err := ref.AddTerminal(i, in.src[i], in.snk[i]); err != nil {
				t.Fatal(err)
			}
		}
		for _, e := range in.edges {
			if e.c != 0 {
				if err := ref.AddEdge(e.i, e.j, e.c, e.c); err != nil {
					t.Fatal(err)
				}
			}
		}
		buildTopology(t, g, topo, in, caps)
		want, got := ref.MaxFlow(), g.MaxFlow()
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("trial %d (n=%d): flow %v through the topology, %v edge by edge", trial, n, got, want)
		}
		for i := 0; i < n; i++ {
			if g.Segment(i) != ref.Segment(i) {
				t.Fatalf("trial %d (n=%d): node %d on the %v side through the topology, %v edge by edge", trial, n, i, g.Segment(i), ref.Segment(i))
			}
		}
		if g.Edges() != len(edges) || topo.Edges() != len(edges) || topo.Len() != n || g.Len() != n {
			t.Fatalf("trial %d: %d and %d edges, %d and %d nodes, want %d and %d", trial, g.Edges(), topo.Edges(), g.Len(), topo.Len(), len(edges), n)
		}
		if n <= 12 {
			if b := in.bruteForce(); !close(got, b, in.scale()) {
				t.Fatalf("trial %d (n=%d): flow %v, brute-force minimum cut %v", trial, n, got, b)
			}
		}
	}
}

// TestResetTopologyWithoutAllocating: rebuilding and solving a graph of a
// topology allocates nothing once the graph has held one as large.
func TestResetTopologyWithoutAllocating(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	in, edges, caps := undirected(superpixelInstance(rng))
	topo, err := NewTopology(in.n, edges)
	if err != nil {
		t.Fatal(err)
	}
	g := New(0, 0)
	buildTopology(t, g, topo, in, caps)
	want := g.MaxFlow()
	var got float64
	if allocs := testing.AllocsPerRun(20, func() {
		buildTopology(t, g, topo, in, caps)
		got = g.MaxFlow()
	}); allocs != 0 {
		t.Errorf("rebuilding and solving allocates %.1f times", allocs)
	}
	if got != want {
		t.Errorf("rebuilt graph gives %v, first solve %v", got, want)
	}
}

// TestTopologyConcurrentUse: graphs in several goroutines share one
// Topology, each solving its own capacities, and get what a lone graph
// gets (run with -race to check that nothing writes to the topology).
func TestTopologyConcurrentUse(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	base, edges, _ := undirected(superpixelInstance(rng))
	topo, err := NewTopology(base.n, edges)
	if err != nil {
		t.Fatal(err)
	}
	const jobs = 16
	ins, caps, want := make([]instance, jobs), make([][]float64, jobs), make([]float64, jobs)
	lone := New(0, 0)
	for k := range ins {
		in, _, c := undirected(superpixelInstance(rand.New(rand.NewPCG(uint64(k), 17))))
		ins[k], caps[k] = in, c
		buildTopology(t, lone, topo, in, c)
		want[k] = lone.MaxFlow()
	}
	got := make([]float64, jobs)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := New(0, 0)
			for k := w; k < jobs; k += 4 {
				buildTopology(t, g, topo, ins[k], caps[k])
				got[k] = g.MaxFlow()
			}
		}()
	}
	wg.Wait()
	for k := range got {
		if got[k] != want[k] {
			t.Errorf("job %d: flow %v in a goroutine, %v alone", k, got[k], want[k])
		}
	}
}

func TestTopologyErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		n     int
		edges [][2]int32
		want  string
	}{
		{"out-of-range", 3, [][2]int32{{0, 1}, {1, 3}}, "edge 1 joins nodes 1 and 3, outside [0, 3)"},
		{"negative-node", 3, [][2]int32{{-1, 0}}, "outside [0, 3)"},
		{"self-loop", 3, [][2]int32{{0, 1}, {2, 2}}, "edge 1 joins node 2 to itself"},
		{"negative-count", -1, nil, "nodes"},
	} {
		if _, err := NewTopology(tc.n, tc.edges); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewTopology %s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
	topo, err := NewTopology(3, [][2]int32{{0, 1}, {1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	g := New(0, 0)
	for _, tc := range []struct {
		name string
		caps []float64
		want string
	}{
		{"length", []float64{1}, "1 capacities for 2 edges"},
		{"negative", []float64{1, -1}, "edge 1: capacity -1"},
		{"nan", []float64{math.NaN(), 1}, "edge 0: capacity NaN"},
		{"inf", []float64{1, math.Inf(1)}, "finite"},
	} {
		if err := g.ResetTopology(topo, tc.caps); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ResetTopology %s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
		if g.Edges() != 0 {
			t.Errorf("ResetTopology %s: the failed call left %d edges", tc.name, g.Edges())
		}
	}
	// After a failed ResetTopology the graph has the nodes and no edge.
	if err := g.AddTerminals([]float64{0, 0, 2}, []float64{3, 0, 0}); err != nil {
		t.Fatal(err)
	}
	if f := g.MaxFlow(); f != 0 || g.Segment(0) != Sink || g.Segment(2) != Source {
		t.Errorf("graph after a failed ResetTopology: flow %v, sides %v %v", f, g.Segment(0), g.Segment(2))
	}
	if err := g.AddTerminals([]float64{1}, []float64{1}); err == nil || !strings.Contains(err.Error(), "Reset") {
		t.Errorf("AddTerminals after MaxFlow: %v", err)
	}
	g.Reset(2)
	for _, tc := range []struct {
		name         string
		source, sink []float64
		want         string
	}{
		{"lengths", []float64{1, 2}, []float64{1}, "2 source and 1 sink capacities for 2 nodes"},
		{"too-many", []float64{1, 2, 3}, []float64{1, 2, 3}, "for 2 nodes"},
		{"nan", []float64{1, math.NaN()}, []float64{1, 1}, "AddTerminal(1)"},
		{"inf", []float64{1, 1}, []float64{math.Inf(-1), 1}, "finite"},
	} {
		if err := g.AddTerminals(tc.source, tc.sink); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("AddTerminals %s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
	// The failed calls added nothing.
	if f := g.MaxFlow(); f != 0 || g.Segment(0) != Source || g.Segment(1) != Source {
		t.Errorf("failed AddTerminals changed the graph: flow %v", f)
	}
}
