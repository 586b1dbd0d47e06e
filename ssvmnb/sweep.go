package ssvmnb

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/viz"
)

// Sweep varies one parameter of a method: for every value (and seed) it
// trains the method Method(value) until Stop, and reports how many passes
// it took to reach the gap Target.
type Sweep struct {
	// Param names the parameter, e.g. "GapEvery" or "lambda".
	Param string
	// Values are the parameter values.
	Values []float64
	// Seeds are the seeds of every value (nil: seed 1 only).
	Seeds []uint64
	// Method builds the method of a value (its Seed is set per seed, see
	// Seeds).
	Method func(v float64) run.Method
	// Stop says when every run ends.
	Stop run.Stop
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
	// N is the number of examples of the problem (a value equal to it is
	// labeled "n").
	N    int
	Stop run.Stop
}

// Run runs the sweep on problem p (test may be nil); in a notebook a
// progress line says which run is going. Interrupted by SIGINT (the stop
// button: see Trainer.RunUntil), it returns the values finished, shows
// their table in the notebook, and an error saying how many finished.
func (sw Sweep) Run(ctx context.Context, data *Data) (*SweepResult, error) {
	if len(sw.Values) == 0 || sw.Method == nil || data == nil {
		return nil, errors.New("ssvmnb: a sweep needs Values, Method and data")
	}
	ctx, done := interruptible(ctx)
	defer done()
	seeds := sw.Seeds
	if seeds == nil {
		seeds = []uint64{1}
	}
	res := &SweepResult{Param: sw.Param, Target: sw.Target, Values: sw.Values, N: data.Train.Len(), Stop: sw.Stop}
	prog := NewProgress("sweep over "+sw.Param, len(sw.Values)*len(seeds))
	defer prog.End()
	for _, v := range sw.Values {
		g, err := runSeeds(ctx, fmt.Sprintf("%s = %s", sw.Param, valueLabel(sw.Param, v, res.N)), data, sw.Method(v), seeds, sw.Stop, prog)
		if errors.Is(err, errInterrupted) {
			if len(res.Groups) > 0 {
				res.Table().Show()
			}
			return res, fmt.Errorf("ssvmnb: sweep over %s: %w: %d of %d values finished, returned", sw.Param, errInterrupted, len(res.Groups), len(sw.Values))
		}
		if err != nil {
			return res, err
		}
		res.Groups = append(res.Groups, g)
	}
	return res, nil
}

// valueLabel formats a parameter value, "n" for nu = n (the cache setting
// that forbids cache hits, Osokin et al. 2016, Fig. 2) and "inf" for +Inf.
func valueLabel(param string, v float64, n int) string {
	switch {
	case param == "nu" && n > 0 && v == float64(n):
		return "n"
	case math.IsInf(v, 1):
		return "inf"
	}
	return Cell(v)
}

// Table tabulates the sweep at the end of every run (the current iterates):
// per value the median over seeds of the passes to reach the target gap,
// the passes made, the final gap, the solver time, the cache hit rate and
// the test loss.
func (r *SweepResult) Table() *Table {
	t := &Table{Caption: fmt.Sprintf("sweep over %s (median over seeds, at the end of every run)", r.Param),
		Columns: []string{r.Param, "seeds", fmt.Sprintf("passes to gap %g", r.Target), "passes", "final gap", "solver s", "cache hit rate", "test loss"}}
	for k, g := range r.Groups {
		var gap, passes, secs, hits, loss []float64
		for _, tr := range g.Trainers {
			cur := tr.Current()
			gap = append(gap, cur.Gap)
			passes = append(passes, cur.Pass)
			secs = append(secs, cur.Seconds)
			hits = append(hits, cur.HitRate())
			loss = append(loss, cur.TestLoss)
		}
		to := "-"
		if r.Target > 0 {
			to = passesCell(g.passesTo(r.Target))
		}
		t.AddRow(valueLabel(r.Param, r.Values[k], r.N), len(g.Trainers), to, Median(passes), Median(gap), Median(secs), Median(hits), Median(loss))
	}
	return t
}

