package factorgraph

import (
	"fmt"
	"math"
	"sync"

	"github.com/fwstruct/fwstruct/inference/lp"
)

// Factor is a factor of a graph as given to NewGraph: the variables of its
// scope (distinct) and its feature terms.
type Factor struct {
	Scope []int
	Terms []Term
}

// Graph is the structure of a factor graph: variables with cardinalities and
// factors over them, each node (variable or factor) with its feature terms.
// It holds no data of an example, so examples of the same shape share one
// Graph (every Yeast example, every OCR word of one length). It is immutable
// and safe for concurrent use.
//
// Nodes are numbered variables first: node i < NumVars() is variable i, node
// NumVars()+c is factor c. Tables indexed by (node, state) are laid out flat
// from TableOffset(node), TableLen() entries in all.
type Graph struct {
	nv       int
	card     []int32 // per variable
	scopePtr []int32 // node a: scope[scopePtr[a]:scopePtr[a+1]]
	scope    []int32
	stride   []int32 // parallel to scope
	states   []int32 // per node
	tableOff []int32 // per node, and the total at the end
	termPtr  []int32
	terms    []Term

	// Factors of each variable: nbPtr[i]..nbPtr[i+1] in nbNode (the node)
	// and nbPos (the position of i in its scope).
	nbPtr    []int32
	nbNode   []int32
	nbPos    []int32
	nbFac    []int32 // factor index (node - NumVars)
	nbOff    []int32 // table offset of the factor
	nbStride []int32 // stride of the variable in the factor
	nbDelta  []int32 // offset of delta_{c,i}(.) of the factor (DeltaOffset)

	deltaOff []int32 // parallel to scope: offset of delta_{c,v}(.) (factors only)
	deltaLen int

	// Per factor node a and joint state s, the agreement variable of each
	// scope position j that the state selects, delta_{c,v_j}(y_j(s)), as an
	// offset from DeltaOffset(a, 0): stateDelta[sdOff[a] + s*|scope| + j].
	// Nil when the tables would exceed maxStateDeltas entries (the
	// methods that use it then compute the states' digits instead).
	stateDelta []int32
	sdOff      []int64

	slots    []int32 // per node: its slot columns, sum of Template.Slots over its terms
	disjoint []bool  // per node: its terms span pairwise disjoint coordinates

	forest bool
	order  []int32 // nodes, parents before children (forests only)
	parent []int32 // per node: parent node or -1; for factors, a variable
	ppos   []int32 // per factor node: position of its parent in its scope

	lpOnce sync.Once
	lp     *lp.Program
	lpErr  error
}

