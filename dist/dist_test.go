package dist

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/tune"
)

func TestMain(m *testing.M) {
	flag.Parse()
	beam.Init()
	os.Exit(withTempDir(m.Run))
}

// withTempDir runs fn with TMPDIR a directory of its own, removed after it:
// Beam leaves a file in the temporary directory at every run (an empty
// stand-in for the worker binary in loopback mode).
func withTempDir(fn func() int) int {
	dir, err := os.MkdirTemp("", "fwstruct-dist-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	os.Setenv("TMPDIR", dir)
	return fn()
}

// synthetic is a small synthetic dataset: tens of words, trained in
// milliseconds.
func synthetic(seed uint64) datasets.Spec {
	return datasets.Spec{Name: "synthetic", Options: datasets.Options{
		Synthetic: datasets.SyntheticConfig{TrainWords: 40, TestWords: 20, Seed: seed},
	}}
}

func encode(t *testing.T, m run.Method) json.RawMessage {
	t.Helper()
	b, err := run.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// trainUnits are three units of different methods, lambdas, data and folds.
func trainUnits(t *testing.T) []Unit {
	t.Helper()
	specs := []struct {
		key string
		u   TrainUnit
	}{
		{"bcfw-whole", TrainUnit{
			Method: encode(t, solver.BCFW{Lambda: 0.01, Sampling: run.GapSampling, GapEvery: 2, Seed: 3}),
			Data:   synthetic(1), Stop: run.Stop{Passes: 6}, Test: true, Weights: true,
		}},
		{"bcfw-fold1", TrainUnit{
			Method: encode(t, solver.BCFW{Lambda: 0.1, Step: solver.Pairwise, Seed: 5}),
			Data:   synthetic(1), Folds: 3, Fold: 1, Seed: 7, Stop: run.Stop{Passes: 5}, Test: true,
		}},
		{"fw-gap", TrainUnit{
			Method: encode(t, solver.FW{Lambda: 0.05}),
			Data:   synthetic(2), Stop: run.Stop{Passes: 100, Gap: 0.5},
		}},
	}
	units := make([]Unit, len(specs))
	for i, s := range specs {
		u, err := NewTrainUnit(s.key, s.u)
		if err != nil {
			t.Fatal(err)
		}
		units[i] = u
	}
	return units
}

// same reports whether two results agree bit for bit, timings aside.
func same(t *testing.T, a, b TrainResult) {
	t.Helper()
	bits := func(x float64) uint64 { return math.Float64bits(x) }
	if a.Key != b.Key || a.Err != b.Err || a.WeightsSHA256 != b.WeightsSHA256 || a.Fingerprint != b.Fingerprint ||
		a.N != b.N || a.D != b.D || a.Status != b.Status || a.Steps != b.Steps || a.OracleCalls != b.OracleCalls ||
		bits(a.Passes) != bits(b.Passes) || string(a.Method) != string(b.Method) {
		t.Errorf("results differ:\n%+v\n%+v", a, b)
	}
	pa, pb := a.Last, b.Last
	pa.Seconds, pb.Seconds, pa.EvalSeconds, pb.EvalSeconds = 0, 0, 0, 0
	for _, f := range [][2]float64{{pa.Primal, pb.Primal}, {pa.Dual, pb.Dual}, {pa.Gap, pb.Gap},
		{pa.TestLoss, pb.TestLoss}, {pa.GapEstimate, pb.GapEstimate}} {
		if bits(f[0]) != bits(f[1]) {
			t.Errorf("%s: last points differ:\n%+v\n%+v", a.Key, pa, pb)
			break
		}
	}
	if len(a.Weights) != len(b.Weights) {
		t.Errorf("%s: %d and %d weights", a.Key, len(a.Weights), len(b.Weights))
	}
	for i := range a.Weights {
		if bits(a.Weights[i]) != bits(b.Weights[i]) {
			t.Errorf("%s: weight %d: %v and %v", a.Key, i, a.Weights[i], b.Weights[i])
			break
		}
	}
}

// TestTrainPrismEqualsLocal runs three train units on prism in-process and
// in a local loop: the results must be the same, bit for bit.
func TestTrainPrismEqualsLocal(t *testing.T) {
	ctx := context.Background()
	units := trainUnits(t)
	local, err := Train(ctx, Local{}, units)
	if err != nil {
		t.Fatal(err)
	}
	dist, err := Train(ctx, Beam{}, units)
	if err != nil {
		t.Fatal(err)
	}
	if len(dist) != len(units) {
		t.Fatalf("%d results of %d units", len(dist), len(units))
	}
	for i := range units {
		if dist[i].Key != units[i].Key {
			t.Errorf("result %d is %q, unit %q", i, dist[i].Key, units[i].Key)
		}
		same(t, local[i], dist[i])
	}
	if w := local[0]; len(w.Weights) == 0 || w.WeightsSHA256 != digest(w.Weights) {
		t.Errorf("unit %s: %d weights, digest %s", w.Key, len(w.Weights), w.WeightsSHA256)
	}
	if r := local[1]; r.N >= 40 || math.IsNaN(r.Last.TestLoss) {
		t.Errorf("fold unit: n = %d of 40, test loss %v", r.N, r.Last.TestLoss)
	}
	if r := local[2]; r.Status != run.StatusConverged.String() || !(r.Last.Gap <= 0.5) {
		t.Errorf("fw unit: %s at gap %v, want converged to 0.5", r.Status, r.Last.Gap)
	}
}

// TestTrainUnitErrors: a unit that cannot run fails alone, with its error
// in its result, on prism as locally.
func TestTrainUnitErrors(t *testing.T) {
	ctx := context.Background()
	good := trainUnits(t)[2]
	bad := []struct {
		key, want string
		u         TrainUnit
	}{
		{"no-stop", "no stop criterion", TrainUnit{Method: encode(t, solver.BCFW{Lambda: 0.1}), Data: synthetic(1)}},
		{"bad-method", "the method", TrainUnit{Method: json.RawMessage(`{"method":"bcfw","lambda":0.1,"knob":1}`),
			Data: synthetic(1), Stop: run.Stop{Passes: 1}}},
		{"bad-lambda", "lambda", TrainUnit{Method: encode(t, solver.BCFW{Lambda: -1}), Data: synthetic(1), Stop: run.Stop{Passes: 1}}},
		{"bad-fold", "fold 3 of 3", TrainUnit{Method: encode(t, solver.BCFW{Lambda: 0.1}), Data: synthetic(1),
			Folds: 3, Fold: 3, Stop: run.Stop{Passes: 1}}},
		{"no-data", "the data", TrainUnit{Method: encode(t, solver.BCFW{Lambda: 0.1}),
			Data: datasets.Spec{Name: "svmlight", Options: datasets.Options{Path: t.TempDir() + "/missing.svm"}}, Stop: run.Stop{Passes: 1}}},
	}
	units := []Unit{good}
	for _, b := range bad {
		u, err := NewTrainUnit(b.key, b.u)
		if err != nil {
			t.Fatal(err)
		}
		units = append(units, u)
	}
	for _, r := range []Runner{Local{}, Beam{}} {
		res, err := Train(ctx, r, units)
		if err == nil || !strings.Contains(err.Error(), "5 of 6 units failed") {
			t.Errorf("%T: error %v, want 5 of 6 units failed", r, err)
		}
		if len(res) != len(units) {
			t.Fatalf("%T: %d results of %d units", r, len(res), len(units))
		}
		if res[0].Err != "" || res[0].WeightsSHA256 == "" {
			t.Errorf("%T: the good unit: %+v", r, res[0])
		}
		for i, b := range bad {
			if got := res[i+1]; got.Key != b.key || !strings.Contains(got.Err, b.want) {
				t.Errorf("%T: unit %s: error %q, want it to say %q", r, b.key, got.Err, b.want)
			}
		}
	}
}

// The echo task returns its spec: a unit that does no work, for the
// overhead of a run.
func init() {
	registerTask("echo", func(_ context.Context, spec []byte) ([]byte, error) { return spec, nil })
}

// TestBeamEcho: every unit's output comes back once, in the order of the
// units, whatever order the workers ran them in.
func TestBeamEcho(t *testing.T) {
	var units []Unit
	for i := range 20 {
		units = append(units, Unit{Task: "echo", Key: fmt.Sprintf("u%02d", i), Spec: fmt.Appendf(nil, "%d", i)})
	}
	outs, err := Beam{}.Run(context.Background(), units)
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range outs {
		if o.Key != units[i].Key || string(o.Body) != string(units[i].Spec) || o.Err != "" {
			t.Errorf("output %d: %+v, want %s", i, o, units[i].Spec)
		}
	}
	if len(outs) != len(units) {
		t.Errorf("%d outputs of %d units", len(outs), len(units))
	}
}

func TestRunChecks(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		units []Unit
		want  string
	}{
		{[]Unit{{Task: "echo"}}, "unit 0 has no key"},
		{[]Unit{{Task: "echo", Key: "a"}, {Task: "echo", Key: "a"}}, `two units have the key "a"`},
		{[]Unit{{Task: "nope", Key: "a"}}, `unit "a": unknown task "nope"`},
	} {
		for _, r := range []Runner{Local{}, Beam{}} {
			if _, err := r.Run(ctx, c.units); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%T: error %v, want %q", r, err, c.want)
			}
		}
	}
	if _, err := (Beam{Runner: "storm"}).Run(ctx, nil); err == nil || !strings.Contains(err.Error(), `runner "storm" is not available`) {
		t.Errorf("runner storm: %v", err)
	}
}

