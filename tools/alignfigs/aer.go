package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/fwstruct/fwstruct/align"
	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/viz"
)

// lambdaGrid is the grid lambda is chosen from.
var lambdaGrid = []float64{1e-4, 3e-4, 1e-3, 3e-3, 0.01, 0.03, 0.1, 0.3, 1}

// heldOut is the number of gold training pairs held out for choosing
// lambda: the models of the grid train on the first TrainGold - heldOut
// (1-75 by default) and are scored on the last heldOut (76-100).
const heldOut = 25

// lambdaScore is the held-out AER of one lambda of the grid.
type lambdaScore struct {
	Lambda, AER, Gap, Passes float64
}

// aerResult is the outcome of the aer experiment.
type aerResult struct {
	Grid      []lambdaScore
	Lambda    float64 // the lambda chosen
	Gap       float64 // certified duality gap of the final model
	Weights   []float64
	Pred      [][]int32 // predictions of the test pairs
	Model     oracles.AlignmentCounts
	Baselines []align.Baseline
}

// train trains the matching model on p at lambda with the recommended
// BCFW (gap sampling, pairwise steps, cache) until a certified duality gap
// of 0.001 or 3,000 passes, and returns its weights and last trace point.
func train(ctx context.Context, p oracles.Problem, lambda float64) ([]float64, run.Point, error) {
	s, err := solver.Recommended(lambda).New(p)
	if err != nil {
		return nil, run.Point{}, err
	}
	if _, err := s.Run(ctx, run.Stop{Gap: 1e-3, Passes: 3000}); err != nil {
		return nil, run.Point{}, err
	}
	last, err := s.Current()
	return s.Weights(), last, err
}

// predictAll returns the predictions of every example of p.
func predictAll(p oracles.Problem, w []float64) [][]int32 {
	out := make([][]int32, p.Len())
	for i := range out {
		out[i] = append([]int32(nil), p.Predict(i, w, nil)...)
	}
	return out
}

// chooseAndTest chooses lambda on the held-out gold pairs, retrains on
// every gold training pair and scores the model and the baselines on the
// test pairs of h (a HansardsGold split).
func chooseAndTest(ctx context.Context, h *datasets.Hansards, grid []float64) (*aerResult, error) {
	fit := h.TrainGold - heldOut
	if fit < 1 {
		return nil, fmt.Errorf("%d gold training pairs, need more than the %d held out", h.TrainGold, heldOut)
	}
	fitP, err := datasets.AlignmentProblem(h.Model, h.Gold[:fit])
	if err != nil {
		return nil, err
	}
	valP, err := datasets.AlignmentProblem(h.Model, h.Gold[fit:h.TrainGold])
	if err != nil {
		return nil, err
	}
	r := &aerResult{Lambda: math.NaN()}
	best := math.Inf(1)
	for _, lambda := range grid {
		w, last, err := train(ctx, fitP, lambda)
		if err != nil {
			return nil, fmt.Errorf("lambda %g: %w", lambda, err)
		}
		aer := valP.Score(w).AER()
		r.Grid = append(r.Grid, lambdaScore{Lambda: lambda, AER: aer, Gap: last.Gap, Passes: last.Pass})
		if aer < best {
			best, r.Lambda = aer, lambda
		}
	}
	w, last, err := train(ctx, h.Train, r.Lambda)
	if err != nil {
		return nil, err
	}
	r.Weights, r.Gap = w, last.Gap
	r.Pred = predictAll(h.Test, w)
	r.Model = h.Test.Counts(r.Pred)
	if r.Baselines, err = h.Model.Baselines(h.Gold[:h.TrainGold], h.TestPairs); err != nil {
		return nil, err
	}
	return r, nil
}

// runAER runs the aer experiment and writes its table, weights and grids.
func runAER(ctx context.Context, o options, w io.Writer) error {
	h, err := datasets.LoadHansards(datasets.HansardsOptions{Path: o.path})
	if err != nil {
		return err
	}
	r, err := chooseAndTest(ctx, h, lambdaGrid)
	if err != nil {
		return err
	}
	printAER(w, h, r)
	for k, p := range h.TestPairs[:min(4, len(h.TestPairs))] {
		g := viz.AlignmentGrid{
			Title:   fmt.Sprintf("pair %d: sure (dark), possible (light), predicted (rings)", p.ID),
			English: p.English, French: p.French, Sure: p.Sure, Possible: p.Possible, Predicted: align.Links(r.Pred[k]),
		}
		if err := saveGrid(filepath.Join(o.out, fmt.Sprintf("grid-%d.png", p.ID)), &g); err != nil {
			return err
		}
	}
	return nil
}

func saveGrid(path string, g *viz.AlignmentGrid) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := g.WritePNG(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// printAER prints the lambda grid, the test scores and the largest weights.
func printAER(w io.Writer, h *datasets.Hansards, r *aerResult) {
	fit := h.TrainGold - heldOut
	fmt.Fprintf(w, "lambda chosen on held-out gold pairs %d-%d (models trained on pairs 1-%d, BCFW to a gap of 0.001):\n", fit+1, h.TrainGold, fit)
	fmt.Fprintf(w, "  %-8s %-8s %-10s %s\n", "lambda", "AER", "gap", "passes")
	for _, s := range r.Grid {
		mark := ""
		if s.Lambda == r.Lambda {
			mark = "  <- chosen"
		}
		fmt.Fprintf(w, "  %-8g %-8.4f %-10.3g %.0f%s\n", s.Lambda, s.AER, s.Gap, s.Passes, mark)
	}
	fmt.Fprintf(w, "test: gold pairs %d-%d (%d), trained on pairs 1-%d, lambda = %g (gap %.3g), d = %d:\n",
		h.TrainGold+1, len(h.Gold), len(h.TestPairs), h.TrainGold, r.Lambda, r.Gap, h.Train.Dim())
	fmt.Fprintf(w, "  %-34s %-8s %-10s %s\n", "method", "AER", "precision", "recall")
	row := func(name string, c oracles.AlignmentCounts) {
		fmt.Fprintf(w, "  %-34s %-8.4f %-10.4f %.4f\n", name, c.AER(), c.Precision(), c.Recall())
	}
	row("matching model", r.Model)
	for _, b := range r.Baselines {
		name := b.Name
		if !math.IsNaN(b.Threshold) {
			name += fmt.Sprintf(" (threshold %.2f)", b.Threshold)
		}
		row(name, b.Counts)
	}
	order := make([]int, len(r.Weights))
	for k := range order {
		order[k] = k
	}
	slices.SortFunc(order, func(a, b int) int { return -cmpAbs(r.Weights[a], r.Weights[b]) })
	fmt.Fprintf(w, "largest weights:")
	for _, k := range order[:min(10, len(order))] {
		fmt.Fprintf(w, " %s %+.3g", datasets.AlignmentFeatureNames[k], r.Weights[k])
	}
	fmt.Fprintln(w)
}

func cmpAbs(a, b float64) int {
	switch {
	case math.Abs(a) < math.Abs(b):
		return -1
	case math.Abs(a) > math.Abs(b):
		return 1
	}
	return 0
}
