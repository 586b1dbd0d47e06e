// Package maxflow computes minimum s-t cuts of capacitated graphs with the
// augmenting-path algorithm of Boykov and Kolmogorov (2004), "An
// experimental comparison of min-cut/max-flow algorithms for energy
// minimization in vision" (IEEE TPAMI 26(9)), the algorithm of the graph-cut
// oracles of Osokin et al. (2016, App. I.3).
//
// A Graph is built once per problem and reused: Reset empties it while
// keeping its storage, so that building and solving graphs of a bounded size
// allocates nothing in steady state. Graphs whose edges stay while their
// capacities change (an image segmented under new weights) lay the edges
// out once in a Topology, shared by any number of Graphs, and are rebuilt
// in one pass by ResetTopology and AddTerminals.
//
// # The energy minimized
//
// Every node i gets a source capacity cs_i and a sink capacity ct_i
// (AddTerminal, accumulated over calls) and every edge (i, j) a capacity
// c_ij from i to j and c_ji back (AddEdge, non-negative). A segmentation puts
// each node on the Source or the Sink side; its cut costs
//
//	sum_{i on the Sink side} cs_i + sum_{i on the Source side} ct_i
//	+ sum_{edges i->j, i on the Source side, j on the Sink side} c_ij.
//
// MaxFlow returns the minimum of this cost over all segmentations (the value
// of a maximum flow, by the max-flow/min-cut theorem) and Segment reads a
// minimizing segmentation. Terminal capacities may be negative: only
// cs_i - ct_i matters, up to a constant, exactly as in the energy
// E(y) = sum_i theta_i(y_i) + sum_ij c_ij [y_i = 0, y_j = 1] of a binary
// labeling y with y_i = 1 on the Sink side, theta_i(1) = cs_i and
// theta_i(0) = ct_i (Kolmogorov & Zabih 2004).
package maxflow

import "fmt"

// Side is the side of the minimum cut a node lies on.
type Side int8

const (
	// Source is the side of the source terminal.
	Source Side = iota
	// Sink is the side of the sink terminal.
	Sink
)

// String returns "source" or "sink".
func (s Side) String() string {
	if s == Sink {
		return "sink"
	}
	return "source"
}

// Special values of node.parent.
const (
	free     int32 = -1 // in neither search tree
	terminal int32 = -2 // child of a terminal
	orphan   int32 = -3 // lost its parent arc during an augmentation
)

// tree is the search tree a node belongs to.
type tree int8

const (
	noTree     tree = 0 // a free node (parent == free)
	sourceTree tree = 1
	sinkTree   tree = 2
)

// node is one non-terminal node. parent is the arc from the node to its
// parent in its search tree (or a special value above); tr is its residual
// terminal capacity: tr > 0 from the source, tr < 0 to the sink.
type node struct {
	first  int32 // first outgoing arc, -1 when none
	parent int32
	next   int32 // next node of the active queue; itself when last; -1 when not queued
	ts     int32 // time stamp of dist
	dist   int32 // distance to the terminal along the tree, valid when ts is recent
	tree   tree  // noTree exactly when parent == free
	tr     float64
}

// arc is one direction of an edge; arcs 2k and 2k+1 are the two directions
// of edge k (each other's sister, a^1).
type arc struct {
	head int32 // node the arc points to
	next int32 // next arc leaving the same node, -1 when last
	rcap float64
}

// Graph is a capacitated graph with a source and a sink terminal, solved by
// the Boykov-Kolmogorov algorithm. The zero value is an empty graph; use
// Reset to give it nodes. A Graph is not safe for concurrent use.
type Graph struct {
	nodes []node
	arcs  []arc
	flow  float64
	// Working storage of MaxFlow, kept between calls.
	queueFirst, queueLast int32
	orphans               []int32
	time                  int32
	solved                bool
}

// New returns a graph with n nodes and room for edgeHint edges.
func New(n, edgeHint int) *Graph {
	g := &Graph{}
	g.arcs = make([]arc, 0, 2*max(edgeHint, 0))
	g.Reset(n)
	return g
}

// Reset empties the graph and gives it n nodes numbered 0..n-1 with no
// terminal capacities and no edges, keeping the storage of earlier graphs.
// A negative n counts as zero.
func (g *Graph) Reset(n int) {
	n = max(n, 0)
	if cap(g.nodes) < n {
		g.nodes = make([]node, n)
	}
	g.nodes = g.nodes[:n]
	for i := range g.nodes {
		g.nodes[i] = node{first: -1, parent: free, next: -1}
	}
	g.arcs = g.arcs[:0]
	g.flow = 0
	g.orphans = g.orphans[:0]
	g.solved = false
}

// Len returns the number of nodes.
func (g *Graph) Len() int { return len(g.nodes) }

