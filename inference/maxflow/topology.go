package maxflow

import (
	"fmt"
	"math"
)

// Topology is the arc lists of a fixed set of undirected edges over n
// nodes, laid out once by NewTopology so that a Graph can be given those
// edges with new capacities in one pass (ResetTopology), as a segmentation
// oracle does on every call for the same image. A Topology is never
// modified after NewTopology: any number of Graphs, in any number of
// goroutines, may use it at once.
type Topology struct {
	first []int32 // first arc of every node, -1 when none
	arcs  []arc   // arcs 2k and 2k+1 are the two directions of edge k; no capacity
}

// NewTopology lays out the arcs of n nodes joined by edges: edge k joins
// edges[k][0] and edges[k][1], and every node lists its arcs in the order
// in which AddEdge would have put them (the arcs of the last edge added
// first). It returns an error naming the first edge that leaves [0, n) or
// joins a node to itself.
func NewTopology(n int, edges [][2]int32) (*Topology, error) {
	if n < 0 || n > math.MaxInt32 || len(edges) > math.MaxInt32/2 {
		return nil, fmt.Errorf("maxflow: NewTopology: %d nodes and %d edges, want 0 to 2^31-1 nodes and up to 2^30-1 edges", n, len(edges))
	}
	t := &Topology{first: make([]int32, n), arcs: make([]arc, 2*len(edges))}
	for i := range t.first {
		t.first[i] = -1
	}
	for k, pq := range edges {
		i, j := pq[0], pq[1]
		if i < 0 || j < 0 || int(i) >= n || int(j) >= n {
			return nil, fmt.Errorf("maxflow: NewTopology: edge %d joins nodes %d and %d, outside [0, %d)", k, i, j, n)
		}
		if i == j {
			return nil, fmt.Errorf("maxflow: NewTopology: edge %d joins node %d to itself", k, i)
		}
		a := int32(2 * k)
		t.arcs[a] = arc{head: j, next: t.first[i]}
		t.arcs[a+1] = arc{head: i, next: t.first[j]}
		t.first[i], t.first[j] = a, a+1
	}
	return t, nil
}

// Len returns the number of nodes.
func (t *Topology) Len() int { return len(t.first) }

// Edges returns the number of edges.
func (t *Topology) Edges() int { return len(t.arcs) / 2 }

// ResetTopology empties the graph and gives it the nodes and edges of t,
// edge k with capacity caps[k] in both directions: the graph of Reset
// followed by AddEdge(p, q, caps[k], caps[k]) for every edge of non-zero
// capacity, to the same flow and cut, built in one pass that keeps the
// graph's storage. An edge of capacity 0 stays in the arc lists, where it
// never carries flow, and counts in Edges. The capacities must be finite
// and non-negative, len(caps) = t.Edges(); on error the graph has t's
// nodes and no edge.
func (g *Graph) ResetTopology(t *Topology, caps []float64) error {
	n, m := len(t.first), len(t.arcs)/2
	g.Reset(0)
	if len(caps) != m {
		return fmt.Errorf("maxflow: ResetTopology: %d capacities for %d edges", len(caps), m)
	}
	if cap(g.nodes) < n {
		g.nodes = make([]node, n)
	}
	nodes := g.nodes[:n]
	for i, a := range t.first[:len(nodes)] {
		nodes[i] = node{first: a, parent: free, next: -1}
	}
	g.nodes = nodes
	if cap(g.arcs) < 2*m {
		g.arcs = make([]arc, 0, 2*m)
	}
	arcs := g.arcs[:2*m]
	copy(arcs, t.arcs)
	for k, c := range caps {
		if !(c >= 0 && c <= math.MaxFloat64) {
			for i := range nodes {
				nodes[i].first = -1
			}
			return fmt.Errorf("maxflow: ResetTopology: edge %d: capacity %v must be finite and non-negative", k, c)
		}
		pair := arcs[2*k : 2*k+2 : 2*k+2]
		pair[0].rcap, pair[1].rcap = c, c
	}
	g.arcs = arcs
	return nil
}
