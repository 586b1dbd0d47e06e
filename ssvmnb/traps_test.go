package ssvmnb

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/viz"
)

// The correctness traps of issue 11: each test failed on the notebook
// layer before the fix.

// TestSessionComparesLambda: after lambda changed mid-run, a cell that asks
// for the original configuration gets an error saying what changed, not
// the run at the other lambda; Resume continues the stored run as it is.
func TestSessionComparesLambda(t *testing.T) {
	isolated(t)
	data := syntheticData(t)
	cfg := solver.BCFW{Lambda: 0.01, GapEvery: 5}
	for _, how := range []string{"solver", "trainer"} {
		Forget("bcfw")
		tn := Must(Session("bcfw", data, cfg))
		Must(tn.Run(3))
		if how == "solver" {
			Check(tn.Solver().(*solver.Solver).SetLambda(0.001))
			Must(tn.Run(2)) // saved with the run
		} else {
			Check(tn.SetLambda(0.001)) // saved at once
		}
		_, err := Session("bcfw", data, cfg)
		if err == nil {
			t.Fatalf("%s: Session handed back a run at lambda 0.001 to a cell asking for 0.01", how)
		}
		for _, want := range []string{"Lambda is 0.001, the cell asks for 0.01", "lambda 0.01 -> 0.001", "Resume"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q does not say %q", how, err, want)
			}
		}
		r := Must(Resume("bcfw"))
		if r.Lambda() != 0.001 {
			t.Fatalf("%s: resumed at lambda %v", how, r.Lambda())
		}
		asked := cfg
		asked.Lambda = 0.001
		if _, err := Session("bcfw", data, asked); err != nil {
			t.Fatalf("%s: the stored configuration itself was refused: %v", how, err)
		}
	}
	// Any other field differs: refused too, naming the field.
	other := cfg
	other.Lambda, other.Sampling = 0.001, run.GapSampling
	if _, err := Session("bcfw", data, other); err == nil || !strings.Contains(err.Error(), "Sampling is uniform, the cell asks for gap") {
		t.Fatalf("sampling difference: %v", err)
	}
}

// TestSummariesDescribeTheCurrentIterate: a 20-pass sweep with a gap pass
// every 10 reports pass 20 and the gap of the final iterate, and its
// curves end at pass 20 (they stopped at the last gap pass, pass 11).
func TestSummariesDescribeTheCurrentIterate(t *testing.T) {
	isolated(t)
	tr, te := synthetic(t)
	ctx := context.Background()
	res, err := lambdaSweep(solver.BCFW{GapEvery: 10}, []float64{0.01, 0.003}, run.Stop{Passes: 20}, 0.05).Run(ctx, NewData("test", tr, te))
	if err != nil {
		t.Fatal(err)
	}
	tab := res.Table()
	for k, g := range res.Groups {
		tn := g.Trainers[0]
		ev, err := tn.Solver().Evaluate() // the final iterate, evaluated afresh
		if err != nil {
			t.Fatal(err)
		}
		row := tab.Rows[k]
		if row[3] != "20" || row[4] != Cell(ev.Gap) {
			t.Errorf("lambda %v: table says passes %s, final gap %s; the final iterate is at pass %v with gap %s", res.Values[k], row[3], row[4], tn.Passes(), Cell(ev.Gap))
		}
	}
	for name, f := range map[string]*viz.Figure{"sweep curves": res.curves(viz.Passes), "compare": Compare("c", viz.Passes, nil, res.Groups...)} {
		for _, s := range f.Series {
			if end := s.X[len(s.X)-1]; end != 20 {
				t.Errorf("%s: curve %q ends at pass %v, the runs at 20", name, s.Name, end)
			}
		}
	}
	g, err := Seeds(ctx, "uniform", NewData("test", tr, te), solver.BCFW{Lambda: 0.01, GapEvery: 10}, []uint64{1, 2}, run.Stop{Passes: 20})
	if err != nil {
		t.Fatal(err)
	}
	sum := SummaryTable(nil, g)
	if sum.Rows[0][2] != "20" {
		t.Errorf("summary says passes %s", sum.Rows[0][2])
	}
	var gaps []float64
	for _, tn := range g.Trainers {
		ev, _ := tn.Solver().Evaluate()
		gaps = append(gaps, ev.Gap)
	}
	if sum.Rows[0][3] != Cell(Median(gaps)) {
		t.Errorf("summary final gap %s, the final iterates' median %s", sum.Rows[0][3], Cell(Median(gaps)))
	}
}

