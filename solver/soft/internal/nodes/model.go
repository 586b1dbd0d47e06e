package nodes

import (
	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/oracles"
)

// Model is a factorgraph.Model seen block by block: the model, the Layout
// of every example's graph (one per distinct graph) and the squared norms
// of every example's inputs. It is immutable and safe for concurrent use.
type Model struct {
	m  *factorgraph.Model
	ex []example
}

type example struct {
	lay  *Layout
	inSq []float64 // |x_k|^2 of input k, for the inputs the graph's terms read
}

// New returns the block view of m.
func New(m *factorgraph.Model) *Model {
	k := &Model{m: m, ex: make([]example, m.Len())}
	layouts := map[*factorgraph.Graph]*Layout{}
	for i := range k.ex {
		g := m.Graph(i)
		lay := layouts[g]
		if lay == nil {
			lay = NewLayout(g)
			layouts[g] = lay
		}
		sq := make([]float64, lay.inputs)
		for j, in := range m.Inputs(i)[:lay.inputs] {
			sq[j] = in.NormSq()
		}
		k.ex[i] = example{lay: lay, inSq: sq}
	}
	return k
}

// Layout returns the layout of the agreement variables of example i.
func (k *Model) Layout(i int) *Layout { return k.ex[i].lay }

// Reparam sets dst (len at least States(a)) to the reparameterized node
// scores of Meshi's Alg. 1 (lines 5 and 10) for node a of example i,
// given the agreement variables delta of the example (laid out by its
// Layout):
//
//	variable i: theta_i(y) + sum_{c : i in c} delta_ci(y),
//	factor c:   theta_c(y_c) - sum_{i in c} delta_ci(y_i),
//
// with theta the node score of eq. 2 (factorgraph.Model.Theta), and
// returns dst[:States(a)].
// They are the gradient of the soft dual f_rho with respect to mu_alpha
// (up to the factor 1/M of its scaling), and the terms of the primal g of
// eq. 2: for any delta, sum_alpha max_y Reparam(alpha)(y) bounds the LP
// relaxation's loss-augmented maximum from above (weak duality).
func (k *Model) Reparam(i, a int, w, delta, dst []float64) []float64 {
	dst = k.m.Theta(i, a, w, dst)
	l := k.ex[i].lay
	if a < l.nv {
		// State by state, the sum over the factors in a register.
		offs := l.VarDeltas(a)
		for y := range dst {
			var sum float64
			for _, o := range offs {
				sum += delta[int(o)+y]
			}
			dst[y] += sum
		}
		return dst
	}
	if l.stateDelta != nil {
		width := int(l.posPtr[a+1] - l.posPtr[a])
		rel := l.stateDelta[l.sdOff[a] : l.sdOff[a]+int64(len(dst)*width)]
		d := delta[l.DeltaOffset(a, 0):]
		for s := range dst {
			var sum float64
			for _, r := range rel[s*width : s*width+width] {
				sum += d[r]
			}
			dst[s] -= sum
		}
		return dst
	}
	g := l.g
	st := g.Strides(a)
	for j, v := range g.Scope(a) {
		card, str := g.Card(int(v)), int(st[j])
		off := l.DeltaOffset(a, j)
		d := delta[off : off+card]
		// The states with y_v = y are the runs [base+y*str, base+(y+1)*str)
		// (see marginalize).
		for base := 0; base < len(dst); base += str * card {
			for y, dy := range d {
				run := dst[base+y*str : base+(y+1)*str]
				for s := range run {
					run[s] -= dy
				}
			}
		}
	}
	return dst
}

// NodePsi adds to acc (which must have room for the model's Dim()
// coordinates) the vector sum_s coef[s] (phi_alpha(x, y^i_alpha) -
// phi_alpha(x, s)) of node a of example i: with coef a distribution
// mu_alpha it is lambda*M times Psi_{i,alpha} mu_alpha of Meshi eq. 3,
// with coef = s_alpha - mu_alpha the direction of a Frank-Wolfe step on
// the block (i, alpha) (App. D).
func (k *Model) NodePsi(i, a int, coef []float64, acc *oracles.Accumulator) {
	var sum float64
	for _, v := range coef {
		sum += v
	}
	t := k.m.TrueState(i, a)
	inputs := k.m.Inputs(i)
	for _, term := range k.ex[i].lay.g.Terms(a) {
		in := &constInput
		if term.Input != factorgraph.Const {
			in = &inputs[term.Input]
		}
		termPsi(term, in, coef, sum, t, acc)
	}
}

// termPsi adds the part of NodePsi of one term with input in: -coef[s]
// times the column of the slot of every state s, and the sum of the
// coefficients times the column of the true state t. Contributions of
// states sharing a slot meet in acc. It is a function of its own so that
// its loops keep their values in registers.
func termPsi(term factorgraph.Term, in *oracles.SparseVec, coef []float64, sum float64, t int, acc *oracles.Accumulator) {
	idx := in.Idx
	val := in.Val[:len(idx)]
	S := term.T.Slots
	slot := term.T.Slot
	for s, v := range coef {
		if v == 0 || slot[s] < 0 {
			continue
		}
		for j, f := range idx {
			acc.Add(int32(term.Offset+int(f)*S)+slot[s], -v*val[j])
		}
	}
	if sum != 0 && slot[t] >= 0 {
		for j, f := range idx {
			acc.Add(int32(term.Offset+int(f)*S)+slot[t], sum*val[j])
		}
	}
}

// constInput is the input of factorgraph.Const terms, the constant 1.
var constInput = oracles.SparseVec{Idx: []int32{0}, Val: []float64{1}}
