package factorgraph

import (
	"fmt"
	"math"
	"sync"

	"github.com/fwstruct/fwstruct/oracles"
)

// Example is one training or test example as given to NewModel.
type Example struct {
	// Graph is the structure of the example, possibly shared with others.
	Graph *Graph
	// Inputs are the input vectors that the terms of the graph refer to
	// (Term.Input); indices must be distinct and below the InputDim of
	// every template that uses them. They are shared, not copied: the
	// caller must not modify them afterwards.
	Inputs []oracles.SparseVec
	// Truth is the ground-truth state of every variable.
	Truth []int32
	// Loss holds the loss table Delta_alpha(., y^m_alpha) of each node
	// (len States(alpha), zero at the true state, finite and >= 0); a nil
	// entry means no loss on that node. A nil Loss means the normalized
	// Hamming loss: 1/NumVars on the wrong states of every variable, no
	// loss on the factors.
	Loss [][]float64
}

// Model is a set of examples over factor graphs with a shared weight
// vector of dimension Dim(). It is immutable and safe for concurrent use.
// Its views (Exact, Relaxed, Rounded) are the oracles.Problem the
// example-level solvers train on; its node-level methods (NodeScores,
// Theta, NodeLoss, TrueState, Inputs) are what the factor-level solver of
// Meshi et al. (2015, Alg. 1, package solver/soft) reads.
type Model struct {
	dim  int
	ex   []example
	pool sync.Pool // *work
}

func (m *Model) get() *work {
	if w, ok := m.pool.Get().(*work); ok {
		return w
	}
	return new(work)
}

func (m *Model) put(w *work) { m.pool.Put(w) }

type example struct {
	g       *Graph
	inputs  []oracles.SparseVec
	truth   []int32
	tstate  []int32   // true state of every node
	lossOff []int32   // per node: offset into loss, or -1
	loss    []float64 // the non-nil loss tables, concatenated
}

// NewModel validates the examples against a weight vector of dimension dim:
// terms within [0, dim), inputs present and within their templates'
// dimensions, finite values, truths within the cardinalities, loss tables of
// the right size that vanish at the truth.
func NewModel(dim int, examples []Example) (*Model, error) {
	if dim < 1 {
		return nil, fmt.Errorf("factorgraph: dimension %d < 1", dim)
	}
	m := &Model{dim: dim, ex: make([]example, len(examples))}
	seen := map[*Graph]bool{}
	for i, e := range examples {
		if err := m.add(i, e, seen); err != nil {
			return nil, fmt.Errorf("factorgraph: example %d: %w", i, err)
		}
	}
	return m, nil
}

func (m *Model) add(i int, e Example, seen map[*Graph]bool) error {
	g := e.Graph
	if g == nil {
		return fmt.Errorf("nil graph")
	}
	if !seen[g] {
		for a := 0; a < g.NumNodes(); a++ {
			for k, t := range g.Terms(a) {
				if end := int64(t.Offset) + int64(t.T.Width()); end > int64(m.dim) {
					return fmt.Errorf("node %d term %d: coordinates up to %d exceed the dimension %d", a, k, end, m.dim)
				}
			}
		}
		seen[g] = true
	}
	for k, x := range e.Inputs {
		if len(x.Idx) != len(x.Val) {
			return fmt.Errorf("input %d has %d indices but %d values", k, len(x.Idx), len(x.Val))
		}
		for j, f := range x.Idx {
			if f < 0 {
				return fmt.Errorf("input %d has index %d", k, f)
			}
			if v := x.Val[j]; math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("input %d: feature %d is %v", k, f, v)
			}
		}
		if hasDuplicate(x.Idx) {
			return fmt.Errorf("input %d repeats an index", k)
		}
	}
	for a := 0; a < g.NumNodes(); a++ {
		for k, t := range g.Terms(a) {
			if t.Input == Const {
				continue
			}
			if t.Input >= len(e.Inputs) {
				return fmt.Errorf("node %d term %d: input %d of %d", a, k, t.Input, len(e.Inputs))
			}
			if mx := e.Inputs[t.Input].MaxAbsIndex(); int(mx) >= t.T.InputDim {
				return fmt.Errorf("node %d term %d: input %d has index %d, template dimension %d", a, k, t.Input, mx, t.T.InputDim)
			}
		}
	}
	if len(e.Truth) != g.NumVars() {
		return fmt.Errorf("truth has %d states for %d variables", len(e.Truth), g.NumVars())
	}
	for v, s := range e.Truth {
		if s < 0 || int(s) >= g.Card(v) {
			return fmt.Errorf("truth of variable %d is %d, outside [0, %d)", v, s, g.Card(v))
		}
	}
	x := example{g: g, inputs: e.Inputs, truth: append([]int32(nil), e.Truth...)}
	x.tstate = make([]int32, g.NumNodes())
	for a := range x.tstate {
		x.tstate[a] = int32(g.StateOf(a, x.truth))
	}
	loss := e.Loss
	if loss == nil {
		loss = hammingLoss(g, x.truth)
	}
	if len(loss) > g.NumNodes() {
		return fmt.Errorf("%d loss tables for %d nodes", len(loss), g.NumNodes())
	}
	x.lossOff = make([]int32, g.NumNodes())
	for a := range x.lossOff {
		x.lossOff[a] = -1
		if a >= len(loss) || loss[a] == nil {
			continue
		}
		t := loss[a]
		if len(t) != g.States(a) {
			return fmt.Errorf("loss table of node %d has %d entries for %d states", a, len(t), g.States(a))
		}
		for s, v := range t {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return fmt.Errorf("loss of node %d state %d is %v", a, s, v)
			}
		}
		if t[x.tstate[a]] != 0 {
			return fmt.Errorf("loss of node %d is %v at the true state", a, t[x.tstate[a]])
		}
		x.lossOff[a] = int32(len(x.loss))
		x.loss = append(x.loss, t...)
	}
	m.ex[i] = x
	return nil
}