// TestEmptyFiguresSayWhy: a sweep whose target no value reached, a gap
// plot with SSG and hit rates without a cache show no empty chart.
func TestEmptyFiguresSayWhy(t *testing.T) {
	isolated(t)
	tr, te := synthetic(t)
	rec := record(t)
	res, err := lambdaSweep(solver.BCFW{GapEvery: 2}, []float64{0.01, 0.001}, run.Stop{Passes: 4}, 1e-9).Run(context.Background(), NewData("test", tr, te))
	if err != nil {
		t.Fatal(err)
	}
	fig := res.Figure()
	if fig.Drawn() != 0 || !strings.Contains(strings.Join(fig.Notes, ""), "no value of lambda reached gap 1e-09 within 4 passes") {
		t.Fatalf("unreachable target: drawn %d, notes %q", fig.Drawn(), fig.Notes)
	}
	for _, c := range fig.Categories {
		if !strings.Contains(c, "not reached") {
			t.Errorf("category %q does not say not reached", c)
		}
	}
	pngs := len(rec.pngs)
	Check(Show(fig))
	if len(rec.pngs) != pngs || !strings.Contains(rec.html[len(rec.html)-1], `class="fwstruct-omitted"`) ||
		!strings.Contains(rec.html[len(rec.html)-1], "not drawn: no value of lambda reached") {
		t.Fatalf("an empty figure was shown, or without a note: %q", rec.html[len(rec.html)-1])
	}
	Check(ShowInteractive(fig))
	if h := rec.html[len(rec.html)-1]; strings.Contains(h, "<iframe") || !strings.Contains(h, "fwstruct-omitted") {
		t.Fatalf("interactive: %q", h)
	}

	ssg, _ := New("ssg", NewData("test", tr, te), solver.SSG{Lambda: 0.01, GapEvery: 2})
	bcfw, _ := New("bcfw", NewData("test", tr, te), solver.BCFW{Lambda: 0.01, GapEvery: 2})
	for _, tn := range []*Trainer{ssg, bcfw} {
		tn.Live = false
		Must(tn.Run(4))
	}
	gaps := Gaps(viz.Passes, bcfw, ssg)
	for _, s := range gaps.Series {
		if strings.HasPrefix(s.Name, "ssg") {
			t.Errorf("gap plot lists %q", s.Name)
		}
	}
	if !strings.Contains(strings.Join(gaps.Notes, ""), "ssg (no duality gap)") {
		t.Errorf("gap plot notes %q", gaps.Notes)
	}
	if h := HitRates(bcfw); h.Drawn() != 0 || !strings.Contains(strings.Join(h.Notes, ""), "no cache") {
		t.Errorf("hit rates without a cache: drawn %d, notes %q", h.Drawn(), h.Notes)
	}
}

// TestPassCounts: passes have one meaning, oracle calls / n with the gap
// passes: Passes() and Current().Pass agree, also after a restart, and
// Run(k) raises the budget by k, so that repeated Runs add up exactly,
// also after SetLambda.
func TestPassCounts(t *testing.T) {
	isolated(t)
	data := syntheticData(t)
	n := float64(data.Train.Len())
	for _, ge := range []float64{1, 2, 5} {
		for _, k := range []float64{1, 2.5, 3} {
			Forget("p")
			cfg := solver.BCFW{Lambda: 0.01, GapEvery: ge}
			budget := 0.0
			for cell := 0; cell < 4; cell++ {
				tn := resumeOr(t, "p", data, cfg)
				tn.Live = false
				if cell == 2 {
					Check(tn.SetLambda(0.005))
					cfg.Lambda = 0.005
				}
				Must(tn.Run(k))
				budget += k
				cur := tn.Current()
				calls := float64(tn.Solver().(*solver.Solver).OracleCalls()) / n
				if cur.Pass != tn.Passes() || tn.Passes() != calls {
					t.Fatalf("GapEvery %v, Run(%v) x %d: Current().Pass %v, Passes() %v, oracle calls / n %v", ge, k, cell+1, cur.Pass, tn.Passes(), calls)
				}
				if !(tn.Passes() > budget-1 && tn.Passes() <= budget+1e-9) {
					t.Fatalf("GapEvery %v, Run(%v) x %d: %v passes, budget %v", ge, k, cell+1, tn.Passes(), budget)
				}
				r := Must(Resume("p")) // the next cell, a fresh program
				if r.Current().Pass != r.Passes() || r.Passes() != tn.Passes() {
					t.Fatalf("after a restart: Current().Pass %v, Passes() %v, before %v", r.Current().Pass, r.Passes(), tn.Passes())
				}
			}
			if ge == 1 && k == 2.5 {
				if tn := Must(Resume("p")); tn.Passes() != 10 {
					t.Fatalf("Run(2.5) x 4 with a gap pass every pass: %v passes, want 10", tn.Passes())
				}
			}
		}
	}
}

