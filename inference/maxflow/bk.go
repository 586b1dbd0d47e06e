package maxflow

// The Boykov-Kolmogorov algorithm (Boykov & Kolmogorov 2004, Sec. 3): two
// search trees, S rooted at the source and T rooted at the sink, grow along
// non-saturated arcs (growth stage) until they touch, which gives an
// augmenting path; pushing its bottleneck capacity saturates some tree arcs
// and turns the nodes below them into orphans (augmentation stage); orphans
// look for a new parent in their tree at finite distance from the terminal,
// or become free, making their children orphans in turn (adoption stage).
// The trees are reused from one path to the next, which is what makes the
// method fast on the short-path graphs of vision. Distances and time stamps
// implement the "closest origin" heuristic of Sec. 3.2.

// infiniteDist marks a node whose origin is not a terminal.
const infiniteDist = int32(1 << 30)

// MaxFlow computes a maximum flow from the source to the sink, returns its
// value (the cost of a minimum cut, see the package documentation) and
// leaves the minimum cut to Segment. Calling it again without a Reset
// returns the same value.
func (g *Graph) MaxFlow() float64 {
	if g.solved {
		return g.flow
	}
	g.init()
	current := int32(-1)
	for {
		i := current
		if i >= 0 {
			g.nodes[i].next = -1
			if g.nodes[i].tree == noTree {
				i = -1
			}
		}
		if i < 0 {
			if i = g.nextActive(); i < 0 {
				break
			}
		}
		mid := g.grow(i)
		g.time++
		if mid >= 0 {
			// Keep i out of the active queue while it is processed again
			// next round.
			g.nodes[i].next = i
			current = i
			g.augment(mid)
			g.adopt()
		} else {
			current = -1
		}
	}
	g.solved = true
	return g.flow
}

// init makes every node with residual terminal capacity an active child of
// its terminal.
func (g *Graph) init() {
	g.queueFirst, g.queueLast = -1, -1
	g.orphans = g.orphans[:0]
	g.time = 0
	for i := range g.nodes {
		nd := &g.nodes[i]
		nd.next, nd.ts, nd.dist = -1, 0, 1
		switch {
		case nd.tr > 0:
			nd.tree, nd.parent = sourceTree, terminal
			g.setActive(int32(i))
		case nd.tr < 0:
			nd.tree, nd.parent = sinkTree, terminal
			g.setActive(int32(i))
		default:
			nd.tree, nd.parent = noTree, free
		}
	}
}

// setActive appends node i to the active queue unless it is queued already.
func (g *Graph) setActive(i int32) {
	if g.nodes[i].next >= 0 {
		return
	}
	if g.queueLast >= 0 {
		g.nodes[g.queueLast].next = i
	} else {
		g.queueFirst = i
	}
	g.queueLast = i
	g.nodes[i].next = i
}

// nextActive pops the first queued node that still belongs to a tree, or
// returns -1 when the queue is empty.
func (g *Graph) nextActive() int32 {
	for {
		i := g.queueFirst
		if i < 0 {
			return -1
		}
		nd := &g.nodes[i]
		if nd.next == i {
			g.queueFirst, g.queueLast = -1, -1
		} else {
			g.queueFirst = nd.next
		}
		nd.next = -1
		if nd.tree != noTree {
			return i
		}
	}
}

// grow explores the non-saturated arcs of the active node i (growth stage):
// the arcs out of i for the source tree, into i for the sink tree. It
// returns the arc from the source tree to the sink tree that closes an
// augmenting path, or -1 when i has no neighbour in the other tree.
func (g *Graph) grow(i int32) int32 {
	nodes, arcs := g.nodes, g.arcs
	ni := &nodes[i]
	ti := ni.tree
	// The arc whose residual capacity lets the tree grow along a: a itself
	// (out of i) in the source tree, its sister a^1 (into i) in the sink
	// tree.
	in := int32(0)
	if ti == sinkTree {
		in = 1
	}
	for a := ni.first; a >= 0; a = arcs[a].next {
		if arcs[a^in].rcap == 0 {
			continue
		}
		nj := &nodes[arcs[a].head]
		switch tj := nj.tree; {
		case tj == ti:
			if nj.ts <= ni.ts && nj.dist > ni.dist {
				// Shorten j's path to its terminal.
				nj.parent = a ^ 1
				nj.ts, nj.dist = ni.ts, ni.dist+1
			}
		case tj == noTree:
			nj.tree, nj.parent = ti, a^1
			nj.ts, nj.dist = ni.ts, ni.dist+1
			g.setActive(arcs[a].head)
		default:
			return a ^ in
		}
	}
	return -1
}

