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
			if g.nodes[i].parent == free {
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
			nd.sink, nd.parent = false, terminal
			g.setActive(int32(i))
		case nd.tr < 0:
			nd.sink, nd.parent = true, terminal
			g.setActive(int32(i))
		default:
			nd.parent = free
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
		if nd.parent != free {
			return i
		}
	}
}

// grow explores the non-saturated arcs of the active node i (growth stage):
// the arcs out of i for the source tree, into i for the sink tree. It
// returns the arc from the source tree to the sink tree that closes an
// augmenting path, or -1 when i has no neighbour in the other tree.
func (g *Graph) grow(i int32) int32 {
	ni := &g.nodes[i]
	for a := ni.first; a >= 0; a = g.arcs[a].next {
		if !g.residualToward(a, !ni.sink) {
			continue
		}
		j := g.arcs[a].head
		nj := &g.nodes[j]
		switch {
		case nj.parent == free:
			nj.sink, nj.parent = ni.sink, a^1
			nj.ts, nj.dist = ni.ts, ni.dist+1
			g.setActive(j)
		case nj.sink != ni.sink:
			if ni.sink {
				return a ^ 1
			}
			return a
		case nj.ts <= ni.ts && nj.dist > ni.dist:
			// Shorten j's path to its terminal.
			nj.parent = a ^ 1
			nj.ts, nj.dist = ni.ts, ni.dist+1
		}
	}
	return -1
}

// augment pushes the bottleneck capacity along the path through the arc mid
// (from the source tree to the sink tree) and makes orphans of the nodes
// whose parent arc or terminal arc it saturates.
func (g *Graph) augment(mid int32) {
	// Bottleneck: the middle arc, the source-tree path, the sink-tree path.
	b := g.arcs[mid].rcap
	i := g.arcs[mid^1].head
	for {
		a := g.nodes[i].parent
		if a == terminal {
			break
		}
		b = min(b, g.arcs[a^1].rcap)
		i = g.arcs[a].head
	}
	b = min(b, g.nodes[i].tr)
	i = g.arcs[mid].head
	for {
		a := g.nodes[i].parent
		if a == terminal {
			break
		}
		b = min(b, g.arcs[a].rcap)
		i = g.arcs[a].head
	}
	b = min(b, -g.nodes[i].tr)

	g.arcs[mid^1].rcap += b
	g.arcs[mid].rcap -= b
	i = g.arcs[mid^1].head
	for {
		a := g.nodes[i].parent
		if a == terminal {
			break
		}
		g.arcs[a].rcap += b
		g.arcs[a^1].rcap -= b
		if g.arcs[a^1].rcap == 0 {
			g.makeOrphan(i)
		}
		i = g.arcs[a].head
	}
	if g.nodes[i].tr -= b; g.nodes[i].tr == 0 {
		g.makeOrphan(i)
	}
	i = g.arcs[mid].head
	for {
		a := g.nodes[i].parent
		if a == terminal {
			break
		}
		g.arcs[a^1].rcap += b
		g.arcs[a].rcap -= b
		if g.arcs[a].rcap == 0 {
			g.makeOrphan(i)
		}
		i = g.arcs[a].head
	}
	if g.nodes[i].tr += b; g.nodes[i].tr == 0 {
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
	ni := &g.nodes[i]
	sink := ni.sink
	best, bestDist := free, infiniteDist
	for a0 := ni.first; a0 >= 0; a0 = g.arcs[a0].next {
		if !g.residualToward(a0, sink) {
			continue
		}
		j := g.arcs[a0].head
		if nj := &g.nodes[j]; nj.sink != sink || nj.parent == free {
			continue
		}
		if d := g.originDist(j); d < infiniteDist {
			if d < bestDist {
				best, bestDist = a0, d
			}
			// Stamp the path so that later searches stop early.
			for j := g.arcs[a0].head; g.nodes[j].ts != g.time; j = g.arcs[g.nodes[j].parent].head {
				g.nodes[j].ts, g.nodes[j].dist = g.time, d
				d--
			}
		}
	}
	ni.parent = best
	if best != free {
		ni.ts, ni.dist = g.time, bestDist+1
		return
	}
	ni.ts = 0
	for a0 := ni.first; a0 >= 0; a0 = g.arcs[a0].next {
		j := g.arcs[a0].head
		nj := &g.nodes[j]
		a := nj.parent
		if nj.sink != sink || a == free {
			continue
		}
		if g.residualToward(a0, sink) {
			g.setActive(j)
		}
		if a != terminal && a != orphan && g.arcs[a].head == i {
			g.makeOrphan(j)
		}
	}
}

// residualToward reports whether the edge of arc a0 (leaving a node of the
// given tree) has residual capacity in the direction of that tree's flow:
// into the node for the source tree, out of it for the sink tree. With the
// other tree's flag it tells whether the tree can grow along a0.
func (g *Graph) residualToward(a0 int32, sink bool) bool {
	if sink {
		return g.arcs[a0].rcap != 0
	}
	return g.arcs[a0^1].rcap != 0
}

// originDist returns the distance from node j to its terminal along its
// tree, or infiniteDist when the path ends at an orphan. Nodes stamped with
// the current time know their distance already.
func (g *Graph) originDist(j int32) int32 {
	d := int32(0)
	for {
		nj := &g.nodes[j]
		if nj.ts == g.time {
			return d + nj.dist
		}
		a := nj.parent
		d++
		if a == terminal {
			nj.ts, nj.dist = g.time, 1
			return d
		}
		if a == orphan {
			return infiniteDist
		}
		j = g.arcs[a].head
	}
}