// Figure is a bar chart of the median passes to reach the target gap per
// value; a value whose runs did not reach it within the budget has no bar
// and its label says "not reached". When no value reached it the figure
// draws nothing and Show says so instead.
func (r *SweepResult) Figure() *viz.Figure {
	f := &viz.Figure{Kind: viz.Bars, Title: fmt.Sprintf("passes to reach gap %g", r.Target),
		XLabel: r.Param, YLabel: "effective passes (median over seeds)"}
	s := viz.Series{Name: "median passes", Color: viz.MethodStyle(0).Color}
	missed := 0
	for k, g := range r.Groups {
		m, _ := reachedMedian(g.passesTo(r.Target))
		label := valueLabel(r.Param, r.Values[k], r.N)
		if math.IsNaN(m) {
			label += "\n(not reached)"
			missed++
		}
		f.Categories = append(f.Categories, label)
		s.Y = append(s.Y, m)
	}
	f.Series = []viz.Series{s}
	if missed == len(r.Groups) {
		f.Notes = append(f.Notes, fmt.Sprintf("no value of %s reached gap %g%s", r.Param, r.Target, budgetText(r.Stop)))
	}
	return f
}

// budgetText says within which budget a target was missed.
func budgetText(stop run.Stop) string {
	if stop.Passes > 0 {
		return fmt.Sprintf(" within %g passes", stop.Passes)
	}
	return ""
}

// Curves plots the median gap curve of every value against x.
func (r *SweepResult) curves(x viz.XAxis) *viz.Figure {
	return Compare(fmt.Sprintf("duality gap by %s", r.Param), x, nil, r.Groups...)
}

// Sweep2 varies two parameters on a grid, e.g. the cache factors F and nu
// (Osokin et al. 2016, Fig. 2a).
type Sweep2 struct {
	ParamA, ParamB string
	A, B           []float64
	// Seed is the Seed of every run (see Seeds).
	Seed uint64
	// Method builds the method of a cell of the grid.
	Method func(a, b float64) run.Method
	Stop   run.Stop
	Target float64
}

// Sweep2Result holds the runs of a Sweep2, Trainers[i][j] for A[i], B[j].
type Sweep2Result struct {
	ParamA, ParamB string
	A, B           []float64
	Target         float64
	Trainers       [][]*Trainer
	// N is the number of examples of the problem (nu = N is labeled "n").
	N    int
	Stop run.Stop
}

// Run runs every cell of the grid; in a notebook a progress line says
// which run is going. Interrupted by SIGINT (the stop button: see
// Trainer.RunUntil), it returns the rows of the grid finished (Trainers
// holds them; A and B stay the grid's) with an error saying how many.
func (sw Sweep2) Run(ctx context.Context, data *Data) (*Sweep2Result, error) {
	if len(sw.A) == 0 || len(sw.B) == 0 || sw.Method == nil || data == nil {
		return nil, errors.New("ssvmnb: a 2-D sweep needs A, B, Method and data")
	}
	ctx, done := interruptible(ctx)
	defer done()
	res := &Sweep2Result{ParamA: sw.ParamA, ParamB: sw.ParamB, A: sw.A, B: sw.B, Target: sw.Target, N: data.Train.Len(), Stop: sw.Stop}
	prog := NewProgress(fmt.Sprintf("sweep over %s x %s", sw.ParamA, sw.ParamB), len(sw.A)*len(sw.B))
	defer prog.End()
	for _, a := range sw.A {
		var row []*Trainer
		for _, b := range sw.B {
			m := withSeed(sw.Method(a, b), sw.Seed)
			t, err := New(fmt.Sprintf("%s=%s %s=%s", sw.ParamA, valueLabel(sw.ParamA, a, res.N), sw.ParamB, valueLabel(sw.ParamB, b, res.N)), data, m)
			if err != nil {
				return res, err
			}
			t.Live = false
			prog.track(t, sw.Stop)
			if _, err := t.RunUntil(ctx, sw.Stop); errors.Is(err, errInterrupted) {
				prog.interrupted = true
				return res, fmt.Errorf("ssvmnb: sweep over %s x %s: %w: %d of %d rows (%s = ...) finished, returned", sw.ParamA, sw.ParamB, errInterrupted, len(res.Trainers), len(sw.A), sw.ParamA)
			} else if err != nil {
				return res, err
			}
			prog.finished(t)
			row = append(row, t)
		}
		res.Trainers = append(res.Trainers, row)
	}
	return res, nil
}