// augment pushes the bottleneck capacity along the path through the arc mid
// (from the source tree to the sink tree) and makes orphans of the nodes
// whose parent arc or terminal arc it saturates.
func (g *Graph) augment(mid int32) {
	nodes, arcs := g.nodes, g.arcs
	// Bottleneck: the middle arc, the source-tree path, the sink-tree path.
	b := arcs[mid].rcap
	i := arcs[mid^1].head
	for {
		a := nodes[i].parent
		if a == terminal {
			break
		}
		b = min(b, arcs[a^1].rcap)
		i = arcs[a].head
	}
	b = min(b, nodes[i].tr)
	i = arcs[mid].head
	for {
		a := nodes[i].parent
		if a == terminal {
			break
		}
		b = min(b, arcs[a].rcap)
		i = arcs[a].head
	}
	b = min(b, -nodes[i].tr)

	arcs[mid^1].rcap += b
	arcs[mid].rcap -= b
	i = arcs[mid^1].head
	for {
		a := nodes[i].parent
		if a == terminal {
			break
		}
		arcs[a].rcap += b
		arcs[a^1].rcap -= b
		if arcs[a^1].rcap == 0 {
			g.makeOrphan(i)
		}
		i = arcs[a].head
	}
	if nodes[i].tr -= b; nodes[i].tr == 0 {
		g.makeOrphan(i)
	}
	i = arcs[mid].head
	for {
		a := nodes[i].parent
		if a == terminal {
			break
		}
		arcs[a^1].rcap += b
		arcs[a].rcap -= b
		if arcs[a].rcap == 0 {
			g.makeOrphan(i)
		}
		i = arcs[a].head
	}
	if nodes[i].tr += b; nodes[i].tr == 0 {
		g.makeOrphan(i)
	}
	g.flow += b
}

func (g *Graph) makeOrphan(i int32) {
	g.nodes[i].parent = orphan
	g.orphans = append(g.orphans, i)
}

// adopt processes the orphans until none is left (adoption stage).
func (g *Graph) adopt() {
	for k := 0; k < len(g.orphans); k++ {
		g.processOrphan(g.orphans[k])
	}
	g.orphans = g.orphans[:0]
}

// processOrphan finds orphan i a new parent in its tree: the neighbour
// with a non-saturated arc towards i (source tree) or from i (sink tree)
// whose path leads to the terminal, preferring the shortest. Without one, i
// becomes free, its tree neighbours that could reach it become active, and
// its children become orphans.
func (g *Graph) processOrphan(i int32) {
	nodes, arcs := g.nodes, g.arcs
	ni := &nodes[i]
	ti := ni.tree
	// The arc carrying the tree's flow between i and the neighbour at the
	// head of a0: the sister a0^1 (into i) in the source tree, a0 itself
	// (out of i) in the sink tree.
	r := int32(1)
	if ti == sinkTree {
		r = 0
	}
	time := g.time
	best, bestDist := free, infiniteDist
	for a0 := ni.first; a0 >= 0; a0 = arcs[a0].next {
		if arcs[a0^r].rcap == 0 {
			continue
		}
		j := arcs[a0].head
		if nodes[j].tree != ti {
			continue
		}
		if d := g.originDist(j); d < infiniteDist {
			if d < bestDist {
				best, bestDist = a0, d
			}
			// Stamp the path so that later searches stop early.
			for j := arcs[a0].head; nodes[j].ts != time; j = arcs[nodes[j].parent].head {
				nodes[j].ts, nodes[j].dist = time, d
				d--
			}
		}
	}
	ni.parent = best
	if best != free {
		ni.ts, ni.dist = time, bestDist+1
		return
	}
	ni.tree, ni.ts = noTree, 0
	for a0 := ni.first; a0 >= 0; a0 = arcs[a0].next {
		j := arcs[a0].head
		nj := &nodes[j]
		a := nj.parent
		if nj.tree != ti {
			continue
		}
		if arcs[a0^r].rcap != 0 {
			g.setActive(j)
		}
		if a != terminal && a != orphan && arcs[a].head == i {
			g.makeOrphan(j)
		}
	}
}

// originDist returns the distance from node j to its terminal along its
// tree, or infiniteDist when the path ends at an orphan. Nodes stamped with
// the current time know their distance already.
func (g *Graph) originDist(j int32) int32 {
	nodes, arcs, time := g.nodes, g.arcs, g.time
	d := int32(0)
	for {
		nj := &nodes[j]
		if nj.ts == time {
			return d + nj.dist
		}
		a := nj.parent
		d++
		if a == terminal {
			nj.ts, nj.dist = time, 1
			return d
		}
		if a == orphan {
			return infiniteDist
		}
		j = arcs[a].head
	}
}
