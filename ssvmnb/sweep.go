package ssvmnb

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/viz"
)

// Sweep varies one parameter of the solver: for every value (and seed) it
// trains the configuration Config(value) until Stop, and reports how many
// passes it took to reach the gap Target.
type Sweep struct {
	// Param names the parameter, e.g. "GapEvery" or "lambda".
	Param string
	// Values are the parameter values.
	Values []float64
	// Seeds are the seeds of every value (nil: seed 1 only).
	Seeds []uint64
	// Config builds the solver configuration of a value.
	Config func(v float64) solver.Config
	// Stop says when every run ends.
	Stop solver.Stop
	// Target is the gap whose passes-to-reach the result reports (0: the
	// passes column is left empty).
	Target float64
}

// SweepResult holds one Group per value of a Sweep.
type SweepResult struct {
	Param  string
	Target float64
	Values []float64
	Groups []Group
}

// Run runs the sweep on problem p (test may be nil).
func (sw Sweep) Run(ctx context.Context, p, test oracles.Problem) (*SweepResult, error) {
	if len(sw.Values) == 0 || sw.Config == nil {
		return nil, errors.New("ssvmnb: a sweep needs Values and Config")
	}
	seeds := sw.Seeds
	if seeds == nil {
		seeds = []uint64{1}
	}
	res := &SweepResult{Param: sw.Param, Target: sw.Target, Values: sw.Values}
	for _, v := range sw.Values {
		g, err := Seeds(ctx, fmt.Sprintf("%s = %g", sw.Param, v), p, test, sw.Config(v), seeds, sw.Stop)
		if err != nil {
			return res, err
		}
		res.Groups = append(res.Groups, g)
	}
	return res, nil
}

// Table tabulates the sweep: per value the median over seeds of the passes
// to reach the target gap, the final gap, the solver time, the cache hit
// rate and the test loss.
func (r *SweepResult) Table() *Table {
	t := &Table{Caption: fmt.Sprintf("sweep over %s (median over seeds)", r.Param),
		Columns: []string{r.Param, "seeds", fmt.Sprintf("passes to gap %g", r.Target), "final gap", "passes", "solver s", "cache hit rate", "test loss"}}
	for k, g := range r.Groups {
		var gap, passes, secs, hits, loss []float64
		for _, tr := range g.Trainers {
			last := tr.Last()
			gap = append(gap, last.Gap)
			passes = append(passes, last.Pass)
			secs = append(secs, last.Seconds)
			hits = append(hits, last.HitRate())
			loss = append(loss, last.TestLoss)
		}
		to := math.NaN()
		if r.Target > 0 {
			to = Median(g.PassesTo(r.Target))
		}
		t.AddRow(r.Values[k], len(g.Trainers), to, Median(gap), Median(passes), Median(secs), Median(hits), Median(loss))
	}
	return t
}

// Figure is a bar chart of the median passes to reach the target gap per
// value (a missing bar: not reached).
func (r *SweepResult) Figure() *viz.Figure {
	f := &viz.Figure{Kind: viz.Bars, Title: fmt.Sprintf("passes to reach gap %g", r.Target),
		XLabel: r.Param, YLabel: "effective passes (median)"}
	s := viz.Series{Name: "median passes"}
	for k, g := range r.Groups {
		f.Categories = append(f.Categories, Cell(r.Values[k]))
		s.Y = append(s.Y, Median(g.PassesTo(r.Target)))
	}
	f.Series = []viz.Series{s}
	return f
}

// Curves plots the median gap curve of every value against x.
func (r *SweepResult) Curves(x viz.XAxis) *viz.Figure {
	return Compare(fmt.Sprintf("duality gap by %s", r.Param), x, nil, r.Groups...)
}