// resumeOr resumes a session or starts it (the first cell).
func resumeOr(t *testing.T, name string, data *Data, cfg solver.BCFW) *Trainer {
	t.Helper()
	if tn, err := Resume(name); err == nil {
		return tn
	}
	return Must(Session(name, data, cfg))
}

// TestMedianOverSeedsAgainstTime: the median curve against time stops
// where the first seed ends, with a note, instead of following the slowest
// seed's flat tail.
func TestMedianOverSeedsAgainstTime(t *testing.T) {
	isolated(t)
	tr, te := synthetic(t)
	g, err := Seeds(context.Background(), "bcfw", NewData("test", tr, te), solver.BCFW{Lambda: 0.01, GapEvery: 1}, []uint64{1, 2, 3}, run.Stop{Passes: 6})
	if err != nil {
		t.Fatal(err)
	}
	first := math.Inf(1)
	for _, tn := range g.Trainers {
		first = math.Min(first, tn.Current().Seconds)
	}
	f := Compare("against time", viz.Seconds, nil, g)
	s := f.Series[0]
	if end := s.X[len(s.X)-1]; end > first {
		t.Fatalf("median curve ends at %v s, the first seed at %v s", end, first)
	}
	cut := false
	lo, hi := math.Inf(1), 0.0
	for _, tn := range g.Trainers {
		cur := tn.Current()
		cut = cut || cur.Seconds > s.X[len(s.X)-1]
		lo, hi = math.Min(lo, cur.Seconds/cur.Pass), math.Max(hi, cur.Seconds/cur.Pass)
	}
	notes := strings.Join(f.Notes, "")
	if cut != strings.Contains(notes, "stops where the first of its seeds ends") {
		t.Errorf("cut %v, notes %q", cut, f.Notes)
	}
	if want := fmt.Sprintf("varies up to %.1fx", hi/lo); (hi/lo >= 1.2) != strings.Contains(notes, want) {
		t.Errorf("time per pass spread %.2f, notes %q", hi/lo, f.Notes)
	}
}

// TestStylesFixedAcrossFigures: a method keeps its color and dash in every
// figure, whatever the order of the runs; ForgetAll resets the styles so
// that a notebook run again assigns them alike.
func TestStylesFixedAcrossFigures(t *testing.T) {
	isolated(t)
	tr, te := synthetic(t)
	mk := func(name string, cfg solver.BCFW) *Trainer {
		tn, _ := New(name, NewData("test", tr, te), cfg)
		tn.Live = false
		Must(tn.Run(3))
		return tn
	}
	a := mk("no cache", solver.BCFW{Lambda: 0.01, GapEvery: 1})
	b := mk("only cache", solver.BCFW{Lambda: 0.01, GapEvery: 1, Cache: &solver.Cache{F: 1e-6, Nu: 1e-6}})
	color := func(f *viz.Figure, name string) string {
		for _, s := range f.Series {
			if s.Name == name {
				return s.Color + strconv.Itoa(int(s.Dash))
			}
		}
		return "absent"
	}
	f1, f2, f3 := Gaps(viz.Passes, a, b), Gaps(viz.Passes, b), HitRates(a, b)
	if color(f1, "only cache") != color(f2, "only cache") || color(f2, "only cache") != color(f3, "only cache") || color(f1, "only cache") == color(f1, "no cache") {
		t.Fatalf("only cache: %s, %s, %s; no cache %s", color(f1, "only cache"), color(f2, "only cache"), color(f3, "only cache"), color(f1, "no cache"))
	}
	g := Group{Name: "only cache", Trainers: []*Trainer{b}}
	if c := Compare("x", viz.Passes, nil, g); color(c, "only cache") != color(f1, "only cache") {
		t.Fatal("Compare styles the method otherwise")
	}
	if StyleOf("no cache") != viz.MethodStyle(0) || StyleOf("only cache") != viz.MethodStyle(1) {
		t.Fatal("styles are not assigned in the order of first use")
	}
	Check(ForgetAll())
	if StyleOf("only cache") != viz.MethodStyle(0) {
		t.Fatal("ForgetAll kept the styles")
	}
}

