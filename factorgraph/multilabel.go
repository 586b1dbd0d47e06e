package factorgraph

import (
	"fmt"

	"github.com/fwstruct/fwstruct/oracles"
)

// MultiLabel is the weight layout of the multi-label model of Meshi et al.
// (2015, Sec. 6): L binary variables y_i (label i relevant or not), F input
// features, and the score
//
//	<w, phi(x, y)> = sum_i (w_i . x + b_i) y_i + sum_{i<j} w_ij y_i y_j,
//
// the per-label biases b_i being present only with Bias. Label i owns the
// coordinates i*(F+B) .. i*(F+B)+F-1 (its w_i) and i*(F+B)+F (its b_i),
// with B = 1 with a bias and 0 without; the pair weights w_ij follow at
// L*(F+B) + PairIndex(i, j). So d = L*(F+B) + L(L-1)/2: 14*103 + 91 = 1,533
// for Yeast without bias (the paper's count), 1,547 with it.
type MultiLabel struct {
	Labels, Features int
	Bias             bool
}

// Dim returns L*(F+B) + L(L-1)/2.
func (l MultiLabel) Dim() int { return l.Labels*l.block() + l.Labels*(l.Labels-1)/2 }

func (l MultiLabel) block() int {
	if l.Bias {
		return l.Features + 1
	}
	return l.Features
}

// UnaryIndex returns the coordinate of feature f in w_i.
func (l MultiLabel) UnaryIndex(i, f int) int { return i*l.block() + f }

// BiasIndex returns the coordinate of b_i (only with Bias).
func (l MultiLabel) BiasIndex(i int) int { return i*l.block() + l.Features }

// PairIndex returns the coordinate of w_ij for i != j: the pairs (i, j),
// i < j, in lexicographic order after the label blocks.
func (l MultiLabel) PairIndex(i, j int) int {
	if i > j {
		i, j = j, i
	}
	L := l.Labels
	return L*l.block() + i*(2*L-i-1)/2 + (j - i - 1)
}

// graph returns the factor graph shared by every example: L binary
// variables whose terms read input 0 (the features) and, with Bias, the
// constant, and one pairwise factor per pair i < j (in PairIndex order)
// whose only feature is y_i y_j (pair state 3 = (1, 1)).
func (l MultiLabel) graph() (*Graph, error) {
	L := l.Labels
	if L < 1 || l.Features < 0 {
		return nil, fmt.Errorf("factorgraph: multi-label model with %d labels and %d features", L, l.Features)
	}
	on := []int32{-1, 0}
	var unary, bias *Template
	if l.Features > 0 {
		unary = &Template{InputDim: l.Features, Slots: 1, Slot: on}
	}
	bias = &Template{InputDim: 1, Slots: 1, Slot: on}
	pair := &Template{InputDim: 1, Slots: 1, Slot: []int32{-1, -1, -1, 0}}
	cards := make([]int, L)
	terms := make([][]Term, L)
	for i := range cards {
		cards[i] = 2
		if unary != nil {
			terms[i] = append(terms[i], Term{T: unary, Input: 0, Offset: l.UnaryIndex(i, 0)})
		}
		if l.Bias {
			terms[i] = append(terms[i], Term{T: bias, Input: Const, Offset: l.BiasIndex(i)})
		}
	}
	var factors []Factor
	for i := 0; i < L; i++ {
		for j := i + 1; j < L; j++ {
			factors = append(factors, Factor{Scope: []int{i, j}, Terms: []Term{{T: pair, Input: Const, Offset: l.PairIndex(i, j)}}})
		}
	}
	return NewGraph(cards, terms, factors)
}

// NewMultiLabel builds the multi-label model of layout l on inputs x[m]
// (feature indices below l.Features) and label vectors y[m] (L entries, each
// 0 or 1), with the normalized Hamming loss (1/L) sum_i [y_i != y^m_i].
// The inputs are shared, not copied.
func NewMultiLabel(l MultiLabel, x []oracles.SparseVec, y [][]int32) (*Model, error) {
	if len(x) != len(y) {
		return nil, fmt.Errorf("factorgraph: multi-label: %d inputs but %d label vectors", len(x), len(y))
	}
	g, err := l.graph()
	if err != nil {
		return nil, err
	}
	examples := make([]Example, len(x))
	for m := range examples {
		if len(y[m]) != l.Labels {
			return nil, fmt.Errorf("factorgraph: multi-label: example %d has %d labels, want %d", m, len(y[m]), l.Labels)
		}
		for i, v := range y[m] {
			if v != 0 && v != 1 {
				return nil, fmt.Errorf("factorgraph: multi-label: example %d label %d is %d, want 0 or 1", m, i, v)
			}
		}
		examples[m] = Example{Graph: g, Inputs: x[m : m+1 : m+1], Truth: y[m]}
	}
	return NewModel(l.Dim(), examples)
}
