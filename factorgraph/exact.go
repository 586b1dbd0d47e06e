package factorgraph

import (
	"fmt"

	"github.com/fwstruct/fwstruct/oracles"
)

// Exact is the view of a Model whose max oracle and Predict are exact MAP:
// max-sum on examples whose graph is a forest, and otherwise a Gray-code
// enumeration of every labeling (2^14 = 16,384 for a Yeast example).
// Labelings are assignments of the variables.
type Exact struct {
	assignments
}

// NewExact returns the exact view of m. Examples whose graph has a cycle
// must have at most maxLabelings labelings (zero means 2^24); it returns an
// error naming the first that has more.
func NewExact(m *Model, maxLabelings int) (*Exact, error) {
	if maxLabelings <= 0 {
		maxLabelings = maxLabelingsDefault
	}
	for i := 0; i < m.Len(); i++ {
		if g := m.Graph(i); !g.isForest() && !enumerable(g, maxLabelings) {
			return nil, fmt.Errorf("factorgraph: exact view: example %d has a cycle and %.3g labelings, above the limit %d", i, g.labelings(), maxLabelings)
		}
	}
	return &Exact{assignments{m}}, nil
}

// MaxOracle returns argmax_y Delta(y, y_i) + <w, phi(x_i, y)> and
// H_i(y; w).
func (e *Exact) MaxOracle(i int, w []float64, dst []int32) ([]int32, float64) {
	y, best, truth := e.decode(i, w, true, dst)
	return y, best - truth
}

// Predict returns argmax_y <w, phi(x_i, y)>.
func (e *Exact) Predict(i int, w []float64, dst []int32) []int32 {
	y, _, _ := e.decode(i, w, false, dst)
	return y
}

// decode maximizes the (loss-augmented when aug) score of example i and
// returns the maximizer, its score and the score of the truth.
func (e *Exact) decode(i int, w []float64, aug bool, dst []int32) ([]int32, float64, float64) {
	ws, g, truth := e.m.scored(i, w, aug)
	defer e.m.put(ws)
	dst = grow(dst, g.NumVars())
	var best float64
	if g.isForest() {
		best = maxSum(g, ws.tab, ws, dst)
	} else {
		best = enumerate(g, ws.tab, ws, dst)
	}
	return dst, best, truth
}

var (
	_ oracles.Problem   = (*Exact)(nil)
	_ oracles.Labelings = (*Exact)(nil)
	_ oracles.Evaluator = (*Exact)(nil)
)