// Sweep2 varies two parameters on a grid, e.g. the cache factors F and nu
// (Osokin et al. 2016, Fig. 2a).
type Sweep2 struct {
	ParamA, ParamB string
	A, B           []float64
	Seed           uint64
	Config         func(a, b float64) solver.Config
	Stop           solver.Stop
	Target         float64
}

// Sweep2Result holds the runs of a Sweep2, Trainers[i][j] for A[i], B[j].
type Sweep2Result struct {
	ParamA, ParamB string
	A, B           []float64
	Target         float64
	Trainers       [][]*Trainer
}

// Run runs every cell of the grid.
func (sw Sweep2) Run(ctx context.Context, p, test oracles.Problem) (*Sweep2Result, error) {
	if len(sw.A) == 0 || len(sw.B) == 0 || sw.Config == nil {
		return nil, errors.New("ssvmnb: a 2-D sweep needs A, B and Config")
	}
	res := &Sweep2Result{ParamA: sw.ParamA, ParamB: sw.ParamB, A: sw.A, B: sw.B, Target: sw.Target}
	for _, a := range sw.A {
		var row []*Trainer
		for _, b := range sw.B {
			cfg := sw.Config(a, b)
			cfg.Seed = sw.Seed
			t, err := New(fmt.Sprintf("%s=%g %s=%g", sw.ParamA, a, sw.ParamB, b), p, test, cfg)
			if err != nil {
				return res, err
			}
			t.Live = false
			if _, err := t.RunUntil(ctx, sw.Stop); err != nil {
				return res, err
			}
			row = append(row, t)
		}
		res.Trainers = append(res.Trainers, row)
	}
	return res, nil
}

// HeatMap shows a metric of every cell: rows are the values of A, columns
// those of B. The metric gets the cell's trainer.
func (r *Sweep2Result) HeatMap(title string, metric func(*Trainer) float64) *viz.Figure {
	f := &viz.Figure{Kind: viz.HeatMap, Title: title, XLabel: r.ParamB, YLabel: r.ParamA}
	for _, b := range r.B {
		f.Cols = append(f.Cols, Cell(b))
	}
	for i, a := range r.A {
		f.Rows = append(f.Rows, Cell(a))
		row := make([]float64, len(r.B))
		for j := range r.B {
			row[j] = metric(r.Trainers[i][j])
		}
		f.Cells = append(f.Cells, row)
	}
	return f
}

// PassesToTarget is a HeatMap metric: passes to reach the target gap.
func (r *Sweep2Result) PassesToTarget(t *Trainer) float64 {
	return viz.PassesToGap(t.Trace(), r.Target)
}

// HitRate is a HeatMap metric: the overall cache hit rate.
func HitRate(t *Trainer) float64 { return t.Last().HitRate() }

// GapEverySweep varies the passes between exact gap passes (the "Gap 1 / 5
// / 10 / 100 / Inf" settings of Osokin et al. 2016, Fig. 1).
func GapEverySweep(base solver.Config, values []float64, stop solver.Stop, target float64) Sweep {
	return Sweep{Param: "GapEvery", Values: values, Stop: stop, Target: target,
		Config: func(v float64) solver.Config { c := base; c.GapEvery = v; return c }}
}

// LambdaSweep varies the regularization parameter.
func LambdaSweep(base solver.Config, values []float64, stop solver.Stop, target float64) Sweep {
	return Sweep{Param: "lambda", Values: values, Stop: stop, Target: target,
		Config: func(v float64) solver.Config { c := base; c.Lambda = v; return c }}
}

// CacheSweep varies the cache factors F and nu (cache on).
func CacheSweep(base solver.Config, F, Nu []float64, stop solver.Stop, target float64) Sweep2 {
	return Sweep2{ParamA: "F", ParamB: "nu", A: F, B: Nu, Stop: stop, Target: target, Seed: base.Seed,
		Config: func(f, nu float64) solver.Config {
			c := base
			c.Cache.Enabled, c.Cache.F, c.Cache.Nu = true, f, nu
			return c
		}}
}
