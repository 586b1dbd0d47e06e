package ssvmnb

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/soft"
)

// mapped returns fn of every element of s.
func mapped[T, U any](s []T, fn func(T) U) []U {
	out := make([]U, len(s))
	for i, v := range s {
		out[i] = fn(v)
	}
	return out
}

// markAt returns the trace point whose event is mark, and whether there is
// one.
func markAt(tr []run.Point, mark string) (run.Point, bool) {
	for _, p := range tr {
		if p.Event == mark {
			return p, true
		}
	}
	return run.Point{}, false
}

// TestExploreEvents: each scripted event is applied at the pass it is
// due, through the trainer's own paths: it lands in the trace as the mark
// that path records, at the pass and step it was applied, and the run
// continues from it to the budget under the new setting; a change the
// method cannot make is refused and the run goes on.
func TestExploreEvents(t *testing.T) {
	cache := &solver.Cache{F: 0.25, Nu: 0.01}
	for _, tc := range []struct {
		name   string
		data   func(*testing.T) *Data
		method run.Method
		event  Event
		// mark is the event of the trace point the change records ("":
		// none), refused whether it must be refused.
		mark    string
		refused bool
		// after checks the points after the change.
		after func(p run.Point) bool
	}{
		{"lambda down", chainData, solver.BCFW{Lambda: 0.01, GapEvery: 1, Seed: 1}, SetLambda{0.002},
			"lambda 0.01 -> 0.002", false, func(p run.Point) bool { return p.Lambda == 0.002 }},
		{"lambda up", chainData, solver.BCFW{Lambda: 0.01, GapEvery: 1, Seed: 1}, SetLambda{0.05},
			"lambda 0.01 -> 0.05", false, func(p run.Point) bool { return p.Lambda == 0.05 }},
		{"rho", factorData, soft.BCFW{Lambda: 0.05, Rho: 1, GapEvery: 1, Seed: 2}, SetRho{4},
			"rho 1 -> 4", false, func(p run.Point) bool { return p.Rho == 4 }},
		{"soft lambda", factorData, soft.BCFW{Lambda: 0.05, Rho: 1, GapEvery: 1, Seed: 2}, SetLambda{0.01},
			"lambda 0.05 -> 0.01", false, func(p run.Point) bool { return p.Lambda == 0.01 && p.Rho == 1 }},
		{"cache F", chainData, solver.BCFW{Lambda: 0.01, GapEvery: 1, Seed: 1, Cache: cache}, SetCache{F: 0.5},
			"cache F=0.25 nu=0.01 size 10 -> F=0.5 nu=0.01 size 10", false, nil},
		{"sampling", chainData, solver.BCFW{Lambda: 0.01, GapEvery: 1, Seed: 1}, SetSampling{run.GapSampling},
			"sampling uniform -> gap", false, nil},
		{"step", chainData, solver.BCFW{Lambda: 0.01, GapEvery: 1, Seed: 1, Step: solver.Pairwise}, SetStep{solver.Away},
			"step pairwise -> away", false, nil},
		{"step refused", chainData, solver.BCFW{Lambda: 0.01, GapEvery: 1, Seed: 1}, SetStep{solver.Pairwise}, "", true, nil},
		{"soft sampling refused", factorData, soft.BCFW{Lambda: 0.05, Rho: 1, GapEvery: 1, Seed: 2}, SetSampling{run.Permutation}, "", true, nil},
		{"rho of bcfw refused", chainData, solver.BCFW{Lambda: 0.01, GapEvery: 1, Seed: 1}, SetRho{2}, "", true, nil},
		{"same lambda", chainData, solver.BCFW{Lambda: 0.01, GapEvery: 1, Seed: 1}, SetLambda{0.01}, "", false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			isolated(t)
			tr := Must(New(tc.name, tc.data(t), tc.method))
			Must(tr.Run(1))
			start := tr.Passes()
			x := Must(tr.explorer(Exploration{Passes: 4, Script: []Scripted{{After: 2, Event: tc.event}}}))
			if err := x.run(context.Background()); err != nil {
				t.Fatal(err)
			}
			applied := x.Applied()
			if len(applied) != 1 {
				t.Fatalf("applied %+v", applied)
			}
			a := applied[0]
			if a.Event != tc.event.String() || a.Pass > start+2+1e-9 || a.Pass < start+1 || (a.Err != "") != tc.refused {
				t.Fatalf("applied %+v, the exploration started at pass %g", a, start)
			}
			trace := tr.Trace()
			if tc.mark == "" {
				if len(a.Marks) != 0 || a.Unchanged == tc.refused {
					t.Fatalf("applied %+v, want no mark", a)
				}
			} else {
				// at the step of the change; a change that makes a gap pass
				// (lambda up, rho, soft lambda) records it a pass later
				p, ok := markAt(trace, tc.mark)
				gapPass := p.Refresh && p.Pass == a.Pass+1
				if !ok || !slices.Contains(a.Marks, tc.mark) || p.Pass != a.Pass && !gapPass || p.Steps != a.Steps {
					t.Fatalf("mark %q at %+v, applied %+v", tc.mark, p, a)
				}
			}
			last := tr.Last()
			if last.Pass < start+3 || last.Pass > start+4+1e-9 || last.Steps != tr.s.Steps() {
				t.Fatalf("the run ended at pass %g (steps %d of %d), the budget is %g", last.Pass, last.Steps, tr.s.Steps(), start+4)
			}
			if tc.after != nil {
				for _, p := range trace {
					if p.Steps > a.Steps && !tc.after(p) {
						t.Fatalf("a point after the change: %+v", p)
					}
				}
			}
		})
	}
}

