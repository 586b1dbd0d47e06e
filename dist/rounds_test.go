package dist

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
)

// chain is a small synthetic chain problem for the rounds' tests.
func chain() datasets.Spec {
	return datasets.Spec{Name: "synthetic", Options: datasets.Options{
		Synthetic: datasets.SyntheticConfig{TrainWords: 24, TestWords: 4, Seed: 7},
	}}
}

// TestRoundsK1IsBCFW: one partition of H passes a round, on prism, is BCFW
// (without gap passes) run H passes at a time, bit for bit: the primal,
// dual and certified gap of every round's w, and the final w.
func TestRoundsK1IsBCFW(t *testing.T) {
	checkRoundsK1(t, chain(), solver.BCFW{Lambda: 0.05, Sampling: run.GapSampling, Seed: 3})
}

// chainBox returns a box of the chain's weights: every third weight at
// most 0.
func chainBox(t *testing.T) *solver.Box { return boxOf(t, chain()) }

// boxOf returns a box of spec's weights that binds at the optimum (of the
// specs here; TestRoundsConvergeWithBox checks that it does): every third
// weight at most 0.
func boxOf(t *testing.T, spec datasets.Spec) *solver.Box {
	t.Helper()
	d, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	upper := make([]float64, d.Train.Dim())
	for j := range upper {
		upper[j] = math.Inf(1)
		if j%3 == 0 {
			upper[j] = 0
		}
	}
	return &solver.Box{Upper: upper}
}

// TestRoundsK1IsBCFWWithBox: the same with a box, through the method's
// JSON to the workers: the rounds carry v, and their primal, dual, gap and
// weights are BCFW-with-the-box's at w = [v].
func TestRoundsK1IsBCFWWithBox(t *testing.T) {
	checkRoundsK1(t, chain(), solver.BCFW{Lambda: 0.05, Sampling: run.GapSampling, Box: chainBox(t), Seed: 3})
}