func hasDuplicate(idx []int32) bool {
	if len(idx) < 2 {
		return false
	}
	set := make(map[int32]struct{}, len(idx))
	for _, f := range idx {
		if _, ok := set[f]; ok {
			return true
		}
		set[f] = struct{}{}
	}
	return false
}

// hammingLoss returns the loss tables of the normalized Hamming loss
// (1/V) sum_i [y_i != y^m_i] on a graph of V variables: 1/V on the wrong
// states of every variable, no loss on the factors.
func hammingLoss(g *Graph, truth []int32) [][]float64 {
	out := make([][]float64, g.NumVars())
	inv := 1 / float64(g.NumVars())
	for i := range out {
		out[i] = make([]float64, g.Card(i))
		for s := range out[i] {
			if int32(s) != truth[i] {
				out[i][s] = inv
			}
		}
	}
	return out
}

// Len returns the number of examples M.
func (m *Model) Len() int { return len(m.ex) }

// Dim returns the dimension d of the weight vector.
func (m *Model) Dim() int { return m.dim }

// Graph returns the graph of example i.
func (m *Model) Graph(i int) *Graph { return m.ex[i].g }

// Truth returns the ground-truth labeling of example i (do not modify).
func (m *Model) Truth(i int) []int32 { return m.ex[i].truth }

// Inputs returns the input vectors of example i, those of its Example
// (do not modify).
func (m *Model) Inputs(i int) []oracles.SparseVec { return m.ex[i].inputs }

// TrueState returns the state y^m_alpha of node a under the truth.
func (m *Model) TrueState(i, a int) int { return int(m.ex[i].tstate[a]) }

// NodeLoss returns the loss table Delta_alpha(., y^m_alpha) of node a of
// example i, or nil when the node carries no loss. The caller must not
// modify it.
func (m *Model) NodeLoss(i, a int) []float64 {
	x := &m.ex[i]
	off := x.lossOff[a]
	if off < 0 {
		return nil
	}
	n := int32(x.g.States(a))
	return x.loss[off : off+n : off+n]
}

// Loss returns Delta(y, y^m) = sum_alpha Delta_alpha(y_alpha, y^m_alpha)
// for a labeling y of the variables.
func (m *Model) Loss(i int, y []int32) float64 {
	x := &m.ex[i]
	var l float64
	for a, off := range x.lossOff {
		if off >= 0 {
			l += x.loss[int(off)+x.g.StateOf(a, y)]
		}
	}
	return l
}

// input returns the input vector of a term, with one for Const.
func (x *example) input(t Term) (idx []int32, val []float64) {
	if t.Input == Const {
		return constIdx[:], constVal[:]
	}
	v := &x.inputs[t.Input]
	return v.Idx, v.Val[:len(v.Idx)]
}

var (
	constIdx = [1]int32{0}
	constVal = [1]float64{1}
)

// NodeScores sets dst[s] = <w, phi_alpha(x^(i), s)> for every state s of
// node a (len(dst) >= States(a)) and returns dst[:States(a)].
func (m *Model) NodeScores(i, a int, w, dst []float64) []float64 {
	x := &m.ex[i]
	return x.scores(a, w, dst[:x.g.states[a]])
}

