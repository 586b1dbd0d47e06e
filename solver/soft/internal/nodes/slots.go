package nodes

import (
	"math"

	"github.com/fwstruct/fwstruct/factorgraph"
)

// Slot columns. A node's feature map is a sum over its terms t and the
// slots k of their templates of columns: the input x_t of the term placed
// at the coordinates Offset_t + f*Slots_t + k, selected by the states s
// with Slot[s] = k. Any combination of the node's feature vectors, such as
// NodePsi(coef), is therefore sum_{t,k} c_{t,k} column_{t,k}: the slot
// coefficients c (Layout.NodeSlots of them, term by term, slot by slot)
// are a compressed form of a vector of up to Dim() coordinates. The
// factor-level solver of Meshi et al. (2015, Alg. 1, App. D) takes its
// steps in this form: PsiSlotsNorm gives the coefficients of its direction
// and the squared norm of the step size, AddPsiSlots the update of w, in
// time linear in the inputs and without a sparse accumulator.

// NodeSlots returns the number of slot columns of node a: the sum of
// Template.Slots over its terms.
func (l *Layout) NodeSlots(a int) int { return int(l.slots[a]) }

// slotCount returns the number of slot columns of a node with these terms.
func slotCount(terms []factorgraph.Term) int {
	n := 0
	for _, t := range terms {
		n += t.T.Slots
	}
	return n
}

// disjointTerms reports whether the coordinate ranges [Offset, Offset +
// Width) of the terms are pairwise disjoint; then the columns of a node are
// orthogonal (within a term, the slots of a feature are distinct
// coordinates), and the squared norm of a combination is the sum of its
// parts.
func disjointTerms(terms []factorgraph.Term) bool {
	for j, t := range terms {
		for _, u := range terms[:j] {
			if t.Offset < u.Offset+u.T.Width() && u.Offset < t.Offset+t.T.Width() {
				return false
			}
		}
	}
	return true
}

// PsiSlotsNorm sets dst (len at least NodeSlots(a)) to the slot
// coefficients of NodePsi(i, a, coef), the vector sum_s coef[s]
// (phi_alpha(x, y^i_alpha) - phi_alpha(x, s)), c_{t,k} = (sum_s coef[s])
// [Slot_t(y^i_alpha) = k] - sum_{s : Slot_t(s) = k} coef[s], and returns
// dst[:NodeSlots(a)] with the squared Euclidean norm of that vector, sum
// over terms t of |x_t|^2 sum_k c_{t,k}^2, and true, when the terms of the
// node span disjoint coordinates. Otherwise the columns may overlap and it
// returns the coefficients with NaN and false (accumulate the vector with
// NodePsi instead). A soft step takes both in one pass over the terms.
func (k *Model) PsiSlotsNorm(i, a int, coef, dst []float64) (c []float64, sq float64, ok bool) {
	x := &k.ex[i]
	var sum float64
	for _, v := range coef {
		sum += v
	}
	t := k.m.TrueState(i, a)
	n := 0
	for _, term := range x.lay.g.Terms(a) {
		c := dst[n : n+term.T.Slots]
		clear(c)
		slot := term.T.Slot[:len(coef)]
		for s, v := range coef {
			if sl := slot[s]; sl >= 0 {
				c[sl] -= v
			}
		}
		if sl := slot[t]; sl >= 0 {
			c[sl] += sum
		}
		n += term.T.Slots
		sq += x.inputSq(term) * normSq(c)
	}
	if !x.lay.disjoint[a] {
		return dst[:n], math.NaN(), false
	}
	return dst[:n], sq, true
}

// inputSq returns |x_t|^2 of the input of a term (1 for the constant).
func (x *example) inputSq(t factorgraph.Term) float64 {
	if t.Input == factorgraph.Const {
		return 1
	}
	return x.inSq[t.Input]
}

func normSq(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return s
}

// AddPsiSlots adds scale times the vector whose slot coefficients on node a
// of example i are c (see PsiSlotsNorm) to w (len Dim()), coordinate by
// coordinate as w_j += scale * (c_{t,k} x_f).
func (k *Model) AddPsiSlots(i, a int, c []float64, scale float64, w []float64) {
	inputs := k.m.Inputs(i)
	n := 0
	for _, term := range k.ex[i].lay.g.Terms(a) {
		S := term.T.Slots
		if term.Input == factorgraph.Const {
			// One coordinate per slot, times the input 1 (v*1 = v).
			row := w[term.Offset : term.Offset+S]
			for sl, v := range c[n : n+S] {
				if v != 0 {
					row[sl] += scale * v
				}
			}
			n += S
			continue
		}
		in := &inputs[term.Input]
		for sl, v := range c[n : n+S] {
			if v != 0 {
				addColumn(w[term.Offset+sl:term.Offset+term.T.Width()], S, in.Idx, in.Val, scale, v)
			}
		}
		n += S
	}
}

// addColumn adds scale * (v * val[j]) to row[idx[j]*S] for every j: one
// slot column of a term. It is a function of its own, not inlined, so
// that its loop keeps its few values in registers (inlined into
// AddPsiSlots, its counter spills to the stack, and the update of w on a
// label of a Yeast-shaped model takes a fifth more instructions).
//
//go:noinline
func addColumn(row []float64, S int, idx []int32, val []float64, scale, v float64) {
	val = val[:len(idx)]
	for j, f := range idx {
		row[int(f)*S] += scale * (v * val[j])
	}
}
