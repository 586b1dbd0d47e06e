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
	cfg := solver.Config{Lambda: 0.01, GapEvery: 2}
	MustSession("bcfw", data, cfg).MustRun(4)
	// cell 3: one line
	MustResume("bcfw").MustRun(3)
	// cell 4: a variant warm-started from the run
	g := MustResume("bcfw").MustFork("bcfw gap", func(c *solver.Config) { c.Sampling = run.GapSampling })
	g.MustRun(4)
	// cell 5: a knob switched mid-run
	b := MustResume("bcfw")
	Check(b.SetLambda(0.005))
	b.MustRun(2)
	// cell 6: figures
	a, f := MustResume("bcfw"), MustResume("bcfw gap")
	fig := Gaps(viz.Passes, a, f)
	return fmt.Sprint(a.Weights(), f.Weights(), fig.Series[0].Color, fig.Series[1].Color, len(fig.Marks))
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
	cfg := solver.Config{Lambda: 0.01, GapEvery: 2}
	a := MustSession("a", data, cfg)
	a.MustRun(4)
	ref, _ := New("ref", NewData("test", data.Train, data.Test), cfg) // the original, unforked
	ref.MustRun(4)

	f, err := a.Fork("a gap", func(c *solver.Config) { c.Sampling = run.GapSampling; c.Cache.Enabled = true })
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
	f.MustRun(4)
	a.MustRun(4)
	ref.MustRun(4)
	sameWeights(t, a, ref)
	if f.Config().(solver.Config).Sampling != run.GapSampling || a.Config().(solver.Config).Sampling != run.Uniform {
		t.Fatal("configurations mixed up")
	}

	// The fork cell runs again (the original has not moved since the
	// fork? it has: a different fork); a fork of a at its current pass
	// under another name is new.
	if _, err := a.Fork("a gap", func(c *solver.Config) { c.Sampling = run.GapSampling; c.Cache.Enabled = true }); err == nil ||
		!strings.Contains(err.Error(), "is not this fork of a at pass") {
		t.Fatalf("a fork of a at pass %v took the stored fork made at pass 4: %v", a.Passes(), err)
	}
	// Same origin, same configuration: the stored fork, said so.
	b := MustSession("b", data, cfg)
	b.MustRun(2)
	g1 := b.MustFork("b perm", func(c *solver.Config) { c.Sampling = run.Permutation })
	g1.MustRun(2)
	b2 := MustResume("b")
	g2, err := b2.Fork("b perm", func(c *solver.Config) { c.Sampling = run.Permutation })
	if err != nil || g2.Passes() != g1.Passes() || !strings.Contains(notes.String(), "resuming the stored fork of b at pass 2") {
		t.Fatalf("fork cell run again: %v, passes %v (stored %v), notes %q", err, g2.Passes(), g1.Passes(), notes.String())
	}
	if _, err := b2.Fork("b perm", func(c *solver.Config) { c.Sampling = run.GapSampling }); err == nil {
		t.Fatal("another fork under a stored fork's name accepted")
	}
	if _, err := b2.Fork("b", nil); err == nil {
		t.Fatal("a fork under its original's name accepted")
	}
	// What cannot be forked says why.
	if _, err := b2.Fork("b pairwise", func(c *solver.Config) { c.Step = solver.Pairwise }); err == nil || !strings.Contains(err.Error(), "FW steps keep the block vectors") {
		t.Fatalf("FW -> pairwise: %v", err)
	}
	if err := b2.Change(func(c *solver.Config) { c.Lambda = -1 }); err == nil || !strings.Contains(err.Error(), "lambda") {
		t.Fatalf("a negative lambda: %v", err)
	}
}

// TestChangeIsRecorded: a knob switched mid-run is in the trace at the
// pass it happened, drawn as a mark, saved with the session, and named by
// Session's refusal of the original configuration.
func TestChangeIsRecorded(t *testing.T) {
	isolated(t)
	data := syntheticData(t)
	cfg := solver.Config{Lambda: 0.01, GapEvery: 3}
	tn := MustSession("c", data, cfg)
	tn.MustRun(3)
	Check(tn.Change(func(c *solver.Config) { c.GapEvery = 1; c.Averaging = true }))
	r := MustResume("c") // saved at once, without a Run
	tr := r.Trace()
	if at := tr[len(tr)-1]; at.Pass != 3 || at.Event != "fork: averaging false -> true, gap every 3 -> 1" {
		t.Fatalf("change recorded as %+v", at)
	}
	if m := r.ProgressFigure().Marks; len(m) != 1 || m[0].X != 3 {
		t.Fatalf("marks %+v", m)
	}
	_, err := Session("c", data, cfg)
	if err == nil || !strings.Contains(err.Error(), "at pass 3: fork: averaging false -> true") {
		t.Fatalf("Session after a change: %v", err)
	}
}