// scores sets dst (len States(a)) to the scores of node a.
func (x *example) scores(a int, w, dst []float64) []float64 {
	clear(dst)
	g := x.g
	for _, t := range g.terms[g.termPtr[a]:g.termPtr[a+1]] {
		S := t.T.Slots
		slot := t.T.Slot[:len(dst)]
		if t.Input == Const {
			// The constant input: the score of a state is its slot's
			// weight (times 1).
			row := w[t.Offset : t.Offset+S]
			for s, sl := range slot {
				if sl >= 0 {
					dst[s] += row[sl]
				}
			}
			continue
		}
		in := &x.inputs[t.Input]
		idx, val := in.Idx, in.Val[:len(in.Idx)]
		if S == 1 {
			// One weight vector: one dot product, shared by the states
			// of slot 0.
			v := dotAt(w[t.Offset:t.Offset+t.T.InputDim], idx, val)
			for s, sl := range slot {
				if sl == 0 {
					dst[s] += v
				}
			}
			continue
		}
		for k, f := range idx {
			v := val[k]
			base := t.Offset + int(f)*S
			row := w[base : base+S]
			for s, sl := range slot {
				if sl >= 0 {
					dst[s] += v * row[sl]
				}
			}
		}
	}
	return dst
}

// Theta sets dst (len at least States(a)) to the node score of Meshi's
// eq. 2 of node a of example i, the loss-augmented score of each state s
// relative to the truth,
//
//	theta^(i)_alpha(s; w) = <w, phi_alpha(x, s) - phi_alpha(x, y^i_alpha)> + Delta_alpha(s, y^i_alpha),
//
// and returns dst[:States(a)]. It vanishes at the truth, and its values at
// the states of a labeling y sum over the nodes to H_i(y; w) = Delta(y,
// y^i) - <w, psi_i(y)>, the loss-augmented score that the max oracles of
// the views maximize: the node terms of H, from which the soft-constraint
// solver (package solver/soft) builds its block scores.
func (m *Model) Theta(i, a int, w, dst []float64) []float64 {
	x := &m.ex[i]
	return x.theta(a, w, dst[:x.g.states[a]])
}

// theta sets dst (len States(a)) to Theta of node a.
func (x *example) theta(a int, w, dst []float64) []float64 {
	dst = x.scores(a, w, dst)
	t := dst[x.tstate[a]]
	if off := x.lossOff[a]; off >= 0 {
		l := x.loss[off : int(off)+len(dst)]
		for s := range dst {
			dst[s] = dst[s] - t + l[s]
		}
		return dst
	}
	for s := range dst {
		dst[s] -= t
	}
	return dst
}

// addStatePsi adds scale*(phi_alpha(x, y^i_alpha) - phi_alpha(x, s)) for
// one state s of node a (nothing when s is the true state).
func (m *Model) addStatePsi(i, a, s int, scale float64, acc *oracles.Accumulator) {
	x := &m.ex[i]
	t := int(x.tstate[a])
	if s == t {
		return
	}
	for _, term := range x.g.Terms(a) {
		st, ss := term.T.Slot[t], term.T.Slot[s]
		if st == ss {
			continue
		}
		idx, val := x.input(term)
		S := term.T.Slots
		for k, f := range idx {
			base := int32(term.Offset + int(f)*S)
			if st >= 0 {
				acc.Add(base+st, scale*val[k])
			}
			if ss >= 0 {
				acc.Add(base+ss, -scale*val[k])
			}
		}
	}
}

// tables fills tab (len TableLen of the example's graph) with the node
// scores <w, phi_alpha(x, s)>, plus the loss tables when aug is set, and
// returns sum_alpha <w, phi_alpha(x, y^i_alpha)>, the score of the truth.
func (m *Model) tables(i int, w []float64, aug bool, tab []float64) float64 {
	x := &m.ex[i]
	g := x.g
	var truth float64
	for a := 0; a < g.NumNodes(); a++ {
		off := g.TableOffset(a)
		t := m.NodeScores(i, a, w, tab[off:off+g.States(a)])
		truth += t[x.tstate[a]]
		if aug {
			if l := m.NodeLoss(i, a); l != nil {
				for s, v := range l {
					t[s] += v
				}
			}
		}
	}
	return truth
}

// scored returns a workspace whose tab holds the node tables of example i
// (loss-augmented when aug; see tables), the example's graph and the score
// of the truth. The caller returns ws with m.put.
func (m *Model) scored(i int, w []float64, aug bool) (ws *work, g *Graph, truth float64) {
	ws = m.get()
	g = m.Graph(i)
	ws.tab = grow(ws.tab, g.TableLen())
	return ws, g, m.tables(i, w, aug, ws.tab)
}

// psi computes psi_i(y) = phi(x, y^i) - phi(x, y) for a labeling y of the
// variables into dst.
func (m *Model) psi(i int, y []int32, acc *oracles.Accumulator, dst *oracles.SparseVec) {
	acc.Ensure(m.dim)
	g := m.ex[i].g
	for a := 0; a < g.NumNodes(); a++ {
		m.addStatePsi(i, a, g.StateOf(a, y), 1, acc)
	}
	acc.Flush(dst)
}
