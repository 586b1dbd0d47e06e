package papers

import (
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/ssvmnb"
	"github.com/fwstruct/fwstruct/viz"
)

// TestMethodKeepsItsStyle: a method has one color in its live chart
// (ProgressFigure, as the trainer's running chart draws it), in every
// comparison figure whatever the order of the runs (Gaps, Objectives,
// HardObjectives, Accuracies, kept runs), and in the
// interactive (ECharts) rendering of those figures.
func TestMethodKeepsItsStyle(t *testing.T) {
	isolated(t)
	data := syntheticData(t)
	a := ssvmnb.Must(ssvmnb.Session("a", data, solver.BCFW{Lambda: 0.01, GapEvery: 2}))
	b := ssvmnb.Must(ssvmnb.Session("b", data, solver.BCFW{Lambda: 0.01, GapEvery: 2, Seed: 7}))
	a.Live, b.Live = false, false
	ssvmnb.Must(a.Run(4))
	ssvmnb.Must(b.Run(4))
	want := map[string]string{"a": ssvmnb.StyleOf("a").Color, "b": ssvmnb.StyleOf("b").Color}
	if want["a"] == want["b"] {
		t.Fatalf("two methods share the color %s", want["a"])
	}
	live := b.ProgressFigure()
	if s := live.Series[len(live.Series)-1]; s.Name != "duality gap" || s.Color != want["b"] {
		t.Fatalf("live chart of b: %q in %s, want %s", s.Name, s.Color, want["b"])
	}
	if err := ssvmnb.KeepRun(b.VizRun()); err != nil {
		t.Fatal(err)
	}
	kept := ssvmnb.Must(ssvmnb.KeptRun("b"))
	kept.Style = viz.Style{} // kept before styles were kept: its method's
	kb := ssvmnb.Must(ssvmnb.KeptRun("b"))
	plain := viz.Run{Name: "b", Trace: b.Trace()} // a run without a style
	for _, f := range []*viz.Figure{
		ssvmnb.Gaps(viz.Passes, b, a), ssvmnb.Objectives(viz.Passes, b, a),
		HardObjectives(viz.Passes, 0, kb, a.VizRun()), // SoftObjectives: TestSoftObjectivesStyles

		Accuracies(viz.Passes, plain, a.VizRun()), HardObjectives(viz.Passes, 0, kept, a.VizRun()),
	} {
		opt, err := f.EChartsOption()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range f.Series {
			method := strings.Fields(s.Name)[0]
			if s.Color != want[method] {
				t.Errorf("%s: series %q in %s, want %s (the color of %s)", f.Title, s.Name, s.Color, want[method], method)
			}
			if !strings.Contains(string(opt), `"name":"`+s.Name+`"`) || !strings.Contains(string(opt), `"color":"`+want[method]+`"`) {
				t.Errorf("%s: the interactive chart lacks %q in %s", f.Title, s.Name, want[method])
			}
		}
	}
}