// TestRoundsHorses: the horses (a problem that bounds its own weights,
// oracles.Bounded: the pairwise weights at most 0 for the graph cuts) on
// prism: one partition is BCFW-with-the-box bit for bit, and with K = 4 the
// weights keep the bounds and the dual never decreases. Skipped without the
// data.
func TestRoundsHorses(t *testing.T) {
	if _, err := datasets.LocateHorses(""); err != nil {
		t.Skipf("no horses data (set FWSTRUCT_DATA): %v", err)
	}
	spec := datasets.Spec{Name: "horses"}
	m := solver.BCFW{Lambda: 1e-3, Seed: 1}
	checkRoundsK1(t, spec, m)
	cfg := Rounds{Method: m, Data: spec, K: 4, Passes: 1, MaxRounds: 6, State: t.TempDir(), Workers: 1}
	res, err := RunRounds(context.Background(), Beam{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	d, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := d.Train.(oracles.Bounded).WeightBounds()
	for j, x := range res.W {
		if (lo != nil && x < lo[j]) || (hi != nil && x > hi[j]) {
			t.Fatalf("w[%d] = %v outside the problem's bounds", j, x)
		}
	}
	for r := 1; r < len(res.Trace); r++ {
		if a, b := res.Trace[r-1].Dual, res.Trace[r].Dual; b < a-1e-12*(1+math.Abs(a)) {
			t.Fatalf("the dual decreased from round %d to %d: %v to %v", r, r+1, a, b)
		}
	}
	if last := res.Trace[len(res.Trace)-1]; !(last.Gap >= 0) || math.Abs(last.Primal-last.Dual-last.Gap) > 1e-9 {
		t.Errorf("the last round: %+v", last)
	}
}

// checkRoundsK1 runs m's rounds on spec with one partition on prism and
// compares them with BCFW's, bit for bit.
func checkRoundsK1(t *testing.T, spec datasets.Spec, m solver.BCFW) {
	t.Helper()
	ctx := context.Background()
	cfg := Rounds{Method: m, Data: spec, K: 1, Passes: 2, MaxRounds: 4, State: t.TempDir(), Workers: 1}
	res, err := RunRounds(ctx, Beam{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	d, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	ref := m
	ref.GapEvery = -1
	s, err := ref.New(d.Train, run.WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Trace) != 4 || res.Status != "rounds" {
		t.Fatalf("%d rounds, %s", len(res.Trace), res.Status)
	}
	bits := math.Float64bits
	for r, pt := range res.Trace {
		if _, err := s.Run(ctx, run.Stop{Passes: float64(2 * (r + 1))}); err != nil {
			t.Fatal(err)
		}
		e, err := s.Evaluate()
		if err != nil {
			t.Fatal(err)
		}
		if bits(e.Primal) != bits(pt.Primal) || bits(e.Dual) != bits(pt.Dual) || bits(e.Gap) != bits(pt.Gap) ||
			pt.OracleCalls != s.OracleCalls() || pt.Passes != s.Passes() {
			t.Errorf("round %d: %+v; BCFW primal %v dual %v gap %v, %d calls", r+1, pt, e.Primal, e.Dual, e.Gap, s.OracleCalls())
		}
	}
	for j, v := range s.Weights() {
		if bits(v) != bits(res.W[j]) {
			t.Fatalf("w[%d] = %v, BCFW's %v", j, res.W[j], v)
		}
	}
}

// blobs writes a 3-class svmlight training set of n points in the plane
// (and the same as its test set) and returns its spec.
func blobs(t *testing.T, n int) datasets.Spec {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 3))
	var b strings.Builder
	for i := range n {
		c := i % 3
		fmt.Fprintf(&b, "%d 1:%.5f 2:%.5f\n", c+1, float64(c)+0.9*rng.NormFloat64(), float64(c%2)+0.9*rng.NormFloat64())
	}
	path := filepath.Join(t.TempDir(), "blobs.svm")
	for _, name := range []string{path, path + ".t"} {
		if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return datasets.Spec{Name: "svmlight", Options: datasets.Options{Path: path}}
}

// TestRoundsConverge: K = 4 partitions, adding and averaging, on prism,
// reach BCFW's optimum: a certified gap below 1e-3 (0.1% of the primal)
// and the primal within it of BCFW's.
func TestRoundsConverge(t *testing.T) {
	m := solver.BCFW{Lambda: 1, Seed: 1}
	spec := blobs(t, 40)
	opt, _ := bcfwOptimum(t, spec, m)
	for c, res := range checkConverges(t, spec, m, 2, opt.Primal) {
		if g := res.Trace[0].Gap; !math.IsNaN(g) {
			t.Errorf("%v: round 1 has a gap %v, but gaps are computed every 2 rounds", c, g)
		}
	}
}

// bcfwOptimum returns the last point and the weights of BCFW m run on
// spec's training set to a gap of 1e-6.
func bcfwOptimum(t *testing.T, spec datasets.Spec, m solver.BCFW) (run.Point, []float64) {
	t.Helper()
	d, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.New(d.Train, run.WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(context.Background(), run.Stop{Passes: 3000, Gap: 1e-6}); err != nil {
		t.Fatal(err)
	}
	opt, err := s.Current()
	if err != nil {
		t.Fatal(err)
	}
	return opt, s.Weights()
}

// checkConverges runs m's rounds on spec with K = 4 partitions, adding and
// averaging, on prism, to a certified gap of 1e-3 (every gapEvery rounds),
// checks that they reach it at the primal opt, and returns their results.
func checkConverges(t *testing.T, spec datasets.Spec, m solver.BCFW, gapEvery int, opt float64) map[solver.Combine]*RoundsResult {
	t.Helper()
	out := map[solver.Combine]*RoundsResult{}
	for _, c := range []solver.Combine{solver.Adding, solver.Averaging} {
		cfg := Rounds{Method: m, Data: spec, K: 4, Passes: 2, Combine: c, Gap: 1e-3, MaxRounds: 100, GapEvery: gapEvery,
			State: t.TempDir(), Workers: 1}
		res, err := RunRounds(context.Background(), Beam{}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		last := res.Trace[len(res.Trace)-1]
		t.Logf("%v: %d rounds, %.0f passes, gap %.3g, primal %.6g (BCFW %.6g)", c, last.Round, last.Passes, last.Gap, last.Primal, opt)
		if res.Status != "gap" || !(last.Gap <= 1e-3) || math.Abs(last.Primal-opt) > 1e-3 || math.Abs(last.Primal-last.Dual-last.Gap) > 1e-9 {
			t.Errorf("%v: %s after %d rounds at gap %v, primal %v dual %v; BCFW's primal %v", c, res.Status, last.Round, last.Gap, last.Primal, last.Dual, opt)
		}
		out[c] = res
	}
	return out
}

// TestRoundsResume: a run killed in the middle of a round continues with
// Resume from its last complete round to the same result as a run that
// was not interrupted, bit for bit, reading the partitions' state.
func TestRoundsResume(t *testing.T) {
	checkResume(t, solver.BCFW{Lambda: 0.1, Seed: 2})
}

// TestRoundsResumeWithBox: the same with a box (the state carries v, not
// w = [v], which would lose what the box cut off).
func TestRoundsResumeWithBox(t *testing.T) {
	checkResume(t, solver.BCFW{Lambda: 0.1, Box: chainBox(t), Seed: 2})
}

// checkResume kills a run of m inside its round 4 and resumes it.
func checkResume(t *testing.T, m solver.BCFW) {
	t.Helper()
	ctx := context.Background()
	whole := Rounds{Method: m, Data: chain(), K: 3, Passes: 2, MaxRounds: 6, State: t.TempDir(), Workers: 1}
	want, err := RunRounds(ctx, Beam{}, whole)
	if err != nil {
		t.Fatal(err)
	}
	cut := whole
	cut.State, cut.MaxRounds = t.TempDir(), 3
	if _, err := RunRounds(ctx, Beam{}, cut); err != nil {
		t.Fatal(err)
	}
	// Round 4 dies after one partition wrote its state.
	st, err := openState(ctx, cut.State)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := st.read(ctx, "run.json")
	id := strings.Split(string(b), `"`)[3]
	outs, err := runRound(ctx, Local{}, id, cut, 4, false, true)
	if err != nil || len(outs) != 3 {
		t.Fatal(outs, err)
	}
	partitions = partitionCache{} // the workers are gone
	again := whole
	again.State, again.Resume = cut.State, true
	got, err := RunRounds(ctx, Beam{}, again)
	if err != nil {
		t.Fatal(err)
	}
	if got.From != 3 || len(got.Trace) != 6 {
		t.Fatalf("resumed from %d, %d rounds", got.From, len(got.Trace))
	}
	bits := math.Float64bits
	for r := range want.Trace {
		a, b := want.Trace[r], got.Trace[r]
		if bits(a.Primal) != bits(b.Primal) || bits(a.Dual) != bits(b.Dual) || bits(a.Gap) != bits(b.Gap) || a.OracleCalls != b.OracleCalls {
			t.Errorf("round %d: %+v, uninterrupted %+v", r+1, b, a)
		}
	}
	for j := range want.W {
		if bits(want.W[j]) != bits(got.W[j]) {
			t.Fatalf("w[%d]: %v, uninterrupted %v", j, got.W[j], want.W[j])
		}
	}
	if _, err := RunRounds(ctx, Local{}, whole); err == nil || !strings.Contains(err.Error(), "holds a run already") {
		t.Errorf("a second run at the same state: %v", err)
	}
	other := again
	other.Passes = 3
	if _, err := RunRounds(ctx, Local{}, other); err == nil || !strings.Contains(err.Error(), "other settings") {
		t.Errorf("resume with other settings: %v", err)
	}
}

// TestRoundsConvergeWithBox: K = 4 partitions with a box that binds (the
// unconstrained optimum breaks it), adding and averaging, on prism: a
// certified gap below 1e-3 at BCFW-with-the-box's primal, the weights in
// the box, and a dual that never decreases from a round to the next.
func TestRoundsConvergeWithBox(t *testing.T) {
	spec := blobs(t, 40)
	box := boxOf(t, spec)
	m := solver.BCFW{Lambda: 1, Seed: 1}
	free, wFree := bcfwOptimum(t, spec, m)
	m.Box = box
	opt, _ := bcfwOptimum(t, spec, m)
	binds := false
	for j, x := range wFree {
		binds = binds || x > box.Upper[j]+1e-6
	}
	if !binds || !(opt.Primal > free.Primal+1e-6) {
		t.Fatalf("the box does not bind: primal %v without it, %v with it", free.Primal, opt.Primal)
	}
	for c, res := range checkConverges(t, spec, m, 1, opt.Primal) {
		for j, x := range res.W {
			if x > box.Upper[j] {
				t.Fatalf("%v: w[%d] = %v above its bound %v", c, j, x, box.Upper[j])
			}
		}
		for r := 1; r < len(res.Trace); r++ {
			if a, b := res.Trace[r-1].Dual, res.Trace[r].Dual; b < a-1e-12*(1+math.Abs(a)) {
				t.Fatalf("%v: the dual decreased from round %d to %d: %v to %v", c, r, r+1, a, b)
			}
		}
	}
}

func TestRoundsErrors(t *testing.T) {
	ctx := context.Background()
	m := solver.BCFW{Lambda: 0.1}
	dir := t.TempDir()
	for _, c := range []struct {
		cfg  Rounds
		want string
	}{
		{Rounds{Method: m, Data: chain(), K: 25, Passes: 1, MaxRounds: 1, State: dir + "/a"}, "25 partitions of 24 examples"},
		{Rounds{Method: m, Data: chain(), K: 0, Passes: 1, MaxRounds: 1, State: dir + "/b"}, "0 partitions"},
		{Rounds{Method: m, Data: chain(), K: 2, Passes: 0.5, MaxRounds: 1, State: dir + "/c"}, "0.5 local passes"},
		{Rounds{Method: m, Data: chain(), K: 2, Passes: 1, State: dir + "/d"}, "no stop"},
		{Rounds{Method: m, Data: chain(), K: 2, Passes: 1, MaxRounds: 1}, "no state location"},
		{Rounds{Method: m, Data: chain(), K: 2, Passes: 1, MaxRounds: 1, State: "/proc/nope"}, "cannot be written"},
		{Rounds{Method: m, Data: chain(), K: 2, Passes: 1, MaxRounds: 1, State: dir + "/e", Resume: true}, "nothing to resume"},
		{Rounds{Method: solver.BCFW{Lambda: 0.1, Step: solver.Pairwise}, Data: chain(), K: 2, Passes: 1, MaxRounds: 1, State: dir + "/f", Combine: solver.Averaging}, "pairwise and away"},
		{Rounds{Method: solver.BCFW{Lambda: 0.1, Box: &solver.Box{Upper: []float64{0}}}, Data: chain(), K: 2, Passes: 1, MaxRounds: 1, State: dir + "/g"}, "box upper bound has 1 entries"},
		{Rounds{Method: m, Data: chain(), K: 2, Passes: 1, MaxRounds: 1, State: older(t), Resume: true}, "made by an older fwstruct"},
	} {
		if _, err := RunRounds(ctx, Local{}, c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
}

// older returns a state location holding the run.json of a run made before
// the state's format was recorded (its rounds stored w, not v).
func older(t *testing.T) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "run.json"), []byte(`{"run": "0123456789abcdef", "config": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
