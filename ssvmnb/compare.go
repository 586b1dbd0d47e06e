package ssvmnb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/viz"
)

// Group is one method run with several seeds: the papers report the median
// (bold line) and the minimum and maximum (shaded) over 5 seeds.
type Group struct {
	Name     string
	Trainers []*Trainer
}

// Seeds trains one run of method m (see New) on data per seed, its Seed
// field set to the seed (a method without one, such as FW, runs
// identically for every seed), until stop and returns the group.
// Every run ends with an exact evaluation of its final iterate. Live
// charts are off for these runs; in a notebook a progress line says which
// run is going and how far it is.
//
// Interrupted by SIGINT (the stop button: see RunUntil), it returns the
// group of the runs finished, with an error saying how many.
func Seeds(ctx context.Context, name string, data *Data, m run.Method, seeds []uint64, stop run.Stop) (Group, error) {
	ctx, done := interruptible(ctx)
	defer done()
	prog := NewProgress("Seeds "+name, len(seeds))
	defer prog.End()
	return runSeeds(ctx, name, data, m, seeds, stop, prog)
}

func runSeeds(ctx context.Context, name string, data *Data, m run.Method, seeds []uint64, stop run.Stop, prog *Progress) (Group, error) {
	g := Group{Name: name}
	if len(seeds) == 0 {
		return g, fmt.Errorf("ssvmnb: %s: no seeds", name)
	}
	for _, seed := range seeds {
		t, err := New(fmt.Sprintf("%s (seed %d)", name, seed), data, withSeed(m, seed))
		if err != nil {
			return g, err
		}
		t.Live = false
		prog.track(t, stop)
		if _, err := t.RunUntil(ctx, stop); err != nil {
			if errors.Is(err, errInterrupted) {
				prog.interrupted = true
				return g, fmt.Errorf("ssvmnb: %s: %w during seed %d: %d of %d seeds finished, returned", name, errInterrupted, seed, len(g.Trainers), len(seeds))
			}
			return g, err
		}
		prog.finished(t)
		g.Trainers = append(g.Trainers, t)
	}
	return g, nil
}

func (g Group) traces() [][]run.Point {
	out := make([][]run.Point, len(g.Trainers))
	for k, t := range g.Trainers {
		out[k] = t.Trace()
	}
	return out
}

// Compare plots value (nil: the duality gap) against x for several groups:
// the median over seeds with a min/max band, on a log scale, each group in
// its method's style (StyleOf). A curve stops where the first of its seeds
// ends (against time: the fastest seed), so that it is always a median
// over every seed; a note says so when that cuts a curve short.
func Compare(title string, x viz.XAxis, value func(run.Point) float64, groups ...Group) *viz.Figure {
	f := &viz.Figure{Title: title, XLabel: x.String(), YLabel: "duality gap", LogY: true}
	if value != nil {
		f.YLabel = "value"
	}
	cut := false
	for _, g := range groups {
		s := viz.Aggregate(g.Name, g.traces(), x, value, nil)
		st := StyleOf(g.Name)
		s.Color, s.Dash = st.Color, st.Dash
		if len(s.X) == 0 {
			f.Notes = append(f.Notes, fmt.Sprintf("not shown: %s (no value on a range all its seeds cover)", g.Name))
			continue
		}
		for _, tr := range g.traces() {
			if len(tr) > 0 && x.Of(tr[len(tr)-1]) > s.X[len(s.X)-1] {
				cut = true
			}
		}
		f.Series = append(f.Series, s)
	}
	if cut {
		f.Notes = append(f.Notes, "each curve stops where the first of its seeds ends")
	}
	if x == viz.Seconds {
		if spread := timeSpread(groups); spread >= 1.2 {
			f.Notes = append(f.Notes, fmt.Sprintf("solver time per pass varies up to %.1fx between seeds of one method", spread))
		}
	}
	return f
}

// timeSpread returns the largest ratio, over the groups, between the
// slowest and the fastest seed's solver seconds per effective pass: how
// much of a time axis is the machine rather than the method (1 when
// unknown).
func timeSpread(groups []Group) float64 {
	spread := 1.0
	for _, g := range groups {
		lo, hi := math.Inf(1), 0.0
		for _, t := range g.Trainers {
			if cur := t.Current(); cur.Pass > 0 && cur.Seconds > 0 {
				r := cur.Seconds / cur.Pass
				lo, hi = math.Min(lo, r), math.Max(hi, r)
			}
		}
		if hi > 0 && lo > 0 {
			spread = math.Max(spread, hi/lo)
		}
	}
	return spread
}

