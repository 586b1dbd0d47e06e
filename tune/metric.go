package tune

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/oracles"
)

// Names of the metrics that are not an oracles.Evaluator's.
const (
	// MetricLoss is the mean task loss of the predictions (for OCR, the
	// fraction of wrong letters a word, averaged over the words).
	MetricLoss = "loss"
	// MetricErrorRate is the fraction of misclassified examples of
	// multiclass data (its mean 0-1 loss).
	MetricErrorRate = "error_rate"
)

// minimized lists the metrics to minimize; every other one (accuracy,
// F1, IoU) is maximized.
var minimized = []string{MetricLoss, MetricErrorRate, factorgraph.MetricHamming}

// lowerIsBetter reports whether the metric of that name is minimized (the
// losses and error rates) rather than maximized (accuracies, F1, IoU).
func lowerIsBetter(metric string) bool { return slices.Contains(minimized, metric) }

// DefaultMetric returns the task's own metric of a problem: the Hamming
// loss of multi-label data, the chunk F1 of chunking, the pixel accuracy of
// segmentation, the error rate of multiclass data, and the mean task loss
// of the others (OCR's per-word letter error).
func DefaultMetric(p oracles.Problem) string {
	switch p.(type) {
	case *factorgraph.Exact, *factorgraph.Rounded, *factorgraph.Relaxed:
		return factorgraph.MetricHamming
	case *datasets.Chunking:
		return "chunk F1 %"
	case *oracles.Segmentation:
		return oracles.MetricPixelAccuracy
	case *oracles.Multiclass:
		return MetricErrorRate
	}
	return MetricLoss
}

// metricOf returns the named metric of the predictions pred of every
// example of p.
func metricOf(p oracles.Problem, pred [][]int32, name string) (float64, error) {
	if name == MetricLoss || (name == MetricErrorRate && isMulticlass(p)) {
		var sum float64
		for i, y := range pred {
			sum += p.Loss(i, y)
		}
		return sum / float64(len(pred)), nil
	}
	var names []string
	if ev, ok := p.(oracles.Evaluator); ok {
		for _, m := range ev.Metrics(pred) {
			if m.Name == name {
				return m.Value, nil
			}
			names = append(names, m.Name)
		}
	}
	if isMulticlass(p) {
		names = append(names, MetricErrorRate)
	}
	names = append(names, MetricLoss)
	return 0, fmt.Errorf("tune: no metric %q on this data (it has %s)", name, strings.Join(names, ", "))
}

func isMulticlass(p oracles.Problem) bool {
	_, ok := p.(*oracles.Multiclass)
	return ok
}
