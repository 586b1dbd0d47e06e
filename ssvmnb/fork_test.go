package ssvmnb

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/viz"
)

// notebook runs the cells of a small notebook, each as a fresh program
// would (everything through the session), and returns the weights and the
// styles of its trainers.
func notebook(t *testing.T, data *Data) string {
	t.Helper()
	// cell 1: the documented reset
	Check(ForgetAll())
	// cell 2
	m := solver.BCFW{Lambda: 0.01, GapEvery: 2}
	Must(Must(Session("bcfw", data, m)).Run(4))
	// cell 3: one line
	Must(Must(Resume("bcfw")).Run(3))
	// cell 4: a variant warm-started from the run
	g := Must(Must(Resume("bcfw")).Fork("bcfw gap", edited(m, func(m *solver.BCFW) { m.Sampling = run.GapSampling })))
	Must(g.Run(4))
	// cell 5: a knob switched mid-run
	b := Must(Resume("bcfw"))
	Check(b.SetLambda(0.005))
	Must(b.Run(2))
	// cell 6: figures
	a, f := Must(Resume("bcfw")), Must(Resume("bcfw gap"))
	fig := Gaps(viz.Passes, a, f)
	return fmt.Sprint(a.Weights(), f.Weights(), fig.Series[0].Color, fig.Series[1].Color, len(fig.Marks))
}

// edited returns m changed by edit.
func edited(m solver.BCFW, edit func(*solver.BCFW)) solver.BCFW {
	edit(&m)
	return m
}

// TestRunAllTwice: a notebook run twice from the top (the reset cell
// first) gives the same runs and the same styles.
func TestRunAllTwice(t *testing.T) {
	isolated(t)
	data := syntheticData(t)
	first := notebook(t, data)
	if second := notebook(t, data); second != first {
		t.Fatal("running the notebook again changed its results")
	}
}

// TestFork: a fork warm-starts from the run, under its own name, with the
// switch in its trace and as a mark of its progress figure; the original
// goes on unchanged; running the fork cell again hands back the stored
// fork; a different fork under the name is refused.
func TestFork(t *testing.T) {
	notes := isolated(t)
	data := syntheticData(t)
	m := solver.BCFW{Lambda: 0.01, GapEvery: 2}
	gapCache := edited(m, func(m *solver.BCFW) { m.Sampling, m.Cache = run.GapSampling, &solver.Cache{} })
	a := Must(Session("a", data, m))
	Must(a.Run(4))
	ref, _ := New("ref", NewData("test", data.Train, data.Test), m) // the original, unforked
	Must(ref.Run(4))

	f, err := a.Fork("a gap", gapCache)
	if err != nil {
		t.Fatal(err)
	}
	tr := f.Trace()
	at := tr[len(tr)-1]
	if at.Pass != a.Passes() || !strings.Contains(at.Event, "fork: sampling uniform -> gap, cache off -> F=0.25") {
		t.Fatalf("fork point %+v", at)
	}
	fig := f.ProgressFigure()
	if len(fig.Marks) != 1 || fig.Marks[0].X != a.Passes() {
		t.Fatalf("marks %+v", fig.Marks)
	}
	Must(f.Run(4))
	Must(a.Run(4))
	Must(ref.Run(4))
	sameWeights(t, a, ref)
	if f.Method().(solver.BCFW).Sampling != run.GapSampling || a.Method().(solver.BCFW).Sampling != run.Uniform {
		t.Fatal("methods mixed up")
	}

	// The fork cell runs again (the original has not moved since the
	// fork? it has: a different fork); a fork of a at its current pass
	// under another name is new.
	if _, err := a.Fork("a gap", gapCache); err == nil ||
		!strings.Contains(err.Error(), "is not this fork of a at pass") {
		t.Fatalf("a fork of a at pass %v took the stored fork made at pass 4: %v", a.Passes(), err)
	}
	// Same origin, same method: the stored fork, said so (a method
	// without a lambda continues at the run's).
	b := Must(Session("b", data, m))
	Must(b.Run(2))
	g1 := Must(b.Fork("b perm", edited(m, func(m *solver.BCFW) { m.Sampling = run.Permutation })))
	Must(g1.Run(2))
	b2 := Must(Resume("b"))
	g2, err := b2.Fork("b perm", solver.BCFW{GapEvery: 2, Sampling: run.Permutation})
	if err != nil || g2.Passes() != g1.Passes() || !strings.Contains(notes.String(), "resuming the stored fork of b at pass 2") {
		t.Fatalf("fork cell run again: %v, passes %v (stored %v), notes %q", err, g2.Passes(), g1.Passes(), notes.String())
	}
	if _, err := b2.Fork("b perm", edited(m, func(m *solver.BCFW) { m.Sampling = run.GapSampling })); err == nil {
		t.Fatal("another fork under a stored fork's name accepted")
	}
	if _, err := b2.Fork("b", nil); err == nil {
		t.Fatal("a fork under its original's name accepted")
	}
	// What cannot be forked says why.
	if _, err := b2.Fork("b pairwise", edited(m, func(m *solver.BCFW) { m.Step = solver.Pairwise })); err == nil || !strings.Contains(err.Error(), "FW steps keep the block vectors") {
		t.Fatalf("FW -> pairwise: %v", err)
	}
	if err := b2.Change(m.WithLambda(-1)); err == nil || !strings.Contains(err.Error(), "lambda") {
		t.Fatalf("a negative lambda: %v", err)
	}
}