// TestOrder: a lost or doubled output is an error, never a gap or a
// duplicate in the results.
func TestOrder(t *testing.T) {
	units := []Unit{{Key: "a"}, {Key: "b"}}
	for _, c := range []struct {
		outs []Output
		want string
	}{
		{[]Output{{Key: "b"}, {Key: "a"}}, ""},
		{[]Output{{Key: "a"}}, `unit "b" has no output`},
		{[]Output{{Key: "a"}, {Key: "b"}, {Key: "a"}}, `unit "a" has two outputs`},
		{[]Output{{Key: "a"}, {Key: "b"}, {Key: "c"}}, `an output for "c"`},
	} {
		got, err := order(units, c.outs)
		switch {
		case c.want == "" && (err != nil || got[0].Key != "a" || got[1].Key != "b"):
			t.Errorf("%v: %v, %v", c.outs, got, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v: error %v, want %q", c.outs, err, c.want)
		}
	}
}

// TestPanicIsTheUnitsError: a task's panic ends its unit, not the run.
func TestPanicIsTheUnitsError(t *testing.T) {
	registerTask("panic", func(context.Context, []byte) ([]byte, error) { panic("boom") })
	defer delete(tasks, "panic")
	o := runUnit(context.Background(), Unit{Task: "panic", Key: "p"})
	if !strings.HasPrefix(o.Err, "panic: boom") || o.Body != nil {
		t.Errorf("output %+v", o)
	}
}

// BenchmarkBeamOverhead is a run of one unit that does no work on prism
// in-process: the cost of a pipeline.
func BenchmarkBeamOverhead(b *testing.B) {
	units := []Unit{{Task: "echo", Key: "a", Spec: []byte("1")}}
	for b.Loop() {
		if _, err := (Beam{}).Run(context.Background(), units); err != nil {
			b.Fatal(err)
		}
	}
}

// TestTrainFoldsAreTunes: a train unit of fold f of k trains on what package
// tune trains fold f on (the same examples, the same preprocessing), so that
// one lambda of a cold tuning grid is the units' results, bit for bit.
func TestTrainFoldsAreTunes(t *testing.T) {
	spec := synthetic(4)
	d, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	const k, seed, lambda = 3, 9, 0.05
	m := solver.BCFW{Sampling: run.Permutation, Seed: 2}
	stop := run.Stop{Passes: 4}
	res, err := tune.Run(context.Background(), d, m, tune.Config{Lambdas: []float64{lambda}, Folds: k, Seed: seed, Stop: stop})
	if err != nil {
		t.Fatal(err)
	}
	var units []Unit
	for f := range k {
		u, err := NewTrainUnit(fmt.Sprint(f), TrainUnit{Method: encode(t, m.WithLambda(lambda)), Data: spec,
			Folds: k, Fold: f, Seed: seed, Stop: stop})
		if err != nil {
			t.Fatal(err)
		}
		units = append(units, u)
	}
	got, err := Train(context.Background(), Local{}, units)
	if err != nil {
		t.Fatal(err)
	}
	pt := res.Curve[0]
	for f, r := range got {
		if math.Float64bits(r.Last.Primal) != math.Float64bits(pt.Primals[f]) || math.Float64bits(r.Last.Gap) != math.Float64bits(pt.Gaps[f]) {
			t.Errorf("fold %d: primal %v gap %v, tune's %v and %v", f, r.Last.Primal, r.Last.Gap, pt.Primals[f], pt.Gaps[f])
		}
	}
}