// NewGraph builds a graph with len(cards) variables of the given
// cardinalities, varTerms[i] the terms of variable i (varTerms may be
// shorter than cards, or nil) and the factors. It returns an error for
// cardinalities below 1, empty or repeated scopes, variables out of range,
// joint state spaces above 2^31, and terms whose template does not have
// one slot per state of its node or whose input is Const with InputDim != 1.
func NewGraph(cards []int, varTerms [][]Term, factors []Factor) (*Graph, error) {
	nv := len(cards)
	if nv == 0 {
		return nil, fmt.Errorf("factorgraph: graph without variables")
	}
	if len(varTerms) > nv {
		return nil, fmt.Errorf("factorgraph: %d term lists for %d variables", len(varTerms), nv)
	}
	g := &Graph{nv: nv, card: make([]int32, nv)}
	for i, k := range cards {
		if k < 1 || k > math.MaxInt32 {
			return nil, fmt.Errorf("factorgraph: variable %d has cardinality %d", i, k)
		}
		g.card[i] = int32(k)
	}
	nodes := nv + len(factors)
	g.scopePtr = make([]int32, 1, nodes+1)
	g.termPtr = make([]int32, 1, nodes+1)
	g.tableOff = make([]int32, 1, nodes+1)
	add := func(a int, scope []int, terms []Term) error {
		states := int64(1)
		for j, v := range scope {
			if v < 0 || v >= nv {
				return fmt.Errorf("factorgraph: node %d: variable %d outside [0, %d)", a, v, nv)
			}
			for _, u := range scope[:j] {
				if u == v {
					return fmt.Errorf("factorgraph: node %d: variable %d repeated in the scope", a, v)
				}
			}
			states *= int64(g.card[v])
			if states > math.MaxInt32 {
				return fmt.Errorf("factorgraph: node %d: more than 2^31 joint states", a)
			}
		}
		if total := int64(g.tableOff[a]) + states; total > math.MaxInt32 {
			return fmt.Errorf("factorgraph: node %d: tables of more than 2^31 entries", a)
		}
		stride := int32(1)
		base := len(g.scope)
		for range scope {
			g.scope = append(g.scope, 0)
			g.stride = append(g.stride, 0)
		}
		for j := len(scope) - 1; j >= 0; j-- {
			g.scope[base+j] = int32(scope[j])
			g.stride[base+j] = stride
			stride *= g.card[scope[j]]
		}
		for k, t := range terms {
			if t.T == nil {
				return fmt.Errorf("factorgraph: node %d term %d: nil template", a, k)
			}
			if len(t.T.Slot) != int(states) {
				return fmt.Errorf("factorgraph: node %d term %d: template has %d states, the node %d", a, k, len(t.T.Slot), states)
			}
			for s, v := range t.T.Slot {
				if v < -1 || int(v) >= t.T.Slots {
					return fmt.Errorf("factorgraph: node %d term %d: state %d has slot %d outside [-1, %d)", a, k, s, v, t.T.Slots)
				}
			}
			if t.T.InputDim < 1 || t.Offset < 0 {
				return fmt.Errorf("factorgraph: node %d term %d: input dimension %d, offset %d", a, k, t.T.InputDim, t.Offset)
			}
			if t.Input < Const || (t.Input == Const && t.T.InputDim != 1) {
				return fmt.Errorf("factorgraph: node %d term %d: input %d with input dimension %d", a, k, t.Input, t.T.InputDim)
			}
		}
		g.terms = append(g.terms, terms...)
		g.slots = append(g.slots, int32(slotCount(terms)))
		g.disjoint = append(g.disjoint, disjointTerms(terms))
		g.scopePtr = append(g.scopePtr, int32(len(g.scope)))
		g.termPtr = append(g.termPtr, int32(len(g.terms)))
		g.states = append(g.states, int32(states))
		g.tableOff = append(g.tableOff, g.tableOff[a]+int32(states))
		return nil
	}
	for i := 0; i < nv; i++ {
		var terms []Term
		if i < len(varTerms) {
			terms = varTerms[i]
		}
		if err := add(i, []int{i}, terms); err != nil {
			return nil, err
		}
	}
	for c, f := range factors {
		if len(f.Scope) == 0 {
			return nil, fmt.Errorf("factorgraph: factor %d has an empty scope", c)
		}
		if err := add(nv+c, f.Scope, f.Terms); err != nil {
			return nil, fmt.Errorf("%w (factor %d)", err, c)
		}
	}
	g.deltaOff = make([]int32, len(g.scope))
	for a := nv; a < nodes; a++ {
		for k := g.scopePtr[a]; k < g.scopePtr[a+1]; k++ {
			g.deltaOff[k] = int32(g.deltaLen)
			g.deltaLen += int(g.card[g.scope[k]])
		}
	}
	g.stateDeltas()
	g.neighbors()
	g.schedule()
	return g, nil
}

// maxStateDeltas bounds the entries of the per-state agreement tables of a
// graph (64 MB). A variable so that tests can build graphs without them.
var maxStateDeltas int64 = 1 << 24

// stateDeltas fills the per-state agreement offsets of the factors.
func (g *Graph) stateDeltas() {
	total := int64(0)
	for a := g.nv; a < g.NumNodes(); a++ {
		total += int64(g.states[a]) * int64(g.scopePtr[a+1]-g.scopePtr[a])
	}
	if total > maxStateDeltas {
		return
	}
	g.stateDelta = make([]int32, 0, total)
	g.sdOff = make([]int64, g.NumNodes())
	for a := g.nv; a < g.NumNodes(); a++ {
		g.sdOff[a] = int64(len(g.stateDelta))
		scope, st := g.Scope(a), g.Strides(a)
		base := g.DeltaOffset(a, 0)
		for s := 0; s < g.States(a); s++ {
			for j, v := range scope {
				y := (s / int(st[j])) % int(g.card[v])
				g.stateDelta = append(g.stateDelta, int32(g.DeltaOffset(a, j)-base+y))
			}
		}
	}
}

