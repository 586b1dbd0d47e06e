package papers

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/soft"
	"github.com/fwstruct/fwstruct/ssvmnb"
	"github.com/fwstruct/fwstruct/viz"
)

// SoftObjectives plots Meshi's Fig. 1 (left) for several soft runs (see
// viz.SoftObjectiveCurves: g_rho solid, f_rho dash-dot, g dashed, one
// color per run, in its style, see ssvmnb.RunStyle), with the reference g*
// as a horizontal line when finite and positive.
func SoftObjectives(reference float64, runs ...viz.Run) *viz.Figure {
	styled := make([]viz.Run, len(runs))
	for i, r := range runs {
		r.Style = ssvmnb.RunStyle(r)
		styled[i] = r
	}
	f := viz.SoftObjectiveCurves(styled)
	if reference > 0 && !math.IsInf(reference, 0) {
		f.HLines = []viz.HLine{{Y: reference, Label: "g*"}}
	}
	return f
}

// RhoSweep is Meshi's Fig. 1 (right): one soft run per penalty rho, each
// read at fixed pass budgets.
type RhoSweep struct {
	// Rhos are the penalties.
	Rhos []float64
	// Budgets are the passes at which every run is read, increasing.
	Budgets []float64
	// Base is the method of every run but its Rho.
	Base soft.BCFW
}

// RhoSweepResult holds the runs of a RhoSweep and, for every run and
// budget, the exact evaluation at that budget.
type RhoSweepResult struct {
	Rhos, Budgets []float64
	Trainers      []*ssvmnb.Trainer
	// At[r][b] is the evaluation of run r after Budgets[b] passes (the
	// run stops up to a pass early when a gap pass would not fit).
	At [][]run.Point
}

// SweepRho runs the sweep on factor-graph data (yeast, a MULAN file) in
// one call; the runs measure the test loss on data's test set when it has
// one (NewData(name, data.Train, nil) leaves it out).
func SweepRho(ctx context.Context, data *ssvmnb.Data, sw RhoSweep) (*RhoSweepResult, error) {
	if data == nil {
		return nil, errors.New("papers: a rho sweep needs data")
	}
	if len(sw.Rhos) == 0 || len(sw.Budgets) == 0 {
		return nil, errors.New("papers: a rho sweep needs Rhos and Budgets")
	}
	for k, b := range sw.Budgets {
		if !(b > 0) || k > 0 && !(b > sw.Budgets[k-1]) {
			return nil, fmt.Errorf("papers: rho sweep budgets must be positive and increasing, got %v", sw.Budgets)
		}
	}
	res := &RhoSweepResult{Rhos: sw.Rhos, Budgets: sw.Budgets}
	for _, rho := range sw.Rhos {
		m := sw.Base
		m.Rho = rho
		t, err := ssvmnb.New(fmt.Sprintf("rho = %g", rho), data, m)
		if err != nil {
			return res, err
		}
		t.Live = false
		var at []run.Point
		for _, b := range sw.Budgets {
			if _, err := t.RunUntil(ctx, run.Stop{Passes: b}); err != nil {
				return res, err
			}
			at = append(at, t.Current())
		}
		res.Trainers = append(res.Trainers, t)
		res.At = append(res.At, at)
	}
	return res, nil
}

// Figure plots the objective against rho (log scale) at every budget: the
// soft primal g_rho (solid) and the hard primal g (dashed), one color per
// budget, with the reference g* as a horizontal line when finite and
// positive (Meshi Fig. 1, right).
func (r *RhoSweepResult) Figure(reference float64) *viz.Figure {
	f := &viz.Figure{Title: "Objective at fixed budgets against rho", XLabel: "rho", YLabel: "objective", LogX: true}
	for b, budget := range r.Budgets {
		soft := viz.Series{Name: fmt.Sprintf("g_rho, %g passes", budget), Color: viz.Color(b), Markers: true}
		hard := viz.Series{Name: fmt.Sprintf("g, %g passes", budget), Color: viz.Color(b), Markers: true, Dashed: true}
		for k, rho := range r.Rhos {
			p := r.At[k][b]
			soft.X, soft.Y = append(soft.X, rho), append(soft.Y, p.Primal)
			hard.X, hard.Y = append(hard.X, rho), append(hard.Y, p.HardPrimal)
		}
		f.Series = append(f.Series, soft, hard)
	}
	if reference > 0 && !math.IsInf(reference, 0) {
		f.HLines = []viz.HLine{{Y: reference, Label: "g*"}}
	}
	return f
}

// Table tabulates the sweep: per rho and budget the passes made, the soft
// primal, dual and gap, the hard primal and the test loss.
func (r *RhoSweepResult) Table() *ssvmnb.Table {
	t := &ssvmnb.Table{Caption: "objectives against rho at fixed budgets",
		Columns: []string{"rho", "budget", "passes", "g_rho", "f_rho", "soft gap", "g (hard)", "solver s", "test loss"}}
	for k, rho := range r.Rhos {
		for b, budget := range r.Budgets {
			p := r.At[k][b]
			t.AddRow(rho, budget, p.Pass, p.Primal, p.Dual, p.Gap, p.HardPrimal, p.Seconds, p.TestLoss)
		}
	}
	return t
}

