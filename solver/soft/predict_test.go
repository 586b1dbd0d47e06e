package soft

import (
	"context"
	"math"
	"testing"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/solver/run"
)

// TestMetrics: the Hamming loss and example-based F1 of Metrics on the
// exact view equal those of predictions recomputed by brute force over
// every labeling (scores from the dense reference features), counted by
// hand; on the rounded view (LP + rounding) the mean loss is the Hamming
// loss; the number of workers changes nothing.
func TestMetrics(t *testing.T) {
	tr := multiLabel(t, 10, 4, 3, 31)
	te := multiLabel(t, 25, 4, 3, 32)
	s, _ := newSolver(tr, config{Lambda: 0.05, Rho: 1, Seed: 1})
	if _, err := s.Run(context.Background(), run.Stop{Passes: 30}); err != nil {
		t.Fatal(err)
	}
	w := s.Weights()
	ref := newReference(te, 1, 1)
	var ham, f1 float64
	for i := 0; i < te.Len(); i++ {
		g := te.Graph(i)
		best, bestScore := []int32(nil), math.Inf(-1)
		oneView(t, te).ForEachLabeling(i, func(y []int32) {
			var score float64
			for a := 0; a < g.NumNodes(); a++ {
				score += dot(w, ref.phi[i][a][g.StateOf(a, y)])
			}
			if score > bestScore+1e-12 {
				best, bestScore = append(best[:0], y...), score
			}
		})
		var wrong, inter, ny, nz float64
		for v, yt := range te.Truth(i) {
			if best[v] != yt {
				wrong++
			}
			ny += float64(yt)
			nz += float64(best[v])
			if yt == 1 && best[v] == 1 {
				inter++
			}
		}
		ham += wrong / 4 / float64(te.Len())
		if ny+nz == 0 {
			f1 += 1 / float64(te.Len())
		} else {
			f1 += 2 * inter / (ny + nz) / float64(te.Len())
		}
	}
	for _, workers := range []int{0, 1, 3} {
		loss, ms := Metrics(oneView(t, te), w, workers)
		assertClose(t, "Hamming loss", ms[0].Value, ham, 1e-12)
		assertClose(t, "mean loss", loss, ham, 1e-12)
		assertClose(t, "example F1", ms[1].Value, f1, 1e-12)
		if ms[0].Name != factorgraph.MetricHamming || ms[1].Name != factorgraph.MetricF1 {
			t.Fatalf("metrics %v", ms)
		}
		rounded, err := factorgraph.NewRounded(te)
		if err != nil {
			t.Fatal(err)
		}
		loss, ms = Metrics(rounded, w, workers)
		assertClose(t, "LP + rounding: loss = Hamming loss", loss, ms[0].Value, 1e-12)
	}
	if ham == 0 || f1 == 1 {
		t.Fatalf("degenerate test set: Hamming %v, F1 %v", ham, f1)
	}
}