// FactorDeltaLen returns the number of agreement variables of factor node
// a, the sum of the cardinalities of its scope: they are contiguous from
// DeltaOffset(a, 0), position by position.
func (g *Graph) FactorDeltaLen(a int) int {
	lo, hi := g.scopePtr[a], g.scopePtr[a+1]
	return int(g.deltaOff[hi-1]-g.deltaOff[lo]) + int(g.card[g.scope[hi-1]])
}

// MarginalizeScope sets dst (len FactorDeltaLen(a)) to the marginals of
// the table mu (len States(a)) of factor node a on every variable of its
// scope, laid out as its agreement variables: dst[DeltaOffset(a, j) -
// DeltaOffset(a, 0) + y] = sum of mu[s] over the states s with the j-th
// variable in state y (A_ci mu_c of Meshi eq. 5 for every i in c).
func (g *Graph) MarginalizeScope(a int, mu, dst []float64) {
	if g.stateDelta == nil {
		base := g.DeltaOffset(a, 0)
		for j, v := range g.Scope(a) {
			off := g.DeltaOffset(a, j) - base
			g.Marginalize(a, j, mu, dst[off:off+int(g.card[v])])
		}
		return
	}
	clear(dst)
	w := int(g.scopePtr[a+1] - g.scopePtr[a])
	rel := g.stateDelta[g.sdOff[a] : g.sdOff[a]+int64(len(mu)*w)]
	for s, v := range mu {
		for _, r := range rel[s*w : s*w+w] {
			dst[r] += v
		}
	}
}

// neighbors fills the factor lists of the variables.
func (g *Graph) neighbors() {
	g.nbPtr = make([]int32, g.nv+1)
	for a := g.nv; a < g.NumNodes(); a++ {
		for _, v := range g.Scope(a) {
			g.nbPtr[v+1]++
		}
	}
	for i := 0; i < g.nv; i++ {
		g.nbPtr[i+1] += g.nbPtr[i]
	}
	g.nbNode = make([]int32, g.nbPtr[g.nv])
	g.nbPos = make([]int32, g.nbPtr[g.nv])
	g.nbFac = make([]int32, g.nbPtr[g.nv])
	g.nbOff = make([]int32, g.nbPtr[g.nv])
	g.nbStride = make([]int32, g.nbPtr[g.nv])
	g.nbDelta = make([]int32, g.nbPtr[g.nv])
	fill := append([]int32(nil), g.nbPtr[:g.nv]...)
	for a := g.nv; a < g.NumNodes(); a++ {
		for j, v := range g.Scope(a) {
			k := fill[v]
			g.nbNode[k], g.nbPos[k] = int32(a), int32(j)
			g.nbDelta[k] = int32(g.DeltaOffset(a, j))
			g.nbFac[k], g.nbOff[k], g.nbStride[k] = int32(a-g.nv), g.tableOff[a], g.Strides(a)[j]
			fill[v]++
		}
	}
}

// schedule decides whether the graph is a forest (its bipartite
// variable-factor graph has no cycle) and, if so, orders the nodes from the
// roots (the lowest variable of each component) down, recording parents.
func (g *Graph) schedule() {
	n := g.NumNodes()
	g.parent = make([]int32, n)
	g.ppos = make([]int32, n)
	for a := range g.parent {
		g.parent[a] = -2 // unvisited
	}
	g.forest = true
	for root := 0; root < g.nv; root++ {
		if g.parent[root] != -2 {
			continue
		}
		g.parent[root] = -1
		head := len(g.order)
		g.order = append(g.order, int32(root))
		for head < len(g.order) {
			a := int(g.order[head])
			head++
			if a < g.nv {
				for k := g.nbPtr[a]; k < g.nbPtr[a+1]; k++ {
					c := g.nbNode[k]
					if c == g.parent[a] {
						continue
					}
					if g.parent[c] != -2 {
						g.forest = false
						continue
					}
					g.parent[c], g.ppos[c] = int32(a), g.nbPos[k]
					g.order = append(g.order, c)
				}
				continue
			}
			for _, v := range g.Scope(a) {
				if v == g.parent[a] {
					continue
				}
				if g.parent[v] != -2 {
					g.forest = false
					continue
				}
				g.parent[v] = int32(a)
				g.order = append(g.order, v)
			}
		}
	}
	if !g.forest {
		g.order, g.parent, g.ppos = nil, nil, nil
	}
}

