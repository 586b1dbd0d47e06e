package papers

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/ssvmnb"
	"github.com/fwstruct/fwstruct/viz"
)

// TestMultiPlaneInSessions: multi-plane BCFW runs in a session like any
// configuration; a Fork switching it on records the switch and is found
// again when its cell runs twice; the figures and the table show what the
// traces hold, and leave out (noted) what a run did not record.
func TestMultiPlaneInSessions(t *testing.T) {
	isolated(t)
	data := syntheticData(t)
	base := solver.BCFW{Lambda: 0.01, Sampling: run.Permutation, GapEvery: math.Inf(1), TraceEvery: 1, Average: run.WeightedAverage}
	mp := solver.MultiPlane{Lambda: 0.01, GapEvery: math.Inf(1), TraceEvery: 1, Averaging: true, Cost: &solver.CostRule{Ratio: 20}}
	bcfw := ssvmnb.Must(ssvmnb.Session("bcfw", data, base))
	ssvmnb.Must(bcfw.Run(4))
	m := ssvmnb.Must(ssvmnb.Session("mp", data, mp))
	ssvmnb.Must(m.Run(6))
	// A cell asking for the stored run again gets it; BCFW does not.
	if again := ssvmnb.Must(ssvmnb.Session("mp", data, mp)); again.Passes() != m.Passes() {
		t.Fatalf("stored multi-plane run at pass %v, the session returned pass %v", m.Passes(), again.Passes())
	}
	if _, err := ssvmnb.Session("mp", data, base); err == nil || !strings.Contains(err.Error(), "holds a mp-bcfw run, the cell asks for bcfw") {
		t.Fatalf("asking for the multi-plane run without it: %v", err)
	}

	on := mp
	on.Lambda = 0 // the run's
	f := ssvmnb.Must(ssvmnb.Must(ssvmnb.Resume("bcfw")).Fork("bcfw then mp", on))
	tr := f.Trace()
	if ev := tr[len(tr)-1].Event; !strings.Contains(ev, "multi-plane off -> N=1000 T=10 M=1000 rule cost 20") {
		t.Fatalf("fork event %q", ev)
	}
	ssvmnb.Must(f.Run(3))
	if again := ssvmnb.Must(ssvmnb.Must(ssvmnb.Resume("bcfw")).Fork("bcfw then mp", on)); again.Passes() != f.Passes() {
		t.Fatal("running the fork cell again did not return the stored fork")
	}
	// Another fork under that name is refused, and the message says which
	// multi-plane settings the stored one has.
	_, err := ssvmnb.Must(ssvmnb.Resume("bcfw")).Fork("bcfw then mp", solver.MultiPlane{T: 3})
	if err == nil || !strings.Contains(err.Error(), "mp-bcfw (N=1000 T=10 M=1000 rule cost 20)") {
		t.Fatalf("a different fork under a stored name: %v", err)
	}

	ts := []*ssvmnb.Trainer{bcfw, m, f}
	best := BestDual(ts...)
	for _, tr := range ts {
		for _, p := range tr.Trace() {
			if p.Dual > best || p.DualAvg > best {
				t.Fatalf("%s: dual %v (avg %v) above BestDual %v", tr.Name, p.Dual, p.DualAvg, best)
			}
		}
	}
	sub := Suboptimality(viz.OracleCalls, math.NaN(), ts...)
	if len(sub.Series) != 2*len(ts) {
		t.Fatalf("%d suboptimality curves, want iterate and average of %d runs", len(sub.Series), len(ts))
	}
	for k, s := range sub.Series {
		tr := ts[k/2].Trace()
		// The fork's curves start where it leaves bcfw's history, which
		// bcfw's curves draw.
		if start := len(tr) - len(s.Y); ts[k/2] == f && start != len(bcfw.Trace())-1 || ts[k/2] != f && start != 0 {
			t.Fatalf("%s: %d points of %d drawn", s.Name, len(s.Y), len(tr))
		}
		tr = tr[len(tr)-len(s.Y):]
		for j, y := range s.Y {
			want := tr[j].Primal - best
			if k%2 == 1 {
				want = tr[j].PrimalAvg - best
			}
			if s.X[j] != float64(tr[j].OracleCalls) || !(y == want || math.IsNaN(y) && math.IsNaN(want)) || y < -1e-12 {
				t.Fatalf("%s point %d: (%v, %v), want (%v, %v >= 0)", s.Name, j, s.X[j], y, tr[j].OracleCalls, want)
			}
		}
	}

	sizes, passes := WorkingSets(viz.Seconds, ts...)
	for _, fig := range []*viz.Figure{sizes, passes} {
		if len(fig.Series) != 2 || len(fig.Notes) != 1 || !strings.Contains(fig.Notes[0], "bcfw") {
			t.Fatalf("%s: %d curves, notes %q: want mp and the fork, bcfw noted", fig.Title, len(fig.Series), fig.Notes)
		}
		if err := fig.WritePNG(io.Discard, 720, 420); err != nil {
			t.Fatal(err)
		}
	}
	// The fork records working sets only from the fork on.
	ft := f.Trace()
	if fy := sizes.Series[1].Y; !math.IsNaN(fy[0]) || fy[len(fy)-1] != ft[len(ft)-1].WorkingSetMean {
		t.Fatalf("working-set sizes of the fork %v", fy)
	}
	for j, p := range m.Trace() {
		if sizes.Series[0].Y[j] != p.WorkingSetMean || passes.Series[0].X[j] != p.Seconds || !sameValue(passes.Series[0].Y[j], p.ApproxPassesLast) {
			t.Fatalf("Fig. 6 point %d differs from the trace point %+v", j, p)
		}
	}
	if !(m.Current().ApproxPasses > 0) || !(m.Current().WorkingSetMean > 1) {
		t.Fatalf("the multi-plane run made no approximate pass: %+v", m.Current())
	}
	only, _ := WorkingSets(viz.Seconds, bcfw)
	if len(only.Series) != 0 || len(only.Notes) != 1 || !strings.Contains(only.Notes[0], "bcfw") {
		t.Fatalf("BCFW alone: %d curves, notes %q", len(only.Series), only.Notes)
	}

	// The table reads the first point at or below each target off the traces.
	st := SuboptimalityTable([]float64{0.5, 1e-9}, math.NaN(), ts...)
	for k, tr := range ts {
		want := "not reached"
		for _, p := range tr.Trace() {
			if p.Primal-best <= 0.5 || p.PrimalAvg-best <= 0.5 {
				want = ssvmnb.Cell(p.Pass) + " / " + ssvmnb.Cell(p.Seconds)
				break
			}
		}
		if st.Rows[k][1] != want || st.Rows[k][2] != "not reached" && tr != m {
			t.Fatalf("%s: %q, %q; want %q first", tr.Name, st.Rows[k][1], st.Rows[k][2], want)
		}
	}
	if st.Rows[0][1] == "not reached" {
		t.Fatal("no run got within 0.5 of the best dual")
	}

	tab := OracleShareTable(ts...)
	if len(tab.Rows) != 3 {
		t.Fatalf("%d rows", len(tab.Rows))
	}
	if tab.Rows[0][4] != "-" || tab.Rows[1][4] == "-" {
		t.Fatalf("oracle time shares %q (bcfw: not recorded) and %q (mp)", tab.Rows[0][4], tab.Rows[1][4])
	}
	if s := m.Current().OracleTimeShare; !(s > 0 && s <= 1) {
		t.Fatalf("oracle time share %v", s)
	}
}