// HardRun is a run of the example-level solver (LP-hard BCFW on a
// factorgraph.Relaxed view, exact BCFW on an Exact view) whose trace has
// HardPrimal filled in at every point: the LP-relaxed primal of its
// weights (soft.RelaxedPrimal), computed in the progress callback, outside
// the solver time (and equal to Primal on the Relaxed view itself). So
// every run of Meshi's Fig. 2 is measured on the same hard objective g.
type HardRun struct {
	// Name labels the run in figures.
	Name  string
	s     *solver.Solver
	trace []run.Point
	err   error // the first error of RelaxedPrimal
}

// NewHardRun returns a hard run of BCFW m on p (test may be nil), measured
// on the relaxed view rel of the same model: LP-hard BCFW when p is rel.
func NewHardRun(name string, p oracles.Problem, rel *factorgraph.Relaxed, test oracles.Problem, m solver.BCFW) (*HardRun, error) {
	h := &HardRun{Name: name}
	opts := []run.Option{run.WithProgress(func(pt run.Point) {
		switch {
		case p == oracles.Problem(rel):
			pt.HardPrimal = pt.Primal // the primal of LP-hard BCFW is the relaxed one
		case h.err == nil:
			pt.HardPrimal, h.err = soft.RelaxedPrimal(rel, m.Lambda, h.s.Weights(), 2)
		}
		h.trace = append(h.trace, pt)
	})}
	if test != nil {
		opts = append(opts, run.WithTest(test))
	}
	s, err := m.New(p, opts...)
	if err != nil {
		return nil, fmt.Errorf("papers: %s: %w", name, err)
	}
	h.s = s.(*solver.Solver)
	return h, nil
}

// RunUntil runs until stop (Stop.Passes is a total) and evaluates the final
// iterate, so that the trace ends there.
func (h *HardRun) RunUntil(ctx context.Context, stop run.Stop) (run.Status, error) {
	res, err := h.s.Run(ctx, stop)
	if err == nil {
		_, err = h.s.Current()
	}
	if err == nil {
		err = h.err
	}
	return res.Status, err
}

// Solver returns the underlying solver.
func (h *HardRun) Solver() *solver.Solver { return h.s }

// VizRun returns the trace, with HardPrimal, as a named run.
func (h *HardRun) VizRun() viz.Run {
	return viz.Run{Name: h.Name, Trace: append([]run.Point(nil), h.trace...)}
}

// HardObjectives plots Meshi's Fig. 2 (top): the hard objective
// (soft.HardObjective) of several runs, soft and hard, against x (solver
// time in the paper), each in its style (see styleOf), with the reference
// g* as a horizontal line when finite and positive.
func HardObjectives(x viz.XAxis, reference float64, runs ...viz.Run) *viz.Figure {
	f := &viz.Figure{Title: "Hard objective g", XLabel: x.String(), YLabel: "hard objective g", LogX: x == viz.Seconds}
	for _, r := range runs {
		st := ssvmnb.RunStyle(r)
		s := viz.Series{Name: r.Name, Color: st.Color, Dash: st.Dash}
		for _, p := range r.Trace {
			s.X = append(s.X, x.Of(p))
			s.Y = append(s.Y, soft.HardObjective(p))
		}
		f.Series = append(f.Series, s)
	}
	if reference > 0 && !math.IsInf(reference, 0) {
		f.HLines = []viz.HLine{{Y: reference, Label: "g*"}}
	}
	return f
}

// Accuracies plots Meshi's Fig. 2 (bottom): 1 - test loss of several runs
// against x (with a normalized Hamming loss, the test Hamming accuracy),
// each in its style (see styleOf).
func Accuracies(x viz.XAxis, runs ...viz.Run) *viz.Figure {
	f := &viz.Figure{Title: "Test accuracy", XLabel: x.String(), YLabel: "1 - test loss", LogX: x == viz.Seconds}
	for _, r := range runs {
		st := ssvmnb.RunStyle(r)
		s := viz.Series{Name: r.Name, Color: st.Color, Dash: st.Dash, Markers: true}
		for _, p := range r.Trace {
			s.X = append(s.X, x.Of(p))
			s.Y = append(s.Y, 1-p.TestLoss)
		}
		f.Series = append(f.Series, s)
	}
	return f
}

// Reaches returns the x coordinate (passes, solver time, oracle calls) of
// the first trace point of r whose hard objective (soft.HardObjective) is
// at most target, or NaN when the run never gets there: e.g. the time a run
// takes to come within 1% of the best hard objective (Meshi Fig. 2).
func Reaches(r viz.Run, x viz.XAxis, target float64) float64 {
	for _, p := range r.Trace {
		if soft.HardObjective(p) <= target {
			return x.Of(p)
		}
	}
	return math.NaN()
}
