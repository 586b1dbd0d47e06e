package soft

import (
	"math"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/internal/core"
)

// Metrics predicts every example of p with the weights w (p.Predict: exact
// MAP on a factorgraph.Exact view, LP plus rounding on a
// factorgraph.Rounded view, as Meshi et al. predict) on workers goroutines
// (0: one) and returns the mean task loss (NaN without examples) and, when p is an
// oracles.Evaluator, its task metrics (Hamming loss, example-based F1 and
// subset accuracy for the multi-label models); nil otherwise.
func Metrics(p oracles.Problem, w []float64, workers int) (loss float64, metrics []oracles.Metric) {
	return predictions(p, w, workers, true)
}

// predictions predicts every example in parallel and returns the mean
// loss and, with metrics, p's metrics.
func predictions(p oracles.Problem, w []float64, workers int, metrics bool) (float64, []oracles.Metric) {
	n := p.Len()
	if n == 0 {
		return math.NaN(), nil
	}
	W := max(1, min(workers, n))
	pred := make([][]int32, n)
	losses := make([]float64, n)
	_ = core.Parallel(n, W, func(k, i int) error {
		pred[i] = p.Predict(i, w, nil)
		losses[i] = p.Loss(i, pred[i])
		return nil
	})
	var sum float64
	for _, l := range losses {
		sum += l
	}
	var out []oracles.Metric
	if ev, ok := p.(oracles.Evaluator); ok && metrics {
		out = ev.Metrics(pred)
	}
	return sum / float64(n), out
}