// Edges returns the number of edges added since the last Reset, or given
// by the last ResetTopology (its capacity-0 edges included).
func (g *Graph) Edges() int { return len(g.arcs) / 2 }

// AddTerminal adds source to the capacity from the source to node i and sink
// to the capacity from node i to the sink. Either may be negative (see the
// package documentation); both must be finite. It must not be called after
// MaxFlow without a Reset.
func (g *Graph) AddTerminal(i int, source, sink float64) error {
	if err := g.check(i, "AddTerminal"); err != nil {
		return err
	}
	if !finite(source) || !finite(sink) {
		return errTerminal(i, source, sink)
	}
	g.addTerminal(&g.nodes[i], source, sink)
	return nil
}

// AddTerminals is AddTerminal(i, source[i], sink[i]) for every node
// i < len(source) in one pass (len(sink) must equal len(source), and
// len(source) <= Len()). On error it adds nothing.
func (g *Graph) AddTerminals(source, sink []float64) error {
	if len(source) != len(sink) || len(source) > len(g.nodes) {
		return fmt.Errorf("maxflow: AddTerminals: %d source and %d sink capacities for %d nodes", len(source), len(sink), len(g.nodes))
	}
	if g.solved {
		return errSolved("AddTerminals")
	}
	sink = sink[:len(source)]
	for i, s := range source {
		if !finite(s) || !finite(sink[i]) {
			return errTerminal(i, s, sink[i])
		}
	}
	nodes := g.nodes[:len(source)]
	for i, s := range source {
		g.addTerminal(&nodes[i], s, sink[i])
	}
	return nil
}

// addTerminal adds finite terminal capacities to node nd.
func (g *Graph) addTerminal(nd *node, source, sink float64) {
	// Only the difference stays on the node; the common part min(cs, ct)
	// is paid whatever the cut.
	d := nd.tr
	if d > 0 {
		source += d
	} else {
		sink -= d
	}
	g.flow += min(source, sink)
	nd.tr = source - sink
}

func errTerminal(i int, source, sink float64) error {
	return fmt.Errorf("maxflow: AddTerminal(%d): capacities %v and %v must be finite", i, source, sink)
}

// finite reports whether x is neither infinite nor NaN.
func finite(x float64) bool { return x-x == 0 }

// AddEdge adds an edge between nodes i and j with capacity c from i to j and
// rev from j to i. Both must be finite and non-negative, and i != j. It must
// not be called after MaxFlow without a Reset.
func (g *Graph) AddEdge(i, j int, c, rev float64) error {
	if err := g.check(i, "AddEdge"); err != nil {
		return err
	}
	if err := g.check(j, "AddEdge"); err != nil {
		return err
	}
	if err := checkEdge(i, j, c, rev); err != nil {
		return err
	}
	g.addEdge(int32(i), int32(j), c, rev)
	return nil
}

// checkEdge returns the error of AddEdge for a self-loop or capacities
// that are negative or not finite, or nil.
func checkEdge(i, j int, c, rev float64) error {
	if i == j {
		return fmt.Errorf("maxflow: AddEdge(%d, %d): a node cannot be joined to itself", i, j)
	}
	if !(c >= 0) || !(rev >= 0) || !finite(c) || !finite(rev) {
		return fmt.Errorf("maxflow: AddEdge(%d, %d): capacities %v and %v must be finite and non-negative", i, j, c, rev)
	}
	return nil
}

// addEdge adds the two arcs of an edge in front of the arc lists of i and
// j.
func (g *Graph) addEdge(i, j int32, c, rev float64) {
	a := int32(len(g.arcs))
	g.arcs = append(g.arcs,
		arc{head: j, next: g.nodes[i].first, rcap: c},
		arc{head: i, next: g.nodes[j].first, rcap: rev})
	g.nodes[i].first = a
	g.nodes[j].first = a + 1
}

func (g *Graph) check(i int, op string) error {
	if i < 0 || i >= len(g.nodes) {
		return fmt.Errorf("maxflow: %s: node %d outside [0, %d)", op, i, len(g.nodes))
	}
	if g.solved {
		return errSolved(op)
	}
	return nil
}

func errSolved(op string) error {
	return fmt.Errorf("maxflow: %s after MaxFlow; call Reset first", op)
}

// Segment returns the side of node i in the minimum cut found by the last
// MaxFlow: Sink for the nodes of the sink search tree, Source for all others
// (those reachable from the source and those joined to neither terminal by
// residual paths, for which both sides are optimal). It returns Source
// before MaxFlow and for nodes out of range.
func (g *Graph) Segment(i int) Side {
	if i < 0 || i >= len(g.nodes) || !g.solved {
		return Source
	}
	if g.nodes[i].tree == sinkTree {
		return Sink
	}
	return Source
}
