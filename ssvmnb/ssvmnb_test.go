package ssvmnb

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/viz"
)

var (
	dataOnce    sync.Once
	train, test *oracles.Chain
)

func synthetic(t testing.TB) (*oracles.Chain, *oracles.Chain) {
	t.Helper()
	dataOnce.Do(func() {
		var err error
		train, test, err = datasets.SyntheticOCR(datasets.SyntheticConfig{TrainWords: 60, TestWords: 40, Seed: 5})
		if err != nil {
			panic(err)
		}
	})
	return train, test
}

// recorder is a display that records everything shown.
type recorder struct {
	html, updates []string
	markdown      []string
	ids           []string
	pngs          [][]byte
	syncs         int
}

func (r *recorder) Active() bool      { return true }
func (r *recorder) HTML(h string)     { r.html = append(r.html, h) }
func (r *recorder) PNG(p []byte)      { r.pngs = append(r.pngs, p) }
func (r *recorder) Markdown(m string) { r.markdown = append(r.markdown, m) }
func (r *recorder) NewID() string     { return fmt.Sprintf("id%d", len(r.html)+len(r.updates)) }
func (r *recorder) Sync()             { r.syncs++ }
func (r *recorder) UpdateHTML(id, h string) {
	r.ids = append(r.ids, id)
	r.updates = append(r.updates, h)
}

func record(t *testing.T) *recorder {
	r := &recorder{}
	old := output
	output = r
	t.Cleanup(func() { output = old })
	return r
}

