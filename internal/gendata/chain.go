package gendata

import (
	"fmt"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/oracles"
)

// FromChain writes the linear-chain model c as a factor graph with the same
// weight layout, joint feature map and loss as oracles.Chain, so that
// objectives computed on either agree: a sequence of T positions has T
// variables of K states, whose terms are the emission features (input x_t,
// one weight vector per label at offset 0) and the model bias (plus the
// first- and last-position biases on the end positions), and T-1 pairwise
// factors (t, t+1) carrying the transition weights, pair state k*K + l at
// coordinate F*K + k*K + l. The loss is the normalized Hamming loss of
// oracles.Chain. Sequences of one length share one factorgraph.Graph.
func FromChain(c *oracles.Chain) (*factorgraph.Model, error) {
	K, F := c.NumLabels(), c.NumFeatures()
	emission := factorgraph.OneHot(K, max(F, 1))
	transition := factorgraph.OneHot(K*K, 1)
	bias := factorgraph.OneHot(K, 1)
	biasOff := F*K + K*K
	graphs := map[int]*factorgraph.Graph{}
	examples := make([]factorgraph.Example, c.Len())
	for i := range examples {
		T := c.SeqLen(i)
		g := graphs[T]
		if g == nil {
			cards := make([]int, T)
			terms := make([][]factorgraph.Term, T)
			for t := range cards {
				cards[t] = K
				if F > 0 {
					terms[t] = append(terms[t], factorgraph.Term{T: emission, Input: t, Offset: 0})
				}
				terms[t] = append(terms[t], factorgraph.Term{T: bias, Input: factorgraph.Const, Offset: biasOff})
				if t == 0 {
					terms[t] = append(terms[t], factorgraph.Term{T: bias, Input: factorgraph.Const, Offset: biasOff + K})
				}
				if t == T-1 {
					terms[t] = append(terms[t], factorgraph.Term{T: bias, Input: factorgraph.Const, Offset: biasOff + 2*K})
				}
			}
			factors := make([]factorgraph.Factor, T-1)
			for t := range factors {
				factors[t] = factorgraph.Factor{Scope: []int{t, t + 1}, Terms: []factorgraph.Term{{T: transition, Input: factorgraph.Const, Offset: F * K}}}
			}
			var err error
			if g, err = factorgraph.NewGraph(cards, terms, factors); err != nil {
				return nil, fmt.Errorf("gendata: chain of length %d: %w", T, err)
			}
			graphs[T] = g
		}
		inputs := make([]oracles.SparseVec, T)
		for t := range inputs {
			inputs[t] = c.Features(i, t)
		}
		examples[i] = factorgraph.Example{Graph: g, Inputs: inputs, Truth: c.Truth(i)}
	}
	return factorgraph.NewModel(c.Dim(), examples)
}