// HeatMap shows a metric of every cell, with a color bar: rows are the
// values of A, columns those of B (nu = n labeled "n"). The metric gets
// the cell's trainer; cells where it is NaN are labeled blank (e.g. "not
// reached"). An interrupted sweep shows the rows it finished.
func (r *Sweep2Result) heatMap(title, blank string, metric func(*Trainer) float64) *viz.Figure {
	f := &viz.Figure{Kind: viz.HeatMap, Title: title, XLabel: r.ParamB, YLabel: r.ParamA, BlankLabel: blank}
	for _, b := range r.B {
		f.Cols = append(f.Cols, valueLabel(r.ParamB, b, r.N))
	}
	for i, a := range r.A[:len(r.Trainers)] {
		f.Rows = append(f.Rows, valueLabel(r.ParamA, a, r.N))
		row := make([]float64, len(r.B))
		for j := range r.B {
			row[j] = metric(r.Trainers[i][j])
		}
		f.Cells = append(f.Cells, row)
	}
	return f
}

// PassesHeatMap is the heat map of the passes every cell took to reach the
// target gap, "not reached" where it did not within the budget.
func (r *Sweep2Result) PassesHeatMap() *viz.Figure {
	f := r.heatMap(fmt.Sprintf("effective passes to reach gap %g", r.Target), "not reached", r.passesToTarget)
	f.CellFormat = "%.0f"
	return f
}

// HitRateHeatMap is the heat map of the overall cache hit rate of every
// cell.
func (r *Sweep2Result) HitRateHeatMap() *viz.Figure {
	f := r.heatMap("cache hit rate (whole run)", "no step", HitRate)
	f.CellFormat = "%.2f"
	return f
}

// PassesToTarget is a HeatMap metric: passes to reach the target gap.
func (r *Sweep2Result) passesToTarget(t *Trainer) float64 {
	return run.PassesToGap(t.Trace(), r.Target)
}

// HitRate is a HeatMap metric: the overall cache hit rate at the end of
// the run.
func HitRate(t *Trainer) float64 { return t.Current().HitRate() }

// GapEverySweep varies the passes between exact gap passes of BCFW (the
// "Gap 1 / 5 / 10 / 100 / Inf" settings of Osokin et al. 2016, Fig. 1;
// +Inf: never).
func GapEverySweep(base solver.BCFW, values []float64, stop run.Stop, target float64) Sweep {
	return Sweep{Param: "GapEvery", Values: values, Stop: stop, Target: target,
		Method: func(v float64) run.Method {
			m := base
			m.GapEvery = v
			return m
		}}
}

// CacheSweep varies the factors F and nu of BCFW's gap-based cache (on,
// with base's other cache settings when it has a cache).
func CacheSweep(base solver.BCFW, F, Nu []float64, stop run.Stop, target float64) Sweep2 {
	return Sweep2{ParamA: "F", ParamB: "nu", A: F, B: Nu, Stop: stop, Target: target, Seed: base.Seed,
		Method: func(f, nu float64) run.Method {
			m := base
			c := solver.Cache{}
			if base.Cache != nil {
				c = *base.Cache
			}
			c.F, c.Nu = f, nu
			m.Cache = &c
			return m
		}}
}
