package ssvmnb

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/viz"
)

// Group is one method run with several seeds: the papers report the median
// (bold line) and the minimum and maximum (shaded) over 5 seeds.
type Group struct {
	Name     string
	Trainers []*Trainer
}

// Seeds trains one run of cfg per seed until stop and returns the group.
// Live charts are off for these runs.
func Seeds(ctx context.Context, name string, p, test oracles.Problem, cfg solver.Config, seeds []uint64, stop solver.Stop) (Group, error) {
	g := Group{Name: name}
	if len(seeds) == 0 {
		return g, fmt.Errorf("ssvmnb: %s: no seeds", name)
	}
	for _, seed := range seeds {
		c := cfg
		c.Seed = seed
		t, err := New(fmt.Sprintf("%s (seed %d)", name, seed), p, test, c)
		if err != nil {
			return g, err
		}
		t.Live = false
		if _, err := t.RunUntil(ctx, stop); err != nil {
			return g, err
		}
		g.Trainers = append(g.Trainers, t)
	}
	return g, nil
}

func (g Group) traces() [][]solver.TracePoint {
	out := make([][]solver.TracePoint, len(g.Trainers))
	for k, t := range g.Trainers {
		out[k] = t.Trace()
	}
	return out
}

// Compare plots value (nil: the duality gap) against x for several groups:
// the median over seeds with a min/max band, on a log scale.
func Compare(title string, x viz.XAxis, value func(solver.TracePoint) float64, groups ...Group) *viz.Figure {
	f := &viz.Figure{Title: title, XLabel: x.String(), YLabel: "duality gap", LogY: true}
	if value != nil {
		f.YLabel = "value"
	}
	for i, g := range groups {
		s := viz.Aggregate(g.Name, g.traces(), x, value, nil)
		s.Color = viz.Color(i)
		f.Series = append(f.Series, s)
	}
	return f
}

// PassesTo returns, for every trainer of the group, the effective passes at
// which the duality gap first reached eps (NaN if never).
func (g Group) PassesTo(eps float64) []float64 {
	out := make([]float64, len(g.Trainers))
	for k, t := range g.Trainers {
		out[k] = viz.PassesToGap(t.Trace(), eps)
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

// SummaryTable tabulates groups: median passes to reach each target gap,
// and the median final gap and test loss.
func SummaryTable(targets []float64, groups ...Group) *Table {
	t := &Table{Caption: "median over seeds", Columns: []string{"method", "seeds"}}
	for _, eps := range targets {
		t.Columns = append(t.Columns, fmt.Sprintf("passes to gap %g", eps))
	}
	t.Columns = append(t.Columns, "final gap", "test loss")
	for _, g := range groups {
		row := []any{g.Name, len(g.Trainers)}
		for _, eps := range targets {
			row = append(row, Median(g.PassesTo(eps)))
		}
		var gaps, losses []float64
		for _, tr := range g.Trainers {
			last := tr.Last()
			gaps = append(gaps, last.Gap)
			losses = append(losses, last.TestLoss)
		}
		row = append(row, Median(gaps), Median(losses))
		t.AddRow(row...)
	}
	return t
}
