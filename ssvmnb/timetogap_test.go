package ssvmnb

import (
	"context"
	"math"
	"sort"
	"strconv"
	"testing"

	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
)

// TestTimeToGapTable checks every cell of the table against the traces,
// scanned here independently: the first point at or below the target, the
// median over the seeds (a seed that never got there counts as never), and
// the ratio of medians to the first group.
func TestTimeToGapTable(t *testing.T) {
	tr, te := synthetic(t)
	record(t)
	ctx := context.Background()
	stop := run.Stop{Passes: 6}
	plain := Must(Seeds(ctx, "bcfw", NewData("test", tr, te), solver.BCFW{Lambda: 0.01, GapEvery: 1}, []uint64{1, 2, 3}, stop))
	cached := Must(Seeds(ctx, "bcfw + cache", NewData("test", tr, te), solver.BCFW{Lambda: 0.01, GapEvery: 1, Cache: &solver.Cache{}}, []uint64{1, 2, 3}, stop))
	groups := []Group{plain, cached}

	// first returns the passes and seconds of the first point with gap <= eps.
	first := func(tr *Trainer, eps float64) (passes, secs float64) {
		for _, p := range tr.Trace() {
			if !(p.Gap > eps) && !math.IsNaN(p.Gap) {
				return p.Pass, p.Seconds
			}
		}
		return math.Inf(1), math.Inf(1)
	}
	// median3 is the middle of three values, or NaN when it is infinite.
	median3 := func(v []float64) float64 {
		s := append([]float64(nil), v...)
		sort.Float64s(s)
		if math.IsInf(s[1], 1) {
			return math.NaN()
		}
		return s[1]
	}
	// A gap every run reaches, one some runs reach, one none reaches.
	var finals []float64
	for _, g := range groups {
		for _, tr := range g.Trainers {
			finals = append(finals, tr.Current().Gap)
		}
	}
	sort.Float64s(finals)
	reachAll := finals[len(finals)-1]
	targets := []float64{reachAll, finals[0] * 1.0001, 1e-12}

	tab := TimeToGapTable(targets, groups...)
	if len(tab.Columns) != 2+3*len(targets) || len(tab.Rows) != len(groups) {
		t.Fatalf("table shape: columns %q, %d rows", tab.Columns, len(tab.Rows))
	}
	baseSecs := make([]float64, len(targets))
	for gi, g := range groups {
		row := tab.Rows[gi]
		if row[0] != g.Name || row[1] != "3" {
			t.Fatalf("row %d starts %q", gi, row[:2])
		}
		for k, eps := range targets {
			var ps, ss []float64
			for _, tr := range g.Trainers {
				p, s := first(tr, eps)
				ps, ss = append(ps, p), append(ss, s)
			}
			mp, ms := median3(ps), median3(ss)
			if gi == 0 {
				baseSecs[k] = ms
			}
			cells := row[2+3*k : 5+3*k]
			for c, want := range []float64{mp, ms} {
				got := cells[c]
				if math.IsNaN(want) {
					if len(got) < 11 || got[:11] != "not reached" {
						t.Errorf("%s, gap %g, column %q: %q, want not reached", g.Name, eps, tab.Columns[2+3*k+c], got)
					}
					continue
				}
				v, err := strconv.ParseFloat(firstField(got), 64)
				if err != nil || math.Abs(v-want) > 1e-3*math.Abs(want)+1e-12 {
					t.Errorf("%s, gap %g, column %q: %q, want %.4g", g.Name, eps, tab.Columns[2+3*k+c], got, want)
				}
			}
			ratio := baseSecs[k] / ms
			if math.IsNaN(ratio) {
				if cells[2] != "-" {
					t.Errorf("%s, gap %g: speedup %q without both times", g.Name, eps, cells[2])
				}
				continue
			}
			v, err := strconv.ParseFloat(cells[2], 64)
			if err != nil || math.Abs(v-ratio) > 1e-3*ratio {
				t.Errorf("%s, gap %g: speedup %q, want %.4g", g.Name, eps, cells[2], ratio)
			}
			if gi == 0 && v != 1 {
				t.Errorf("the first group's speedup over itself is %v", v)
			}
		}
	}
	// The unreachable target is "not reached" everywhere.
	for _, row := range tab.Rows {
		if c := row[2+3*2+1]; c[:11] != "not reached" {
			t.Errorf("gap 1e-12 reached: %q", c)
		}
	}
	if got := TimeToGapTable(targets); len(got.Rows) != 0 {
		t.Errorf("no groups gave rows %q", got.Rows)
	}
}

// firstField returns s up to its first space.
func firstField(s string) string {
	for k := range s {
		if s[k] == ' ' {
			return s[:k]
		}
	}
	return s
}
