package nodes

import "github.com/fwstruct/fwstruct/factorgraph"

// Layout places the agreement variables delta_{c,v}(y_v) of Meshi's eq. 2
// (one per factor c, variable v of its scope and state y_v of v) of an
// example of one graph in a flat table of DeltaLen() entries: factor by
// factor, scope position by position, so that the variables of a factor
// are contiguous. It also records what the slot form of a node's columns
// needs (slots.go). It is immutable and safe for concurrent use.
type Layout struct {
	g  *factorgraph.Graph
	nv int

	posPtr   []int32 // per node: its scope positions in off (len NumNodes+1)
	off      []int32 // per node and scope position: DeltaOffset (factors only)
	facLen   []int32 // per node: FactorDeltaLen (factors only)
	deltaLen int

	// Per variable i, the offsets of delta_{c,i}(.) of the factors
	// containing it, in the order of Graph.VarFactors: vd[vdPtr[i]:vdPtr[i+1]].
	vdPtr []int32
	vd    []int32

	// Per factor node a and joint state s, the agreement variable of each
	// scope position j that the state selects, delta_{c,v_j}(y_j(s)), as an
	// offset from DeltaOffset(a, 0): stateDelta[sdOff[a] + s*|scope| + j].
	// Nil when the tables would exceed maxStateDeltas entries (the
	// methods that use it then compute the states' digits instead).
	stateDelta []int32
	sdOff      []int64

	slots    []int32 // per node: its slot columns, sum of Template.Slots over its terms
	disjoint []bool  // per node: its terms span pairwise disjoint coordinates
	inputs   int     // one more than the largest input index a term reads
}

// NewLayout returns the layout of the agreement variables of g.
func NewLayout(g *factorgraph.Graph) *Layout {
	nv, n := g.NumVars(), g.NumNodes()
	l := &Layout{g: g, nv: nv, posPtr: make([]int32, n+1), facLen: make([]int32, n),
		slots: make([]int32, n), disjoint: make([]bool, n)}
	for a := 0; a < n; a++ {
		start := l.deltaLen
		for _, v := range g.Scope(a) {
			if a < nv {
				l.off = append(l.off, 0)
				continue
			}
			l.off = append(l.off, int32(l.deltaLen))
			l.deltaLen += g.Card(int(v))
		}
		l.posPtr[a+1] = int32(len(l.off))
		l.facLen[a] = int32(l.deltaLen - start)
		terms := g.Terms(a)
		l.slots[a] = int32(slotCount(terms))
		l.disjoint[a] = disjointTerms(terms)
		for _, t := range terms {
			l.inputs = max(l.inputs, t.Input+1)
		}
	}
	l.vdPtr = make([]int32, nv+1)
	for i := 0; i < nv; i++ {
		nodes, pos := g.VarFactors(i)
		for k, c := range nodes {
			l.vd = append(l.vd, int32(l.DeltaOffset(int(c), int(pos[k]))))
		}
		l.vdPtr[i+1] = int32(len(l.vd))
	}
	l.stateDeltas()
	return l
}

// DeltaLen returns the number of agreement variables of an example of
// graph g, sum over factors c and v in c of |Y_v| (Layout.DeltaLen without
// building the layout).
func DeltaLen(g *factorgraph.Graph) int {
	n := 0
	for a := g.NumVars(); a < g.NumNodes(); a++ {
		for _, v := range g.Scope(a) {
			n += g.Card(int(v))
		}
	}
	return n
}

// maxStateDeltas bounds the entries of the per-state agreement tables of a
// layout (64 MB). A variable so that tests can build layouts without them.
var maxStateDeltas int64 = 1 << 24

// stateDeltas fills the per-state agreement offsets of the factors.
func (l *Layout) stateDeltas() {
	g := l.g
	total := int64(0)
	for a := l.nv; a < g.NumNodes(); a++ {
		total += int64(g.States(a)) * int64(len(g.Scope(a)))
	}
	if total > maxStateDeltas {
		return
	}
	l.stateDelta = make([]int32, 0, total)
	l.sdOff = make([]int64, g.NumNodes())
	for a := l.nv; a < g.NumNodes(); a++ {
		l.sdOff[a] = int64(len(l.stateDelta))
		scope, st := g.Scope(a), g.Strides(a)
		base := l.DeltaOffset(a, 0)
		for s := 0; s < g.States(a); s++ {
			for j, v := range scope {
				y := (s / int(st[j])) % g.Card(int(v))
				l.stateDelta = append(l.stateDelta, int32(l.DeltaOffset(a, j)-base+y))
			}
		}
	}
}

// DeltaLen returns the number of agreement variables of an example.
func (l *Layout) DeltaLen() int { return l.deltaLen }

// DeltaOffset returns where the agreement variables delta_{c,v}(.) of
// factor node a and the variable v at position j of its scope start.
func (l *Layout) DeltaOffset(a, j int) int { return int(l.off[int(l.posPtr[a])+j]) }

// FactorDeltaLen returns the number of agreement variables of factor node
// a, the sum of the cardinalities of its scope: they are contiguous from
// DeltaOffset(a, 0), position by position.
func (l *Layout) FactorDeltaLen(a int) int { return int(l.facLen[a]) }

// VarDeltas returns, for variable i, where the agreement variables
// delta_{c,i}(.) of each factor c containing it start (DeltaOffset of c
// and the position of i in its scope), in the order of Graph.VarFactors.
// The caller must not modify it.
func (l *Layout) VarDeltas(i int) []int32 {
	lo, hi := l.vdPtr[i], l.vdPtr[i+1]
	return l.vd[lo:hi:hi]
}

// MarginalizeScope sets dst (len FactorDeltaLen(a)) to the marginals of
// the table mu (len States(a)) of factor node a on every variable of its
// scope, laid out as its agreement variables: dst[DeltaOffset(a, j) -
// DeltaOffset(a, 0) + y] = sum of mu[s] over the states s with the j-th
// variable in state y (A_ci mu_c of Meshi eq. 5 for every i in c).
func (l *Layout) MarginalizeScope(a int, mu, dst []float64) {
	if l.stateDelta == nil {
		base := l.DeltaOffset(a, 0)
		for j, v := range l.g.Scope(a) {
			off := l.DeltaOffset(a, j) - base
			marginalize(l.g, a, j, mu, dst[off:off+l.g.Card(int(v))])
		}
		return
	}
	clear(dst)
	w := int(l.posPtr[a+1] - l.posPtr[a])
	rel := l.stateDelta[l.sdOff[a] : l.sdOff[a]+int64(len(mu)*w)]
	for s, v := range mu {
		for _, r := range rel[s*w : s*w+w] {
			dst[r] += v
		}
	}
}

// marginalize sets dst[y_i] (len(dst) = Card(i)) to the marginal of the
// table mu (len(mu) = States(a)) of node a of g on the variable i at scope
// position j: dst[y_i] = sum of mu[s] over the states s with y_i at that
// position (A_ci mu_c in Meshi eq. 5 and App. D).
func marginalize(g *factorgraph.Graph, a, j int, mu, dst []float64) {
	k := g.Card(int(g.Scope(a)[j]))
	stride := int(g.Strides(a)[j])
	dst = dst[:k]
	for y := range dst {
		dst[y] = 0
	}
	// The states s with y_i = y are the runs [base+y*stride, base+(y+1)*stride)
	// for base a multiple of stride*k: visited in increasing s, without a
	// division per state.
	for base := 0; base < len(mu); base += stride * k {
		for y := range dst {
			for _, v := range mu[base+y*stride : base+(y+1)*stride] {
				dst[y] += v
			}
		}
	}
}
