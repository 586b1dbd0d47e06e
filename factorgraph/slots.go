package factorgraph

import "math"

// Slot columns. A node's feature map is a sum over its terms t and the
// slots k of their templates of columns: the input x_t of the term placed
// at the coordinates Offset_t + f*Slots_t + k, selected by the states s
// with Slot[s] = k. Any combination of the node's feature vectors, such as
// NodePsi(coef), is therefore sum_{t,k} c_{t,k} column_{t,k}: the slot
// coefficients c (Graph.NodeSlots of them, term by term, slot by slot) are
// a compressed form of a vector of up to Dim() coordinates. The factor-level
// solver of Meshi et al. (2015, Alg. 1, App. D) takes its steps in this
// form: PsiSlots gives the coefficients of its direction, PsiSlotsNormSq
// the squared norm of the step size, AddPsiSlots the update of w, in time
// linear in the inputs and without a sparse accumulator.

// NodeSlots returns the number of slot columns of node a: the sum of
// Template.Slots over its terms.
func (g *Graph) NodeSlots(a int) int { return int(g.slots[a]) }

// slotCount returns the number of slot columns of a node with these terms.
func slotCount(terms []Term) int {
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
func disjointTerms(terms []Term) bool {
	for j, t := range terms {
		for _, u := range terms[:j] {
			if t.Offset < u.Offset+u.T.Width() && u.Offset < t.Offset+t.T.Width() {
				return false
			}
		}
	}
	return true
}

// PsiSlots sets dst (len at least Graph.NodeSlots(a)) to the slot
// coefficients of NodePsi(i, a, coef), the vector sum_s coef[s]
// (phi_alpha(x, y^i_alpha) - phi_alpha(x, s)), and returns
// dst[:NodeSlots(a)]: c_{t,k} = (sum_s coef[s]) [Slot_t(y^i_alpha) = k] -
// sum_{s : Slot_t(s) = k} coef[s].
func (m *Model) PsiSlots(i, a int, coef, dst []float64) []float64 {
	c, _, _ := m.PsiSlotsNorm(i, a, coef, dst)
	return c
}

// PsiSlotsNorm is PsiSlots and PsiSlotsNormSq in one pass over the node's
// terms: it returns the slot coefficients c of NodePsi(i, a, coef) in dst,
// and the squared norm of that vector with true when the node's terms span
// disjoint coordinates (NaN and false otherwise). A soft step takes both.
func (m *Model) PsiSlotsNorm(i, a int, coef, dst []float64) (c []float64, sq float64, ok bool) {
	x := &m.ex[i]
	var sum float64
	for _, v := range coef {
		sum += v
	}
	t := int(x.tstate[a])
	k := 0
	for _, term := range x.g.Terms(a) {
		c := dst[k : k+term.T.Slots]
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
		k += term.T.Slots
		sq += x.inputSq(term) * normSq(c)
	}
	if !x.g.disjoint[a] {
		return dst[:k], math.NaN(), false
	}
	return dst[:k], sq, true
}

// inputSq returns |x_t|^2 of the input of a term (1 for the constant).
func (x *example) inputSq(t Term) float64 {
	if t.Input == Const {
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

// PsiSlotsNormSq returns the squared Euclidean norm of the vector whose
// slot coefficients on node a of example i are c (see PsiSlots), and true,
// when the terms of the node span disjoint coordinates: sum over terms t of
// |x_t|^2 sum_k c_{t,k}^2. Otherwise it returns NaN and false (the columns
// may overlap; accumulate the vector with NodePsi instead).
func (m *Model) PsiSlotsNormSq(i, a int, c []float64) (float64, bool) {
	x := &m.ex[i]
	if !x.g.disjoint[a] {
		return math.NaN(), false
	}
	var sq float64
	k := 0
	for _, term := range x.g.Terms(a) {
		sq += x.inputSq(term) * normSq(c[k:k+term.T.Slots])
		k += term.T.Slots
	}
	return sq, true
}

// AddPsiSlots adds scale times the vector whose slot coefficients on node a
// of example i are c (see PsiSlots) to w (len Dim()), coordinate by
// coordinate as w_j += scale * (c_{t,k} x_f).
func (m *Model) AddPsiSlots(i, a int, c []float64, scale float64, w []float64) {
	x := &m.ex[i]
	k := 0
	for _, term := range x.g.Terms(a) {
		idx, val := x.input(term)
		S := term.T.Slots
		for sl, v := range c[k : k+S] {
			if v == 0 {
				continue
			}
			row := w[term.Offset+sl : term.Offset+term.T.Width()]
			for j, f := range idx {
				row[int(f)*S] += scale * (v * val[j])
			}
		}
		k += S
	}
}

// dotAt returns sum_k val[k] * w[idx[k]]. It sums in four interleaved
// partial sums (k mod 4), combined at the end, so that the additions do
// not wait for each other: a dot product over Yeast's 103 features is the
// largest part of a soft step on a label. The order is fixed, so a score
// is the same number every time it is computed.
func dotAt(w []float64, idx []int32, val []float64) float64 {
	val = val[:len(idx)]
	var s0, s1, s2, s3 float64
	k := 0
	for ; k+4 <= len(idx); k += 4 {
		s0 += val[k] * w[idx[k]]
		s1 += val[k+1] * w[idx[k+1]]
		s2 += val[k+2] * w[idx[k+2]]
		s3 += val[k+3] * w[idx[k+3]]
	}
	for ; k < len(idx); k++ {
		s0 += val[k] * w[idx[k]]
	}
	return (s0 + s1) + (s2 + s3)
}
