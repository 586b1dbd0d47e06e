package factorgraph

import (
	"math"

	"github.com/fwstruct/fwstruct/oracles"
)

// assignments is the part of the Exact and Rounded views whose labelings are
// assignments of the variables (len NumVars, y[i] in [0, Card(i))).
type assignments struct {
	m *Model
}

// Model returns the model the view is of.
func (v assignments) Model() *Model { return v.m }

// Len returns the number of examples.
func (v assignments) Len() int { return v.m.Len() }

// Dim returns the dimension of the weight vector.
func (v assignments) Dim() int { return v.m.Dim() }

// Truth returns the ground-truth assignment of example i (do not modify).
func (v assignments) Truth(i int) []int32 { return v.m.Truth(i) }

// Loss returns sum_alpha Delta_alpha(y_alpha, y^i_alpha), or +Inf for a
// labeling of the wrong length.
func (v assignments) Loss(i int, y []int32) float64 {
	if len(y) != v.m.Graph(i).NumVars() {
		return math.Inf(1)
	}
	return v.m.Loss(i, y)
}

// Psi sets dst to phi(x_i, y_i) - phi(x_i, y).
func (v assignments) Psi(i int, y []int32, dst *oracles.SparseVec) {
	ws := v.m.get()
	defer v.m.put(ws)
	v.m.psi(i, y, &ws.acc, dst)
}

// ForEachLabeling enumerates every assignment of example i.
func (v assignments) ForEachLabeling(i int, fn func(y []int32)) {
	g := v.m.Graph(i)
	y := make([]int32, g.NumVars())
	for {
		fn(y)
		j := 0
		for ; j < len(y); j++ {
			y[j]++
			if y[j] < g.card[j] {
				break
			}
			y[j] = 0
		}
		if j == len(y) {
			return
		}
	}
}

// Metrics returns the task metrics of the predictions: hamming_loss, and
// example_f1 and subset_accuracy when every variable is binary (see
// MetricHamming).
func (v assignments) Metrics(pred [][]int32) []oracles.Metric { return assignmentMetrics(v.m, pred) }