// TestChangeIsRecorded: a knob switched mid-run is in the trace at the
// pass it happened, drawn as a mark, saved with the session, and named by
// Session's refusal of the original configuration.
func TestChangeIsRecorded(t *testing.T) {
	isolated(t)
	data := syntheticData(t)
	m := solver.BCFW{Lambda: 0.01, GapEvery: 3}
	tn := Must(Session("c", data, m))
	Must(tn.Run(3))
	Check(tn.Change(edited(m, func(m *solver.BCFW) { m.GapEvery, m.Average = 1, run.WeightedAverage })))
	r := Must(Resume("c")) // saved at once, without a Run
	tr := r.Trace()
	if at := tr[len(tr)-1]; at.Pass != 3 || at.Event != "averaging false -> true, gap every 3 -> 1" {
		t.Fatalf("change recorded as %+v", at)
	}
	if m := r.ProgressFigure().Marks; len(m) != 1 || m[0].X != 3 {
		t.Fatalf("marks %+v", m)
	}
	_, err := Session("c", data, m)
	if err == nil || !strings.Contains(err.Error(), "at pass 3: averaging false -> true") {
		t.Fatalf("Session after a change: %v", err)
	}
}

// TestMarksSayWhatChanged: a lambda change and a Change of a run are
// marked as what they are, a fork as a fork, in the trace and in the
// figures' marks, in the fork's shared history too, and after the runs
// are resumed from the session (issue 34 item 8: every one was labeled
// "fork: ...").
func TestMarksSayWhatChanged(t *testing.T) {
	isolated(t)
	d := syntheticData(t)
	a := Must(Session("a", d, solver.BCFW{Lambda: 0.01, GapEvery: 3}))
	a.Live = false
	Must(a.Run(4))
	Check(a.SetLambda(0.005))
	Must(a.Run(4))
	b := Must(a.Fork("b", solver.BCFW{GapEvery: 3, Sampling: run.GapSampling}))
	b.Live = false
	Must(b.Run(4))
	Check(b.Change(solver.BCFW{GapEvery: 2, Sampling: run.GapSampling}))
	Must(b.Run(4))
	want := []string{"a: lambda 0.01 -> 0.005", "b: fork: sampling uniform -> gap", "b: gap every 3 -> 2"}
	check := func(when string, a, b *Trainer) {
		t.Helper()
		var events []string
		for _, p := range b.Trace() {
			if p.Event != "" {
				events = append(events, p.Event)
			}
		}
		if got := strings.Join(events, " | "); got != "lambda 0.01 -> 0.005 | fork: sampling uniform -> gap | gap every 3 -> 2" {
			t.Errorf("%s: events of b: %q", when, got)
		}
		marks := Gaps(viz.Passes, a, b).Marks
		if len(marks) != len(want) {
			t.Fatalf("%s: marks %+v, want %q", when, marks, want)
		}
		for k, m := range marks {
			if m.Label != want[k] {
				t.Errorf("%s: mark %d at %v: %q, want %q", when, k, m.X, m.Label, want[k])
			}
		}
	}
	check("trained", a, b)
	check("resumed", Must(Resume("a")), Must(Resume("b")))
}
