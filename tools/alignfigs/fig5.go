package main

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/internal/figtool"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/ssvmnb/papers"
)

// fig5Method is one optimizer of Fig. 5: its method at a lambda and a
// seed, and the names of its plain and averaged curves ("" when it has no
// averaged one).
type fig5Method struct {
	plain, avg string
	method     func(lambda float64, seed uint64) run.Method
	stochastic bool
}

// fig5Methods are the methods of Lacoste-Julien et al. (2013, Fig. 1 and
// 5), run as papers.Figure1 runs them: BCFW and SSG with weighted
// averaging (the plain and the -wavg curves come from the same run),
// observe-only evaluations every pass and no gap passes of their own;
// batch FW and the cutting-plane method evaluated at every iteration.
var fig5Methods = []fig5Method{
	{"BCFW", "BCFW-wavg", func(l float64, seed uint64) run.Method {
		return solver.BCFW{Lambda: l, Average: run.WeightedAverage, GapEvery: -1, TraceEvery: 1, Seed: seed}
	}, true},
	{"SSG", "SSG-wavg", func(l float64, seed uint64) run.Method {
		return solver.SSG{Lambda: l, Average: run.WeightedAverage, GapEvery: -1, TraceEvery: 1, Seed: seed}
	}, true},
	{"FW", "", func(l float64, _ uint64) run.Method { return solver.FW{Lambda: l, GapEvery: 1} }, false},
	{"cutting plane", "", func(l float64, _ uint64) run.Method { return solver.CuttingPlane{Lambda: l, GapEvery: 1} }, false},
}

// fig5Run runs one method of package solver and returns the traces of its
// plain and, for a method that keeps an average (averaged), averaged
// iterates, whose TestLoss holds the test AER of the iterate (computed at
// every trace point, outside the solver time).
func fig5Run(ctx context.Context, train oracles.Problem, test *oracles.Matching, m run.Method, averaged bool, passes float64) (plain, avg []run.Point, err error) {
	rs, err := m.New(train)
	if err != nil {
		return nil, nil, err
	}
	s := rs.(*solver.Solver) // the averaged weights are package solver's
	var aer, aerAvg []float64
	s.SetProgress(func(run.Point) {
		aer = append(aer, test.Score(s.Weights()).AER())
		if averaged {
			aerAvg = append(aerAvg, test.Score(s.AverageWeights()).AER())
		}
	})
	if _, err := s.Run(ctx, run.Stop{Passes: passes}); err != nil {
		return nil, nil, err
	}
	plain = s.Trace()
	at := func(v []float64, k int) float64 {
		if k < len(v) {
			return v[k]
		}
		return math.NaN()
	}
	for k := range plain {
		plain[k].TestLoss = at(aer, k)
	}
	if !averaged {
		return plain, nil, nil
	}
	avg = make([]run.Point, len(plain))
	for k, p := range plain {
		p.Primal, p.Dual, p.Gap = p.PrimalAvg, p.DualAvg, p.GapAvg
		p.TestLoss = at(aerAvg, k)
		avg[k] = p
	}
	return plain, avg, nil
}

// fig5Panel runs every method at one lambda and returns the panel, whose
// traces' TestLoss is the test AER.
func fig5Panel(ctx context.Context, train oracles.Problem, test *oracles.Matching, lambda float64, seeds []uint64, passes float64, log io.Writer) (*papers.Figure1Panel, error) {
	panel := &papers.Figure1Panel{Lambda: lambda, BestDual: math.Inf(-1)}
	for _, m := range fig5Methods {
		plain := papers.Figure1Method{Name: m.plain, Batch: !m.stochastic}
		avg := papers.Figure1Method{Name: m.avg}
		runSeeds := seeds
		if !m.stochastic {
			runSeeds = seeds[:1]
		}
		for _, seed := range runSeeds {
			tr, trAvg, err := fig5Run(ctx, train, test, m.method(lambda, seed), m.avg != "", passes)
			if err != nil {
				return nil, fmt.Errorf("%s, seed %d: %w", m.plain, seed, err)
			}
			fmt.Fprintf(log, "  %s seed %d: %d points, %.1f s of solver time\n", m.plain, seed, len(tr), tr[len(tr)-1].Seconds)
			plain.Traces = append(plain.Traces, tr)
			if trAvg != nil {
				avg.Traces = append(avg.Traces, trAvg)
			}
		}
		panel.Methods = append(panel.Methods, plain)
		if m.avg != "" {
			panel.Methods = append(panel.Methods, avg)
		}
	}
	for _, m := range panel.Methods {
		for _, tr := range m.Traces {
			for _, p := range tr {
				if !math.IsNaN(p.Dual) {
					panel.BestDual = math.Max(panel.BestDual, p.Dual)
				}
			}
		}
	}
	return panel, nil
}

// runFig5 runs the fig5 experiment and writes its figures, traces and
// summary table.
func runFig5(ctx context.Context, o options, w io.Writer) error {
	h, err := datasets.LoadHansards(datasets.HansardsOptions{Path: o.path, Training: datasets.HansardsIntersected, Intersected: o.intersected})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "fig5: training on %d unaligned pairs labelled by the intersected diagonal IBM Model 2 alignments (not human labels), testing on the %d gold pairs %d-%d; d = %d\n",
		h.Train.Len(), h.Test.Len(), h.TrainGold+1, len(h.Gold), h.Train.Dim())
	for _, lambda := range o.lambdas {
		panel, err := fig5Panel(ctx, h.Train, h.Test, lambda, o.seeds, o.passes, w)
		if err != nil {
			return err
		}
		obj := panel.Objective()
		obj.Title = fmt.Sprintf("Hansards matching (n = %d, intersected labels), lambda = %g", h.Train.Len(), lambda)
		aer := panel.TestError()
		aer.Title = fmt.Sprintf("test AER (%d gold pairs), lambda = %g", h.Test.Len(), lambda)
		aer.YLabel = "test AER"
		if err := figtool.WritePanel(o.out, "fig5", panel, obj, aer, "aer", "test_aer"); err != nil {
			return err
		}
		figtool.PrintBudgets(w, panel, figtool.Budgets([]float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000}, o.passes), "test AER")
	}
	return nil
}