// TestExploreSliderValue: the value of the lambda slider's position is
// the lambda of the trace after the change, and the grid holds the run's
// lambda at its starting position.
func TestExploreSliderValue(t *testing.T) {
	isolated(t)
	tr := Must(New("bcfw", chainData(t), solver.BCFW{Lambda: 0.01, GapEvery: 1, Seed: 1, Cache: &solver.Cache{}}))
	cs := controlsOf(tr)
	if names := strings.Join(mapped(cs, func(c control) string { return c.name }), ","); names != "lambda,cache F,cache nu,sampling,step" {
		t.Fatalf("controls %q", names)
	}
	lam := cs[0]
	if lam.values[lam.at] != 0.01 || lam.values[0] != 1e-5 || lam.values[len(lam.values)-1] != 1 || !slices.IsSorted(lam.values) {
		t.Fatalf("lambda grid %v at %d", lam.values, lam.at)
	}
	pos := lam.at - 2
	x := Must(tr.explorer(Exploration{Passes: 3, Script: []Scripted{{After: 1, Event: lam.event(pos)}}}))
	Check(x.run(context.Background()))
	if got := tr.Last().Lambda; got != lam.values[pos] || got != 0.002 {
		t.Fatalf("lambda %g after the slider's position %d (%g)", got, pos, lam.values[pos])
	}
	soft := controlsOf(Must(New("soft", factorData(t), soft.BCFW{Lambda: 0.05, Rho: 1, GapEvery: 1})))
	if len(soft) != 2 || soft[1].name != "rho" || soft[1].values[soft[1].at] != 1 {
		t.Fatalf("soft controls %+v", soft)
	}
}

