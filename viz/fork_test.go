package viz

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
)

// forkedRuns trains BCFW for 6 passes, forks it twice (the same
// configuration, and gap sampling), runs all three 6 passes more and
// returns the parent, the plain fork and the gap-sampling fork.
func forkedRuns(t *testing.T) (parent, same, gap Run) {
	t.Helper()
	train, _, err := datasets.SyntheticOCR(datasets.SyntheticConfig{TrainWords: 40, TestWords: 10, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := solver.BCFW{Lambda: 0.01, GapEvery: 2}.New(train)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(ctx, run.Stop{Passes: 6}); err != nil {
		t.Fatal(err)
	}
	sm, err := s.Fork(s.Method())
	if err != nil {
		t.Fatal(err)
	}
	c := s.Method().(solver.BCFW)
	c.Sampling = run.GapSampling
	g, err := s.Fork(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []run.Solver{s, sm, g} {
		if _, err := x.Run(ctx, run.Stop{Passes: 12}); err != nil {
			t.Fatal(err)
		}
	}
	return Run{Name: "parent", Trace: s.Trace()}, Run{Name: "same", Trace: sm.Trace()}, Run{Name: "gap", Trace: g.Trace()}
}

// TestForkHistoryDrawnOnce: a fork's curve starts where it leaves its
// parent's history, whatever the order of the runs, so that neither curve
// hides the other, and the parent's events are marked once.
func TestForkHistoryDrawnOnce(t *testing.T) {
	parent, same, gap := forkedRuns(t)
	k := sharedPrefix(parent.Trace, gap.Trace)
	if k < 3 || !forksAt(gap.Trace, k) {
		t.Fatalf("the fork shares %d points with its parent, next event %q", k, gap.Trace[min(k, len(gap.Trace)-1)].Event)
	}
	forkX := parent.Trace[k-1].Pass
	for _, order := range [][]Run{{parent, gap}, {gap, parent}} {
		f := GapCurves(order, Passes)
		byName := map[string]Series{}
		for _, s := range f.Series {
			byName[s.Name] = s
		}
		p, g := byName["parent"], byName["gap"]
		if len(p.X) != len(parent.Trace) || p.X[0] != 0 {
			t.Errorf("order %s: the parent is not drawn whole: x %v", order[0].Name, p.X)
		}
		if g.X[0] != forkX || g.Y[0] != parent.Trace[k-1].Gap || len(g.X) != len(gap.Trace)-(k-1) {
			t.Errorf("order %s: the fork starts at (%v, %v), %d points; want the last shared point (%v, %v), %d points",
				order[0].Name, g.X[0], g.Y[0], len(g.X), forkX, parent.Trace[k-1].Gap, len(gap.Trace)-(k-1))
		}
		want := fmt.Sprintf("gap: history up to pass %.4g shared with parent (drawn once)", forkX)
		if !reflect.DeepEqual(f.Notes, []string{want}) {
			t.Errorf("order %s: notes %q", order[0].Name, f.Notes)
		}
		if len(f.Marks) != 1 || f.Marks[0].Label != "gap: fork: sampling uniform -> gap" {
			t.Errorf("order %s: marks %+v", order[0].Name, f.Marks)
		}
	}
	// Two forks of one parent without it: the one recording the fork
	// branches off the plain continuation, in either order.
	for _, order := range [][]Run{{same, gap}, {gap, same}} {
		bs := branches(order)
		gi := 0
		if order[1].Name == "gap" {
			gi = 1
		}
		if bs[1-gi] != (branch{from: -1}) || bs[gi] != (branch{start: k - 1, from: 1 - gi}) {
			t.Errorf("order %s: branches %+v", order[0].Name, bs)
		}
	}
	// Independent runs, which share only the evaluation at w = 0, are
	// drawn whole; so is a run listed twice, once.
	runs := solverRuns(t)
	if bs := branches(runs[:2]); !reflect.DeepEqual(bs, []branch{{from: -1}, {from: -1}}) {
		t.Errorf("independent runs: %+v", bs)
	}
	if bs := branches([]Run{parent, parent}); bs[0] != (branch{from: -1}) || bs[1] != (branch{start: len(parent.Trace) - 1, from: 0}) {
		t.Errorf("a run twice: %+v", bs)
	}
}

// TestForkChain: a fork of a fork starts where it leaves the first fork,
// which starts where it leaves the original; every figure draws the
// history once.
func TestForkChain(t *testing.T) {
	pt := func(i int, ev string) run.Point {
		p := run.Blank()
		p.Pass, p.Steps, p.Seconds, p.Gap, p.Event = float64(i), int64(i), float64(i), 1/float64(i+1), ev
		p.CacheHits, p.CacheMisses = int64(i), int64(i)
		return p
	}
	a := Run{Name: "a"}
	for i := 0; i < 8; i++ {
		a.Trace = append(a.Trace, pt(i, ""))
	}
	b := Run{Name: "b", Trace: append(append([]run.Point(nil), a.Trace[:3]...), pt(3, "fork: cache off -> on"))}
	for i := 4; i < 8; i++ {
		p := pt(i, "")
		p.Seconds += 0.5
		b.Trace = append(b.Trace, p)
	}
	c := Run{Name: "c", Trace: append(append([]run.Point(nil), b.Trace[:5]...), pt(5, "fork: sampling uniform -> gap"))}
	c.Trace[5].Seconds = 7
	want := []branch{{start: 4, from: 2}, {from: -1}, {start: 2, from: 1}}
	if bs := branches([]Run{c, a, b}); !reflect.DeepEqual(bs, want) {
		t.Errorf("branches %+v, want %+v", bs, want)
	}
	for _, f := range []*Figure{GapCurves([]Run{c, a, b}, Passes), CacheHitRates([]Run{c, a, b})} {
		if got := [3]float64{f.Series[0].X[0], f.Series[1].X[0], f.Series[2].X[0]}; got != [3]float64{4, 0, 2} {
			t.Errorf("%s: the curves start at %v, want [4 0 2]", f.Title, got)
		}
		if len(f.Marks) != 2 || f.Marks[0].Label != "c: fork: sampling uniform -> gap" || f.Marks[1].Label != "b: fork: cache off -> on" {
			t.Errorf("%s: marks %+v", f.Title, f.Marks)
		}
	}
}
