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
	g.neighbors()
	g.schedule()
	return g, nil
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
	fill := append([]int32(nil), g.nbPtr[:g.nv]...)
	for a := g.nv; a < g.NumNodes(); a++ {
		for j, v := range g.Scope(a) {
			k := fill[v]
			g.nbNode[k], g.nbPos[k] = int32(a), int32(j)
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

// isForest reports whether the factor graph has no cycle (chains and trees),
// where max-sum is exact and the local polytope is integral.
func (g *Graph) isForest() bool { return g.forest }

// labelings returns the number of assignments of the variables, or +Inf
// beyond float64 range.
func (g *Graph) labelings() float64 {
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