// TestExploreForkAndSave: a fork is a new run with the parent's state at
// the pass of the fork (the weights of a run stopped there), the parent
// goes on; a save writes a file that LoadTrainer reads back at that state.
func TestExploreForkAndSave(t *testing.T) {
	isolated(t)
	data := chainData(t)
	m := solver.BCFW{Lambda: 0.01, GapEvery: 1, Seed: 1}
	tr := Must(New("bcfw", data, m))
	file := filepath.Join(t.TempDir(), "saved.trainer")
	x := Must(tr.explorer(Exploration{Passes: 5, Script: []Scripted{
		{After: 2, Event: ForkAs{}}, {After: 2, Event: SaveAs{Path: file}}, {After: 3, Event: ForkAs{Name: "second"}},
	}}))
	Check(x.run(context.Background()))
	forks, applied := x.Forks(), x.Applied()
	if len(forks) != 2 || len(applied) != 3 || forks[0].Name != "bcfw fork 1" || forks[1].Name != "second" ||
		applied[1].File != file || applied[0].Fork != "bcfw fork 1" {
		t.Fatalf("forks %d, applied %+v", len(forks), applied)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	loaded := Must(LoadTrainer(f, data))
	for i, got := range []*Trainer{forks[0], loaded, forks[1]} {
		a := applied[i]
		if !got.Live {
			t.Fatalf("%s: the live chart is off (the exploration's own chart is no setting of the run)", got.Name)
		}
		if got.Passes() != a.Pass || got.s.Steps() != a.Steps {
			t.Fatalf("%s at pass %g, step %d; applied at %g, %d", got.Name, got.Passes(), got.s.Steps(), a.Pass, a.Steps)
		}
		ref := Must(New("ref", data, m))
		Must(ref.RunUntil(context.Background(), run.Stop{Passes: a.Pass}))
		if ref.s.Steps() != a.Steps {
			t.Fatalf("the reference stopped at step %d, not %d", ref.s.Steps(), a.Steps)
		}
		sameWeights(t, got, ref)
		parent := tr.Trace()
		if n := len(got.Trace()); n == 0 || gapPasses(got.Trace()) != gapPasses(parent[:n]) {
			t.Fatalf("%s: its trace is not the parent's history", got.Name)
		}
	}
	if tr.Passes() <= applied[2].Pass {
		t.Fatalf("the parent stopped at pass %g", tr.Passes())
	}
}

// TestExploreSend: events sent while the run trains (as the widgets send
// them, here from the run's progress callback) are applied at the next
// block step, a burst of one knob's values as its last value; pause stops
// training until continue; stop ends the exploration.
func TestExploreSend(t *testing.T) {
	isolated(t)
	tr := Must(New("bcfw", chainData(t), solver.BCFW{Lambda: 0.01, GapEvery: 1, Seed: 1}))
	n := int64(tr.on.Train.Len())
	var x *Explorer
	var sentAt int64 = -1
	var pausedAt float64
	tr.onPoint = func(p run.Point) {
		switch {
		case sentAt < 0 && p.Pass >= 2:
			sentAt = p.Steps
			for _, l := range []float64{0.005, 0.003, 0.002} {
				x.Send(SetLambda{l})
			}
			x.Send(SetRho{1}) // refused: not a soft run
			x.Send(Pause{})
			go func() {
				time.Sleep(100 * time.Millisecond)
				pausedAt = tr.Passes() // paused: no race with the run
				x.Send(Continue{})
			}()
		case sentAt >= 0 && p.Pass >= 6:
			x.Send(StopExploring{})
		}
	}
	x = Must(tr.explorer(Exploration{Passes: 100}))
	Check(x.run(context.Background()))
	applied := x.Applied()
	if got := strings.Join(mapped(applied, func(a Applied) string { return a.Event }), "; "); got != "lambda = 0.002; rho = 1; pause; continue; stop" {
		t.Fatalf("applied %q", got)
	}
	a := applied[0]
	if a.Steps < sentAt || a.Steps > sentAt+n || applied[1].Err == "" || tr.Last().Lambda != 0.002 {
		t.Fatalf("sent at step %d, applied %+v", sentAt, applied)
	}
	if applied[3].Pass != pausedAt || applied[2].Pass != applied[3].Pass {
		t.Fatalf("trained while paused: paused at %g, continued at %g (seen %g)", applied[2].Pass, applied[3].Pass, pausedAt)
	}
	if p := tr.Passes(); p < 6 || p > 8 {
		t.Fatalf("stopped at pass %g", p)
	}
	x.Send(SetLambda{0.1}) // after the end: ignored
	if len(x.Applied()) != len(applied) {
		t.Fatal("an event after the end was queued")
	}
}

// TestExploreView: in a notebook the exploration redraws one chart in
// place, which shows the run's lambda and the marks of its trace after a
// change, and ends with the final figure and a summary of the changes,
// from the trace; the live chart setting is left as it was.
func TestExploreView(t *testing.T) {
	isolated(t)
	rec := record(t)
	tr := Must(New("bcfw", chainData(t), solver.BCFW{Lambda: 0.01, GapEvery: 1, Seed: 1}))
	x := Must(tr.Explore(Exploration{Passes: 3, Script: []Scripted{{After: 1, Event: SetLambda{0.002}}}}))
	if len(x.Applied()) != 1 || !tr.Live || exploring(tr) {
		t.Fatalf("applied %+v, live %v, exploring %v", x.Applied(), tr.Live, exploring(tr))
	}
	var before, after bool
	for _, u := range rec.updates {
		before = before || strings.Contains(u, `class="fwstruct-explore" data-run="bcfw"`) && strings.Contains(u, `data-lambda="0.01" data-marks="0"`)
		after = after || strings.Contains(u, `data-lambda="0.002" data-marks="1"`) && strings.Contains(u, `<tr class="fwstruct-mark" data-pass=`) &&
			strings.Contains(u, "lambda 0.01 -&gt; 0.002") && strings.Contains(u, "<img")
	}
	if !before || !after {
		t.Fatalf("live updates (before %v, after %v): %.300q", before, after, rec.updates)
	}
	if ids := slices.Compact(slices.Clone(rec.ids)); len(ids) != 1 || rec.updates[len(rec.updates)-1] != "" {
		t.Fatalf("the chart was drawn in %d outputs (%q), the last update %.80q", len(ids), ids, rec.updates[len(rec.updates)-1])
	}
	if len(rec.pngs) != 1 || len(rec.html) != 1 || !strings.Contains(rec.html[0], `class="fwstruct-explore-summary"`) ||
		!strings.Contains(rec.html[0], `data-lambda="0.002"`) || !strings.Contains(rec.html[0], "1 changes applied, 0 refused") {
		t.Fatalf("final outputs: %d figures, %.400q", len(rec.pngs), rec.html)
	}
}

// TestExploreBudget: an exploration needs a budget; a pause with no
// continue ends at the deadline, without training.
func TestExploreBudget(t *testing.T) {
	isolated(t)
	tr := Must(New("bcfw", chainData(t), solver.BCFW{Lambda: 0.01, GapEvery: 1, Seed: 1}))
	if _, err := tr.explorer(Exploration{}); err == nil {
		t.Fatal("an exploration without a budget was accepted")
	}
	if _, err := tr.explorer(Exploration{Passes: 1, Script: []Scripted{{After: -1, Event: Pause{}}}}); err == nil {
		t.Fatal("a scripted change at a negative pass was accepted")
	}
	x := Must(tr.explorer(Exploration{Passes: 50, Duration: 300 * time.Millisecond, Script: []Scripted{{After: 1, Event: Pause{}}}}))
	t0 := time.Now()
	Check(x.run(context.Background()))
	if el := time.Since(t0); el < 300*time.Millisecond || tr.Passes() > 2 {
		t.Fatalf("paused exploration ended after %v at pass %g", el, tr.Passes())
	}
	var buf bytes.Buffer
	Check(tr.Save(&buf)) // the session state stays savable

	// canceled from outside: the exploration ends there
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	at := tr.Passes()
	tr.onPoint = func(p run.Point) {
		if p.Pass >= at+2 {
			cancel()
		}
	}
	x = Must(tr.explorer(Exploration{Passes: 50}))
	Check(x.run(ctx))
	if p := tr.Passes(); p < at+2 || p > at+4 {
		t.Fatalf("an exploration canceled at pass %g ended at %g", at+2, p)
	}
}
