package oracles

import (
	"fmt"
	"math"
)

// TabularExample lists the whole label space of one example explicitly:
// Phi[y] is phi(x, y) and Loss[y] is L(y_truth, y) for the labeling {y}.
type TabularExample struct {
	Phi   []SparseVec
	Loss  []float64
	Truth int32
}

// Tabular is a problem whose examples enumerate their labels explicitly with
// arbitrary feature vectors and losses. Labelings are one-element slices {y}.
// It suits hand-built examples such as the toy problem of Osokin et al.
// (2016, App. C) and small tests; the max oracle is exhaustive.
type Tabular struct {
	dim int
	ex  []TabularExample
}

// NewTabular validates and builds a tabular problem of dimension dim.
func NewTabular(dim int, examples []TabularExample) (*Tabular, error) {
	if dim < 1 {
		return nil, fmt.Errorf("tabular: dimension %d < 1", dim)
	}
	t := &Tabular{dim: dim, ex: make([]TabularExample, len(examples))}
	for i, e := range examples {
		if len(e.Phi) == 0 || len(e.Phi) != len(e.Loss) {
			return nil, fmt.Errorf("tabular: example %d: %d feature vectors and %d losses", i, len(e.Phi), len(e.Loss))
		}
		if e.Truth < 0 || int(e.Truth) >= len(e.Phi) {
			return nil, fmt.Errorf("tabular: example %d: truth %d outside [0, %d)", i, e.Truth, len(e.Phi))
		}
		c := TabularExample{Truth: e.Truth, Loss: append([]float64(nil), e.Loss...), Phi: make([]SparseVec, len(e.Phi))}
		for y, phi := range e.Phi {
			if len(phi.Idx) != len(phi.Val) {
				return nil, fmt.Errorf("tabular: example %d label %d: %d indices but %d values", i, y, len(phi.Idx), len(phi.Val))
			}
			seen := map[int32]bool{}
			for k, j := range phi.Idx {
				if j < 0 || int(j) >= dim || seen[j] {
					return nil, fmt.Errorf("tabular: example %d label %d: bad or repeated index %d", i, y, j)
				}
				if v := phi.Val[k]; math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("tabular: example %d label %d: value %v", i, y, v)
				}
				seen[j] = true
			}
			if l := e.Loss[y]; l < 0 || math.IsNaN(l) || math.IsInf(l, 0) {
				return nil, fmt.Errorf("tabular: example %d label %d: loss %v must be finite and >= 0", i, y, l)
			}
			c.Phi[y] = phi.Clone()
		}
		t.ex[i] = c
	}
	return t, nil
}

// Len returns the number of examples.
func (t *Tabular) Len() int { return len(t.ex) }

// Dim returns the feature dimension.
func (t *Tabular) Dim() int { return t.dim }

// NumLabels returns the number of labels of example i.
func (t *Tabular) NumLabels(i int) int { return len(t.ex[i].Phi) }

// Truth returns {y_i}.
func (t *Tabular) Truth(i int) []int32 { return []int32{t.ex[i].Truth} }

// Loss returns the tabulated loss of {y}.
func (t *Tabular) Loss(i int, y []int32) float64 { return t.ex[i].Loss[y[0]] }

// Psi returns phi(x_i, y_i) - phi(x_i, y).
func (t *Tabular) Psi(i int, y []int32, dst *SparseVec) {
	e := &t.ex[i]
	dst.Reset()
	if y[0] == e.Truth {
		return
	}
	a, b := &e.Phi[e.Truth], &e.Phi[y[0]]
	// Both lists are short; merge them through a linear scan.
	for k, j := range a.Idx {
		v := a.Val[k]
		for m, jb := range b.Idx {
			if jb == j {
				v -= b.Val[m]
			}
		}
		if v != 0 {
			dst.Append(j, v)
		}
	}
	for m, j := range b.Idx {
		inA := false
		for _, ja := range a.Idx {
			if ja == j {
				inA = true
				break
			}
		}
		if !inA && b.Val[m] != 0 {
			dst.Append(j, -b.Val[m])
		}
	}
}

// MaxOracle enumerates the labels: argmax_y L(y) + <w, phi(y)>.
func (t *Tabular) MaxOracle(i int, w []float64, dst []int32) ([]int32, float64) {
	e := &t.ex[i]
	truthScore := e.Phi[e.Truth].Dot(w)
	best, arg := math.Inf(-1), 0
	for y := range e.Phi {
		if s := e.Loss[y] + e.Phi[y].Dot(w); s > best {
			best, arg = s, y
		}
	}
	return append(dst[:0], int32(arg)), best - truthScore
}

// Predict returns argmax_y <w, phi(y)>.
func (t *Tabular) Predict(i int, w []float64, dst []int32) []int32 {
	e := &t.ex[i]
	best, arg := math.Inf(-1), 0
	for y := range e.Phi {
		if s := e.Phi[y].Dot(w); s > best {
			best, arg = s, y
		}
	}
	return append(dst[:0], int32(arg))
}

// ForEachLabeling enumerates the labels of example i.
func (t *Tabular) ForEachLabeling(i int, fn func(y []int32)) {
	enumerate(1, len(t.ex[i].Phi), fn)
}