// NumVars returns the number of variables.
func (g *Graph) NumVars() int { return g.nv }

// NumFactors returns the number of factors.
func (g *Graph) NumFactors() int { return len(g.states) - g.nv }

// NumNodes returns NumVars() + NumFactors().
func (g *Graph) NumNodes() int { return len(g.states) }

// Card returns the cardinality |Y_i| of variable i.
func (g *Graph) Card(i int) int { return int(g.card[i]) }

// Scope returns the variables of node a (the variable itself for a < NumVars).
// The caller must not modify it.
func (g *Graph) Scope(a int) []int32 {
	lo, hi := g.scopePtr[a], g.scopePtr[a+1]
	return g.scope[lo:hi:hi]
}

// Strides returns the stride of each scope position of node a: the state of
// the j-th variable of the scope in joint state s is (s / Strides(a)[j]) mod
// its cardinality. The caller must not modify it.
func (g *Graph) Strides(a int) []int32 {
	lo, hi := g.scopePtr[a], g.scopePtr[a+1]
	return g.stride[lo:hi:hi]
}

// States returns the number of joint states of node a.
func (g *Graph) States(a int) int { return int(g.states[a]) }

// TableOffset returns where the table of node a starts in a flat
// per-node table of TableLen() entries.
func (g *Graph) TableOffset(a int) int { return int(g.tableOff[a]) }

// TableLen returns the total number of (node, state) pairs.
func (g *Graph) TableLen() int { return int(g.tableOff[len(g.states)]) }

// Terms returns the feature terms of node a. The caller must not modify
// them.
func (g *Graph) Terms(a int) []Term {
	lo, hi := g.termPtr[a], g.termPtr[a+1]
	return g.terms[lo:hi:hi]
}

// VarFactors returns the factor nodes containing variable i and the
// position of i in each of their scopes (N_i = len(nodes) in Meshi's Alg.
// 1, line 7). The caller must not modify them.
func (g *Graph) VarFactors(i int) (nodes, pos []int32) {
	lo, hi := g.nbPtr[i], g.nbPtr[i+1]
	return g.nbNode[lo:hi:hi], g.nbPos[lo:hi:hi]
}

// VarDeltas returns, for variable i, where the agreement variables
// delta_{c,i}(.) of each factor c containing it start (DeltaOffset of c
// and the position of i in its scope), in the order of VarFactors. The
// caller must not modify it.
func (g *Graph) VarDeltas(i int) []int32 {
	lo, hi := g.nbPtr[i], g.nbPtr[i+1]
	return g.nbDelta[lo:hi:hi]
}

// DeltaOffset returns where the agreement variables delta_{c,v}(y_v) of
// factor node a and the variable v at position j of its scope start in a
// flat per-example table of DeltaLen() entries (Meshi eq. 2: one entry per
// factor, variable of its scope and state of that variable).
func (g *Graph) DeltaOffset(a, j int) int { return int(g.deltaOff[int(g.scopePtr[a])+j]) }

// DeltaLen returns the number of agreement variables of an example,
// sum over factors c and v in c of |Y_v|.
func (g *Graph) DeltaLen() int { return g.deltaLen }

// IsForest reports whether the factor graph has no cycle (chains and trees),
// where max-sum is exact and the local polytope is integral.
func (g *Graph) IsForest() bool { return g.forest }

// Labelings returns the number of assignments of the variables, or +Inf
// beyond float64 range.
func (g *Graph) Labelings() float64 {
	n := 1.0
	for _, k := range g.card {
		n *= float64(k)
	}
	return n
}

// StateOf returns the joint state of node a under the full labeling y.
func (g *Graph) StateOf(a int, y []int32) int {
	s := 0
	st := g.Strides(a)
	for j, v := range g.Scope(a) {
		s += int(y[v]) * int(st[j])
	}
	return s
}

// Marginalize sets dst[y_i] (len(dst) = Card(i)) to the marginal of the
// table mu (len(mu) = States(a)) of node a on the variable i at scope
// position j: dst[y_i] = sum of mu[s] over the states s with y_i at that
// position (A_ci mu_c in Meshi eq. 5 and App. D).
func (g *Graph) Marginalize(a, j int, mu, dst []float64) {
	k := int(g.card[g.Scope(a)[j]])
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