// passesTo returns, for every trainer of the group, the effective passes at
// which the duality gap first reached eps (NaN if never).
func (g Group) passesTo(eps float64) []float64 {
	out := make([]float64, len(g.Trainers))
	for k, t := range g.Trainers {
		out[k] = run.PassesToGap(t.Trace(), eps)
	}
	return out
}

// Median returns the median of the finite values (NaN if none).
func Median(x []float64) float64 {
	var y []float64
	for _, v := range x {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			y = append(y, v)
		}
	}
	if len(y) == 0 {
		return math.NaN()
	}
	sort.Float64s(y)
	n := len(y)
	if n%2 == 1 {
		return y[n/2]
	}
	return (y[n/2-1] + y[n/2]) / 2
}

// reachedMedian returns the median passes to reach eps over the seeds, and
// how many seeds reached it. The median is over every seed, a seed that
// never reached eps counting as +Inf: NaN ("not reached") unless more than
// half of the seeds reached it.
func reachedMedian(passes []float64) (median float64, reached int) {
	y := make([]float64, len(passes))
	for k, v := range passes {
		y[k] = v
		if math.IsNaN(v) {
			y[k] = math.Inf(1)
		} else {
			reached++
		}
	}
	sort.Float64s(y)
	n := len(y)
	if n == 0 {
		return math.NaN(), 0
	}
	m := y[n/2]
	if n%2 == 0 {
		m = (y[n/2-1] + y[n/2]) / 2
	}
	if math.IsInf(m, 1) {
		return math.NaN(), reached
	}
	return m, reached
}

// passesCell formats a median number of passes to a target with how many
// seeds reached it when not all did.
func passesCell(passes []float64) string {
	m, reached := reachedMedian(passes)
	s := Cell(m)
	if math.IsNaN(m) {
		s = "not reached"
	}
	if reached < len(passes) {
		s += fmt.Sprintf(" (%d/%d seeds)", reached, len(passes))
	}
	return s
}

// SummaryTable tabulates groups at their current iterates: the median over
// seeds of the passes to reach each target gap (a seed that never reached
// it counts as never; "not reached" when half the seeds or more did not),
// the passes made, and the median final gap and test loss.
func SummaryTable(targets []float64, groups ...Group) *Table {
	t := &Table{Caption: "median over seeds, at the end of every run", Columns: []string{"method", "seeds"}}
	for _, eps := range targets {
		t.Columns = append(t.Columns, fmt.Sprintf("passes to gap %g", eps))
	}
	t.Columns = append(t.Columns, "passes", "final gap", "test loss")
	for _, g := range groups {
		row := []any{g.Name, len(g.Trainers)}
		for _, eps := range targets {
			row = append(row, passesCell(g.passesTo(eps)))
		}
		var passes, gaps, losses []float64
		for _, tr := range g.Trainers {
			cur := tr.Current()
			passes = append(passes, cur.Pass)
			gaps = append(gaps, cur.Gap)
			losses = append(losses, cur.TestLoss)
		}
		row = append(row, Median(passes), Median(gaps), Median(losses))
		t.AddRow(row...)
	}
	return t
}

// EqualTimeTable compares groups at equal solver time T, the smallest
// over the groups of their median solver time at the end of the runs: per
// group the median over seeds of the solver seconds per effective pass, and
// of the passes made and the duality gap reached by time T (the last exact
// evaluation at or before T; a run that ended before T counts with its
// final evaluation). Against time the papers' curves mix the cost of a pass
// with its progress; this separates them.
func EqualTimeTable(groups ...Group) *Table {
	T := math.Inf(1)
	for _, g := range groups {
		var ends []float64
		for _, tr := range g.Trainers {
			ends = append(ends, tr.Current().Seconds)
		}
		T = math.Min(T, Median(ends))
	}
	t := &Table{Caption: fmt.Sprintf("at equal solver time T = %.3g s (the shortest median run), median over seeds", T),
		Columns: []string{"method", "seeds", "solver s per pass", "passes by T", "gap at T"}}
	for _, g := range groups {
		var perPass, passes, gaps []float64
		for _, tr := range g.Trainers {
			cur := tr.Current()
			perPass = append(perPass, cur.Seconds/cur.Pass)
			at := pointAt(tr.Trace(), T)
			passes = append(passes, at.Pass)
			gaps = append(gaps, at.Gap)
		}
		t.AddRow(g.Name, len(g.Trainers), Median(perPass), Median(passes), Median(gaps))
	}
	return t
}

// pointAt returns the last trace point at or before solver time T (the
// first point when none is).
func pointAt(trace []run.Point, T float64) run.Point {
	at := trace[0]
	for _, p := range trace {
		if p.Seconds > T {
			break
		}
		at = p
	}
	return at
}