// TestMain keeps every session file of the tests (and of the examples that
// do not set SessionDir) out of the source tree: $FWSTRUCT_SESSION is a
// temporary folder, removed at the end.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ssvmnb-test-session")
	if err != nil {
		panic(err)
	}
	os.Setenv("FWSTRUCT_SESSION", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// isolated gives the test a session folder of its own (no notebook named)
// and collects the notes Load and Fork write.
func isolated(t *testing.T) *bytes.Buffer {
	t.Helper()
	oldDir, oldNotes := SessionDir, Notes
	SessionDir = t.TempDir()
	resetNotebook()
	var notes bytes.Buffer
	Notes = &notes
	t.Cleanup(func() { SessionDir, Notes = oldDir, oldNotes; resetNotebook() })
	return &notes
}

// resetNotebook forgets the name Notebook gave (a fresh program).
func resetNotebook() {
	current.Lock()
	current.name, current.err = "", nil
	current.Unlock()
}

// syntheticData is the synthetic data as Load returns it.
func syntheticData(t *testing.T) *Data {
	t.Helper()
	d, err := Load("synthetic", datasets.Options{Synthetic: datasets.SyntheticConfig{TrainWords: 60, TestWords: 40, Seed: 5}})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// sameWeights fails unless two trainers hold bitwise equal weights.
func sameWeights(t *testing.T, a, b *Trainer) {
	t.Helper()
	wa, wb := a.Weights(), b.Weights()
	for j := range wa {
		if wa[j] != wb[j] {
			t.Fatalf("weights of %s and %s differ at %d: %v vs %v", a.Name, b.Name, j, wa[j], wb[j])
		}
	}
}

// TestTrainerSaveLoadContinuesIdentically: N passes in one go and N/2 +
// N/2 across a save/load give the same weights and trace.
func TestTrainerSaveLoadContinuesIdentically(t *testing.T) {
	tr, te := synthetic(t)
	for _, cfg := range []solver.BCFW{
		{Lambda: 0.01, Seed: 3, GapEvery: 2},
		{Lambda: 0.01, Seed: 3, GapEvery: 2, Sampling: run.GapSampling, Step: solver.Pairwise, Cache: &solver.Cache{}, Average: run.WeightedAverage},
	} {
		a, err := New("a", NewData("test", tr, te), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Run(12); err != nil {
			t.Fatal(err)
		}
		b, _ := New("b", NewData("test", tr, te), cfg)
		if _, err := b.Run(6); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "trainer.gob")
		if err := b.saveFile(path); err != nil {
			t.Fatal(err)
		}
		c, err := loadTrainerFile(path, NewData("test", tr, te))
		if err != nil {
			t.Fatal(err)
		}
		if c.Name != "b" {
			t.Fatalf("name %q", c.Name)
		}
		if _, err := c.Run(6); err != nil { // Run(6) twice ends where Run(12) does
			t.Fatal(err)
		}
		wa, wc := a.Weights(), c.Weights()
		for j := range wa {
			if wa[j] != wc[j] {
				t.Fatalf("weights differ at %d", j)
			}
		}
		// The gap passes are the same; the split run has one more
		// observe-only point, the end of its first part.
		var ra, rc []string
		for _, tr := range [][]run.Point{a.Trace(), c.Trace()} {
			var r []string
			for _, p := range tr {
				if p.Refresh {
					p.Seconds, p.EvalSeconds = 0, 0
					r = append(r, fmt.Sprint(p))
				}
			}
			if ra == nil {
				ra = r
			} else {
				rc = r
			}
		}
		if fmt.Sprint(ra) != fmt.Sprint(rc) {
			t.Fatalf("gap passes differ:\n%v\n%v", ra, rc)
		}
	}
	if _, err := loadTrainerFile(filepath.Join(t.TempDir(), "missing"), NewData("test", tr, te)); err == nil {
		t.Fatal("loaded a missing file")
	}
}

func decodePNG(t *testing.T, b []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if r := img.Bounds(); r.Dx() != figureWidth || r.Dy() != figureHeight {
		t.Fatalf("figure of %v", r)
	}
}

// TestLiveChart: in a notebook, Run updates one transient block in place,
// clears it at the end and shows a final static figure.
func TestLiveChart(t *testing.T) {
	tr, te := synthetic(t)
	rec := record(t)
	tn, err := New("live", NewData("test", tr, te), solver.BCFW{Lambda: 0.01, GapEvery: 1})
	if err != nil {
		t.Fatal(err)
	}
	tn.LiveEvery = 1 // every trace point
	if _, err := tn.Run(5); err != nil {
		t.Fatal(err)
	}
	if len(rec.updates) < 3 {
		t.Fatalf("%d live updates", len(rec.updates))
	}
	for _, id := range rec.ids {
		if id != rec.ids[0] {
			t.Fatal("live updates went to different blocks")
		}
	}
	if !strings.Contains(rec.updates[0], "data:image/png;base64,") || rec.updates[len(rec.updates)-1] != "" {
		t.Fatalf("live block not an image, or not cleared at the end")
	}
	if len(rec.pngs) != 1 || rec.syncs == 0 {
		t.Fatalf("final figures %d, syncs %d", len(rec.pngs), rec.syncs)
	}
	decodePNG(t, rec.pngs[0])

	// Outside a notebook the same calls only compute.
	output = gonbDisplay{}
	tn2, _ := New("quiet", NewData("test", tr, te), solver.BCFW{Lambda: 0.01})
	if _, err := tn2.Run(2); err != nil || tn2.Passes() < 2 {
		t.Fatalf("run outside a notebook: %v", err)
	}
	if err := tn2.Show(); err != nil {
		t.Fatal(err)
	}
}

// TestCompareSweepsAndTables exercises the comparison and sweep helpers and
// renders every figure they build.
func TestCompareSweepsAndTables(t *testing.T) {
	tr, te := synthetic(t)
	rec := record(t)
	ctx := context.Background()
	stop := run.Stop{Passes: 8}
	uni, err := Seeds(ctx, "uniform", NewData("test", tr, te), solver.BCFW{Lambda: 0.01, GapEvery: 2}, []uint64{1, 2, 3}, stop)
	if err != nil {
		t.Fatal(err)
	}
	gap, err := Seeds(ctx, "gap sampling", NewData("test", tr, te), solver.BCFW{Lambda: 0.01, GapEvery: 2, Sampling: run.GapSampling}, []uint64{1, 2, 3}, stop)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range rec.updates {
		if strings.Contains(u, "data:image/png") {
			t.Fatal("seed runs should not show live charts")
		}
	}
	if len(rec.updates) == 0 || !strings.Contains(rec.html[len(rec.html)-1], "Seeds gap sampling: 3 runs in") {
		t.Fatalf("no progress line for Seeds: updates %q", rec.updates)
	}
	fig := Compare("gap", viz.Passes, nil, uni, gap)
	if len(fig.Series) != 2 || len(fig.Series[0].Lo) == 0 {
		t.Fatalf("compare figure %+v", fig.Series)
	}
	for k := range fig.Series[0].X {
		s := fig.Series[0]
		if !(s.Lo[k] <= s.Y[k] && s.Y[k] <= s.Hi[k]) {
			t.Fatalf("band does not contain the median at %d", k)
		}
	}
	table := SummaryTable([]float64{0.5, 0.2}, uni, gap)
	if len(table.Rows) != 2 || !strings.Contains(table.toHTML(), "passes to gap 0.5") || !strings.Contains(table.String(), "gap sampling") {
		t.Fatalf("summary table:\n%s", table)
	}
	table.Show()

	sweep, err := GapEverySweep(solver.BCFW{Lambda: 0.01, Sampling: run.GapSampling}, []float64{1, 5, math.Inf(1)},
		run.Stop{Passes: 8}, 0.5).Run(ctx, NewData("test", tr, te))
	if err != nil {
		t.Fatal(err)
	}
	if len(sweep.Table().Rows) != 3 {
		t.Fatal("sweep table")
	}
	cache, err := CacheSweep(solver.BCFW{Lambda: 0.01, GapEvery: 2}, []float64{0.1, 1}, []float64{0.01, 1}, run.Stop{Passes: 6}, 0.5).Run(ctx, NewData("test", tr, te))
	if err != nil {
		t.Fatal(err)
	}
	hm := cache.HitRateHeatMap()
	if len(hm.Cells) != 2 || len(hm.Cells[0]) != 2 {
		t.Fatalf("heat map %v", hm.Cells)
	}
	figures := map[string]*viz.Figure{
		"compare": fig, "sweep bars": sweep.Figure(), "sweep curves": sweep.curves(viz.Seconds), "heat map": hm,
		"staleness": viz.StalenessCurves(VizRuns(gap.Trainers...)), "speedup": Speedup(gap.Trainers...),
		"hit rates": HitRates(cache.Trainers[0]...), "losses": Losses(uni.Trainers...), "gaps": Gaps(viz.Passes, uni.Trainers...),
		"objectives": Objectives(viz.Seconds, uni.Trainers...),
	}
	for name, f := range figures {
		before := len(rec.pngs)
		if err := Show(f); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(rec.pngs) != before+1 {
			t.Fatalf("%s: not shown", name)
		}
		decodePNG(t, rec.pngs[len(rec.pngs)-1])
		if err := ShowInteractive(f); err != nil {
			t.Fatalf("%s interactive: %v", name, err)
		}
		if h := rec.html[len(rec.html)-1]; !strings.HasPrefix(h, "<iframe") {
			t.Fatalf("%s: interactive output is not an iframe", name)
		}
	}
	if _, err := (Sweep{}).Run(ctx, NewData("test", tr, te)); err == nil {
		t.Fatal("empty sweep accepted")
	}
}

func TestWords(t *testing.T) {
	tr, _ := synthetic(t)
	rec := record(t)
	w := make([]float64, tr.Dim())
	h, err := wordHTML(tr, 0, w)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h, "data:image/png;base64,") || !strings.Contains(h, "truth: ") {
		t.Fatalf("word HTML %q", h)
	}
	img, err := wordImage(tr, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := img.Bounds().Dx(), tr.SeqLen(0)*(8*2+2); got != want {
		t.Fatalf("word image width %d, want %d", got, want)
	}
	if err := ShowPredictions(tr, w, 0, 1, 2); err != nil || len(rec.html) != 1 {
		t.Fatalf("ShowPredictions: %v", err)
	}
	other, _ := oracles.NewChain(3, 2, []oracles.Sequence{{Labels: []int32{0}, Features: []oracles.SparseVec{{}}}})
	if _, err := wordHTML(other, 0, make([]float64, other.Dim())); err == nil {
		t.Fatal("non-OCR chain accepted")
	}
	if _, err := wordHTML(tr, tr.Len(), w); err == nil {
		t.Fatal("example out of range accepted")
	}
}

func TestTrainerErrors(t *testing.T) {
	tr, te := synthetic(t)
	if _, err := New("bad", NewData("test", tr, te), solver.BCFW{}); err == nil {
		t.Fatal("lambda 0 accepted")
	}
	tn, _ := New("t", NewData("test", tr, te), solver.BCFW{Lambda: 1})
	if _, err := tn.Run(0); err == nil {
		t.Fatal("Run(0) accepted")
	}
	if err := tn.Show(); err == nil {
		t.Fatal("Show before any run should say there is nothing to show")
	}
	if tn.TestLoss() < 0 {
		t.Fatal("test loss")
	}
}

// TestSessionContinuesAcrossCells simulates GoNB cells, each a fresh
// program that asks the session for its trainer and runs a few passes: the
// run continues, identical to one run in a single cell.
func TestSessionContinuesAcrossCells(t *testing.T) {
	tr, te := synthetic(t)
	isolated(t)
	cfg := solver.BCFW{Lambda: 0.01, Seed: 4, GapEvery: 2, Sampling: run.GapSampling}
	for cell := 1; cell <= 3; cell++ {
		tn, err := Session("bcfw", NewData("synthetic", tr, te), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := tn.Passes(), float64(0); cell == 1 && got != want {
			t.Fatalf("new session at %v passes", got)
		}
		if _, err := tn.Run(4); err != nil {
			t.Fatal(err)
		}
	}
	tn, err := Session("bcfw", NewData("synthetic", tr, te), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := New("ref", NewData("test", tr, te), cfg)
	if _, err := ref.Run(tn.Passes()); err != nil {
		t.Fatal(err)
	}
	if a, b := fmt.Sprint(tn.Weights()), fmt.Sprint(ref.Weights()); a != b {
		t.Fatal("three cells of 4 passes differ from one run")
	}
	if tn.Passes() < 12 {
		t.Fatalf("session made %v passes", tn.Passes())
	}
	// Another configuration under the same name is refused; Forget resets.
	other := cfg
	other.Step = solver.Pairwise
	if _, err := Session("bcfw", NewData("synthetic", tr, te), other); err == nil {
		t.Fatal("session accepted another configuration")
	}
	if err := ForgetAll(); err != nil {
		t.Fatal(err)
	}
	fresh, err := Session("bcfw", NewData("synthetic", tr, te), other)
	if err != nil || fresh.Passes() != 0 {
		t.Fatalf("after Forget: %v passes, %v", fresh.Passes(), err)
	}
	for _, bad := range []string{"", "a/b", ".."} {
		if _, err := Session(bad, NewData("synthetic", tr, te), cfg); err == nil {
			t.Fatalf("session name %q accepted", bad)
		}
	}
}

// TestCurrent: a Run that ends between gap passes ends with an exact
// evaluation of its final iterate, appended to the trace (observe-only:
// not counted), and the progress figure ends there.
func TestCurrent(t *testing.T) {
	tr, te := synthetic(t)
	tn, _ := New("cur", NewData("test", tr, te), solver.BCFW{Lambda: 0.01, GapEvery: 5})
	if _, err := tn.Run(8); err != nil {
		t.Fatal(err)
	}
	last, cur := tn.Last(), tn.Current()
	if fmt.Sprint(last) != fmt.Sprint(cur) || cur.Steps != tn.Solver().(*solver.Solver).Steps() || cur.Refresh || cur.Pass != tn.Passes() || math.Abs(cur.Primal-cur.Dual-cur.Gap) > 1e-9 {
		t.Fatalf("last %+v, current %+v", last, cur)
	}
	ev, err := tn.Solver().Evaluate()
	if err != nil || ev.Gap != cur.Gap || ev.Primal != cur.Primal {
		t.Fatalf("current gap %v, a fresh evaluation %v (%v)", cur.Gap, ev.Gap, err)
	}
	if n := len(tn.Trace()); tn.Current().Pass != cur.Pass || len(tn.Trace()) != n {
		t.Fatal("Current changed the run")
	}
	f := tn.ProgressFigure()
	if xs := f.Series[0].X; xs[len(xs)-1] != cur.Pass || len(f.Notes) != 0 {
		t.Fatalf("figure ends at %v (notes %q), current pass %v", xs[len(xs)-1], f.Notes, cur.Pass)
	}
}

// loadTrainerFile reads a trainer from a file written by saveFile.
func loadTrainerFile(path string, data *Data) (*Trainer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := LoadTrainer(f, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// lambdaSweep varies the regularization parameter of any method.
func lambdaSweep(base run.Method, values []float64, stop run.Stop, target float64) Sweep {
	return Sweep{Param: "lambda", Values: values, Stop: stop, Target: target,
		Method: func(v float64) run.Method { return base.WithLambda(v) }}
}
