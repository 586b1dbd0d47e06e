package factorgraph

import (
	"math"

	"github.com/fwstruct/fwstruct/oracles"
)

// Names of the task metrics of the Exact and Rounded views
// (oracles.Evaluator), computed on predicted assignments pred[i] of the
// examples:
//
//   - hamming_loss: the fraction of wrong variables, (1/n) sum_i (1/V_i)
//     sum_j [pred_ij != y_ij] (the Hamming loss of multi-label
//     classification; Tsoumakas, Katakis and Vlahavas 2010, "Mining
//     multi-label data", Sec. 7.1);
//
// and, when every variable of every example is binary (state 1 meaning the
// label is relevant), the example-based measures of the same reference:
//
//   - example_f1: (1/n) sum_i 2|Y_i ∩ Z_i| / (|Y_i| + |Z_i|) for the true
//     and predicted label sets Y_i and Z_i, counted as 1 when both are empty
//     (MULAN's convention);
//   - subset_accuracy: the fraction of examples predicted exactly.
//
// A prediction of the wrong length counts every variable as wrong. With no
// examples the values are NaN.
const (
	MetricHamming = "hamming_loss"
	MetricF1      = "example_f1"
	MetricSubset  = "subset_accuracy"
)

// assignmentMetrics returns the task metrics of predicted assignments
// pred[i] of the examples of m (len(pred) == m.Len()): hamming_loss, and
// example_f1 and subset_accuracy on binary variables (see MetricHamming).
func assignmentMetrics(m *Model, pred [][]int32) []oracles.Metric {
	n := m.Len()
	binary := true
	var ham, f1, subset float64
	for i := 0; i < n; i++ {
		g := m.Graph(i)
		for v := 0; v < g.NumVars(); v++ {
			binary = binary && g.Card(v) == 2
		}
		truth := m.Truth(i)
		var p []int32
		if i < len(pred) && len(pred[i]) == len(truth) {
			p = pred[i]
		}
		wrong, inter, ny, nz := 0, 0, 0, 0
		for v, t := range truth {
			if p == nil {
				wrong++
				ny += int(t)
				continue
			}
			if p[v] != t {
				wrong++
			}
			ny += int(t)
			nz += int(p[v])
			if t == 1 && p[v] == 1 {
				inter++
			}
		}
		ham += float64(wrong) / float64(len(truth))
		if wrong == 0 {
			subset++
		}
		if ny+nz == 0 {
			f1++
		} else {
			f1 += 2 * float64(inter) / float64(ny+nz)
		}
	}
	inv := 1 / float64(n)
	if n == 0 {
		inv = math.NaN()
	}
	out := []oracles.Metric{{Name: MetricHamming, Value: ham * inv}}
	if binary {
		out = append(out, oracles.Metric{Name: MetricF1, Value: f1 * inv}, oracles.Metric{Name: MetricSubset, Value: subset * inv})
	}
	return out
}