func sameValue(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

// Multi-plane BCFW in a notebook: a BCFW run forked to MP-BCFW with the
// deterministic cost rule, and the data of Shah et al.'s Fig. 6.
func ExampleWorkingSets() {
	dir, _ := os.MkdirTemp("", "session")
	defer os.RemoveAll(dir)
	ssvmnb.SessionDir = dir
	ssvmnb.Check(ssvmnb.ForgetAll())

	data := ssvmnb.Must(ssvmnb.Load("synthetic", datasets.Options{Synthetic: datasets.SyntheticConfig{TrainWords: 50, Seed: 1}}))
	m := solver.BCFW{Lambda: 0.02, Sampling: run.Permutation, GapEvery: -1, TraceEvery: 1}
	bcfw := ssvmnb.Must(ssvmnb.Session("bcfw", data, m))
	ssvmnb.Must(bcfw.Run(3))
	// The same run as multi-plane BCFW (its lambda the run's), with the
	// deterministic cost rule.
	mp := ssvmnb.Must(bcfw.Fork("mp-bcfw", solver.MultiPlane{GapEvery: -1, TraceEvery: 1, Cost: &solver.CostRule{Ratio: 50}}))
	tr := mp.Trace()
	fmt.Println(tr[len(tr)-1].Event)
	ssvmnb.Must(mp.Run(5))

	sizes, passes := WorkingSets(viz.Seconds, bcfw, mp)
	fmt.Println(len(sizes.Series), len(passes.Series), sizes.Notes)
	cur := mp.Current()
	fmt.Println(cur.Pass, cur.ApproxPasses > 0, cur.WorkingSetMean > 1)
	fmt.Println(BestDual(bcfw, mp) == BestDual(mp)) // MP-BCFW reached the best dual
	// Output:
	// fork: multi-plane off -> N=1000 T=10 M=1000 rule cost 50
	// 1 1 [not shown: [bcfw] (no multi-plane BCFW)]
	// 8 true true
	// true
}