// TestEqualTimeTable: the comparison at equal solver time reads every run
// at the end of the shortest one.
func TestEqualTimeTable(t *testing.T) {
	isolated(t)
	tr, te := synthetic(t)
	ctx := context.Background()
	a := Must(Seeds(ctx, "short", NewData("test", tr, te), solver.BCFW{Lambda: 0.01, GapEvery: 1}, []uint64{1, 2}, run.Stop{Passes: 2}))
	b := Must(Seeds(ctx, "long", NewData("test", tr, te), solver.BCFW{Lambda: 0.01, GapEvery: 1, TraceEvery: 1}, []uint64{1}, run.Stop{Passes: 20}))
	T := math.Inf(1)
	for _, g := range []Group{a, b} {
		var ends []float64
		for _, tn := range g.Trainers {
			ends = append(ends, tn.Current().Seconds)
		}
		T = math.Min(T, Median(ends))
	}
	tab := EqualTimeTable(a, b)
	if !strings.Contains(tab.Caption, Cell(T)[:3]) {
		t.Errorf("caption %q, T %v", tab.Caption, T)
	}
	long := b.Trainers[0]
	var want run.Point
	for _, p := range long.Trace() {
		if p.Seconds <= T {
			want = p
		}
	}
	if row := tab.Rows[1]; row[3] != Cell(want.Pass) || row[4] != Cell(want.Gap) || want.Pass >= long.Passes() {
		t.Errorf("long run at T: table %v, trace point at pass %v gap %v (run ends at pass %v)", row, want.Pass, want.Gap, long.Passes())
	}
	cur := long.Current()
	if tab.Rows[1][2] != Cell(cur.Seconds/cur.Pass) {
		t.Errorf("seconds per pass %s, want %s", tab.Rows[1][2], Cell(cur.Seconds/cur.Pass))
	}
}

// TestSessionComparesDefaults: a field a cell leaves zero and the default
// it stands for compare equal (GapEvery 0 and 10, a cache's F 0 and 0.25,
// never as +Inf and as -1), any other value is refused, naming the field.
func TestSessionComparesDefaults(t *testing.T) {
	isolated(t)
	data := syntheticData(t)
	m := solver.BCFW{Lambda: 0.01, Cache: &solver.Cache{}, TraceEvery: 1, GapEvery: math.Inf(1)}
	Must(Must(Session("bcfw", data, m)).Run(2))
	same := []solver.BCFW{m,
		{Lambda: 0.01, Cache: &solver.Cache{F: 0.25, Nu: 0.01, MaxSize: 10}, TraceEvery: 1, GapEvery: -1},
	}
	for _, asked := range same {
		if _, err := Session("bcfw", data, asked); err != nil {
			t.Errorf("%+v: %v", asked, err)
		}
	}
	for _, c := range []struct {
		asked solver.BCFW
		want  string
	}{
		{solver.BCFW{Lambda: 0.01, Cache: &solver.Cache{F: 0.5}, TraceEvery: 1, GapEvery: -1}, "Cache.F is 0.25, the cell asks for 0.5"},
		{solver.BCFW{Lambda: 0.01, TraceEvery: 1, GapEvery: -1}, "Cache is {F:0.25 Nu:0.01 MaxSize:10 InitialGap:0}, the cell asks for none"},
		{solver.BCFW{Lambda: 0.01, Cache: &solver.Cache{}, TraceEvery: 1}, "GapEvery is -1, the cell asks for 0"},
	} {
		if _, err := Session("bcfw", data, c.asked); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error saying %q", c.asked, err, c.want)
		}
	}
}
