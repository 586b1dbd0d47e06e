package tune

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/internal/gendata"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/auto"
	"github.com/fwstruct/fwstruct/solver/kernel"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/soft"
)

// writeBlobs writes a 3-class svmlight training file of n points (three
// overlapping Gaussian blobs in 2-D) and its test file of n/2 points, and
// returns the training file's path.
func writeBlobs(t testing.TB, dir string, n int) string {
	t.Helper()
	write := func(name string, n int, seed uint64) string {
		rng := rand.New(rand.NewPCG(seed, 3))
		var b strings.Builder
		for i := 0; i < n; i++ {
			c := i % 3
			x := float64(c) + 0.9*rng.NormFloat64()
			y := float64(c%2) + 0.9*rng.NormFloat64()
			fmt.Fprintf(&b, "%d 1:%.5f 2:%.5f\n", c+1, x, y)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("blobs.svm.t", n/2, 2)
	return write("blobs.svm", n, 1)
}

// blobs loads the blobs data.
func blobs(t testing.TB, n int) *datasets.Data {
	t.Helper()
	d, err := datasets.LoadData(writeBlobs(t, t.TempDir(), n), datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestFolds(t *testing.T) {
	for _, tc := range []struct{ n, k int }{{10, 2}, {10, 3}, {7, 7}, {100, 5}, {101, 10}} {
		folds, err := kFolds(tc.n, tc.k, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(folds) != tc.k {
			t.Fatalf("n %d, k %d: %d folds", tc.n, tc.k, len(folds))
		}
		seen := make([]int, tc.n)
		for f, fold := range folds {
			if size := len(fold.Held); size < tc.n/tc.k || size > tc.n/tc.k+1 {
				t.Errorf("n %d, k %d: fold %d holds out %d examples", tc.n, tc.k, f, size)
			}
			if !slices.IsSorted(fold.Held) || !slices.IsSorted(fold.Fit) || len(fold.Fit)+len(fold.Held) != tc.n {
				t.Errorf("n %d, k %d: fold %d: %d + %d examples, sorted %v %v", tc.n, tc.k, f, len(fold.Fit), len(fold.Held), slices.IsSorted(fold.Fit), slices.IsSorted(fold.Held))
			}
			for _, i := range fold.Held {
				seen[i]++
				if slices.Contains(fold.Fit, i) {
					t.Errorf("n %d, k %d: fold %d fits on its held-out example %d", tc.n, tc.k, f, i)
				}
			}
		}
		for i, c := range seen {
			if c != 1 {
				t.Errorf("n %d, k %d: example %d held out %d times, want once (disjoint folds that cover the data)", tc.n, tc.k, i, c)
			}
		}
		again, _ := kFolds(tc.n, tc.k, 1)
		other, _ := kFolds(tc.n, tc.k, 2)
		if fmt.Sprint(again) != fmt.Sprint(folds) || (tc.k < tc.n && fmt.Sprint(other) == fmt.Sprint(folds)) {
			t.Errorf("n %d, k %d: folds depend on the seed alone: same seed equal %v, other seed different %v", tc.n, tc.k, fmt.Sprint(again) == fmt.Sprint(folds), fmt.Sprint(other) != fmt.Sprint(folds))
		}
	}
	for _, bad := range []struct{ n, k int }{{10, 1}, {3, 4}, {0, 2}} {
		if _, err := kFolds(bad.n, bad.k, 1); err == nil {
			t.Errorf("kFolds(%d, %d): no error", bad.n, bad.k)
		}
	}
	f, err := holdOut(20, 0.25, 3)
	if err != nil || len(f.Held) != 5 || len(f.Fit) != 15 {
		t.Fatalf("holdOut(20, 0.25): %+v, %v", f, err)
	}
	for _, i := range f.Held {
		if slices.Contains(f.Fit, i) {
			t.Errorf("held-out example %d also fit", i)
		}
	}
	for _, frac := range []float64{0, 1, -0.5, 0.01, math.NaN()} {
		if _, err := holdOut(20, frac, 1); err == nil {
			t.Errorf("holdOut(20, %v): no error", frac)
		}
	}
}

// TestRunChoosesTheArgmin tunes BCFW on generated data and checks the
// result against the curve it holds: every point has one value per fold,
// its mean and standard error are those of the fold values, the chosen
// value is the argmin of the curve (the largest lambda on ties), the final
// model has the chosen lambda and its test error is the one reported, and
// progress is reported for every fit.
func TestRunChoosesTheArgmin(t *testing.T) {
	d := blobs(t, 90)
	var reports []Progress
	for _, cold := range []bool{false, true} {
		reports = reports[:0]
		cfg := Config{Lambdas: []float64{0.001, 1, 0.1, 0.01}, Folds: 3, Seed: 4, Stop: run.Stop{Passes: 8}, Cold: cold,
			Progress: func(p Progress) { reports = append(reports, p) }}
		res, err := Run(context.Background(), d, solver.BCFW{GapEvery: 4, Seed: 1}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Metric != MetricErrorRate || !res.Lower || res.Folds != 3 || res.Warm == cold || len(res.Curve) != 4 {
			t.Fatalf("cold %v: metric %s (lower %v), %d folds, warm %v, %d points", cold, res.Metric, res.Lower, res.Folds, res.Warm, len(res.Curve))
		}
		best := -1
		for k, p := range res.Curve {
			if p.Lambda != []float64{1, 0.1, 0.01, 0.001}[k] || len(p.Folds) != 3 || len(p.Gaps) != 3 || len(p.Passes) != 3 {
				t.Fatalf("point %d: %+v", k, p)
			}
			var mean, ss float64
			for _, v := range p.Folds {
				mean += v / 3
			}
			for _, v := range p.Folds {
				ss += (v - mean) * (v - mean)
			}
			if math.Abs(p.Mean-mean) > 1e-12 || math.Abs(p.StdErr-math.Sqrt(ss/2)/math.Sqrt(3)) > 1e-12 {
				t.Errorf("point %d: mean %v, std. error %v; want %v, %v", k, p.Mean, p.StdErr, mean, math.Sqrt(ss/2)/math.Sqrt(3))
			}
			if best < 0 || p.Mean < res.Curve[best].Mean {
				best = k
			}
		}
		if res.Best != best {
			t.Errorf("cold %v: chose point %d, the argmin of the curve is %d", cold, res.Best, best)
		}
		final := res.Final.(*solver.Solver)
		if got := res.Method.(solver.BCFW).Lambda; got != res.Chosen().Lambda || final.Method().(solver.BCFW).Lambda != got {
			t.Errorf("final lambda %v (method %v), chosen %v", final.Method().(solver.BCFW).Lambda, got, res.Chosen().Lambda)
		}
		if test := oracles.MeanLoss(d.Test, final.Weights()); test != res.Test {
			t.Errorf("test error %v reported, %v recomputed", res.Test, test)
		}
		if len(reports) != 13 || reports[12].Fold != -1 || reports[12].Value != res.Test || reports[12].Done != 13 || reports[0].Total != 13 {
			t.Errorf("cold %v: %d reports, last %+v", cold, len(reports), reports[len(reports)-1])
		}
	}
}

// TestWarmEqualsCold checks that the warm-started curve equals the cold
// one within the solver's tolerance: solved to a duality gap of 1e-5, at
// every value and fold the primal objectives of the warm and the cold run
// differ by at most the sum of their certified gaps, and the held-out
// errors agree.
func TestWarmEqualsCold(t *testing.T) {
	d := blobs(t, 90)
	curves := map[bool]*Result{}
	for _, cold := range []bool{false, true} {
		cfg := Config{Lambdas: []float64{1, 0.1, 0.01}, Folds: 3, Seed: 4, Stop: run.Stop{Gap: 1e-5, Passes: 20000}, Cold: cold}
		base := solver.Recommended(1) // its lambda is the grid's
		base.GapEvery, base.Seed = 2, 1
		res, err := Run(context.Background(), d, base, cfg)
		if err != nil {
			t.Fatal(err)
		}
		curves[cold] = res
	}
	warm, cold := curves[false], curves[true]
	var warmPasses, coldPasses float64
	for k := range warm.Curve {
		w, c := warm.Curve[k], cold.Curve[k]
		for f := range w.Folds {
			if !(w.Gaps[f] <= 1e-5 && c.Gaps[f] <= 1e-5) {
				t.Fatalf("lambda %v fold %d: gaps %v (warm) and %v (cold), want <= 1e-5", w.Lambda, f, w.Gaps[f], c.Gaps[f])
			}
			if diff := math.Abs(w.Primals[f] - c.Primals[f]); diff > w.Gaps[f]+c.Gaps[f]+1e-12 {
				t.Errorf("lambda %v fold %d: primal %v (warm) and %v (cold) differ by %v, more than their gaps allow", w.Lambda, f, w.Primals[f], c.Primals[f], diff)
			}
			if w.Folds[f] != c.Folds[f] {
				t.Errorf("lambda %v fold %d: held-out error %v (warm), %v (cold)", w.Lambda, f, w.Folds[f], c.Folds[f])
			}
			warmPasses += w.Passes[f]
			coldPasses += c.Passes[f]
		}
	}
	t.Logf("passes over the grid: %.0f warm-started, %.0f cold", warmPasses, coldPasses)
}

// TestSecondHyperparameter searches rho for soft BCFW on emotions-like
// data and gamma for the rbf kernel: the curve holds every pair, the
// lambdas decreasing within each rho (gamma) in the order given, and the
// final configuration has the chosen pair.
func TestSecondHyperparameter(t *testing.T) {
	dir := t.TempDir()
	emotions, err := gendata.Emotions(dir, "emotions", 1)
	if err != nil {
		t.Fatal(err)
	}
	mulan, err := datasets.LoadData(emotions, datasets.Options{Scaling: datasets.ScaleStandardize})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		data  *datasets.Data
		base  run.Method
		cfg   Config
		aux   string
		check func(m run.Method) (lambda, aux float64)
	}{
		{"soft", mulan, soft.BCFW{Rho: 1, GapEvery: 5, Seed: 1}, Config{Lambdas: []float64{0.1, 1}, Rhos: []float64{2, 0.5}, Folds: 2},
			"rho", func(m run.Method) (float64, float64) { return m.(soft.BCFW).Lambda, m.(soft.BCFW).Rho }},
		{"kernel", blobs(t, 60), kernel.BCFW{Kernel: kernel.Kernel{Kind: kernel.RBF, Gamma: 1}, GapEvery: 5, Seed: 1}, Config{Lambdas: []float64{0.01, 0.1}, Gammas: []float64{0.1, 3}, Folds: 2},
			"gamma", func(m run.Method) (float64, float64) { return m.(kernel.BCFW).Lambda, m.(kernel.BCFW).Kernel.Gamma }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Stop = run.Stop{Passes: 5}
			res, err := Run(context.Background(), tc.data, tc.base, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			auxes := tc.cfg.Rhos
			if auxes == nil {
				auxes = tc.cfg.Gammas
			}
			lambdas := slices.Sorted(slices.Values(tc.cfg.Lambdas))
			slices.Reverse(lambdas)
			if res.Aux != tc.aux || len(res.Curve) != 4 || res.Warm {
				t.Fatalf("aux %q, %d points, warm %v", res.Aux, len(res.Curve), res.Warm)
			}
			for k, p := range res.Curve {
				if p.Aux != auxes[k/2] || p.Lambda != lambdas[k%2] {
					t.Errorf("point %d: lambda %v, %s %v", k, p.Lambda, tc.aux, p.Aux)
				}
			}
			lambda, aux := tc.check(res.Method)
			if c := res.Chosen(); lambda != c.Lambda || aux != c.Aux {
				t.Errorf("final method at lambda %v, %s %v; chosen %v, %v", lambda, tc.aux, aux, c.Lambda, c.Aux)
			}
			fig := res.Figure()
			if err := fig.Validate(); err != nil || len(fig.Series) != 3 || fig.Series[0].Name != fmt.Sprintf("%s = %g", tc.aux, auxes[0]) {
				t.Errorf("figure: %v, %d series", err, len(fig.Series))
			}
			if cols, rows := res.Table(); cols[1] != tc.aux || len(rows) != 4 || rows[res.Best][len(cols)-1] != "<- chosen" {
				t.Errorf("table columns %v, %d rows", cols, len(rows))
			}
		})
	}
}

// TestTaskMetrics checks the metric chosen for every kind of problem and
// that a metric to maximize is maximized: tuning the example F1 of
// multi-label data chooses the argmax of its curve.
func TestTaskMetrics(t *testing.T) {
	m, err := gendata.MultiLabel(6, 3, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	exact, err := factorgraph.NewExact(m, 0)
	if err != nil {
		t.Fatal(err)
	}
	mc := blobs(t, 9).Train
	syn := must(datasets.LoadData("synthetic", datasets.Options{Synthetic: datasets.SyntheticConfig{TrainWords: 3, TestWords: 1, Seed: 1}})).Train
	for _, tc := range []struct {
		p     oracles.Problem
		want  string
		lower bool
	}{
		{exact, factorgraph.MetricHamming, true},
		{mc, MetricErrorRate, true},
		{syn, MetricLoss, true},
	} {
		if got := DefaultMetric(tc.p); got != tc.want || lowerIsBetter(got) != tc.lower {
			t.Errorf("%T: metric %q (lower %v), want %q (%v)", tc.p, got, lowerIsBetter(got), tc.want, tc.lower)
		}
	}
	for _, name := range []string{"chunk F1 %", oracles.MetricPixelAccuracy, factorgraph.MetricF1} {
		if lowerIsBetter(name) {
			t.Errorf("%s is minimized", name)
		}
	}
	dir := t.TempDir()
	emotions, err := gendata.Emotions(dir, "emotions", 2)
	if err != nil {
		t.Fatal(err)
	}
	d := must(datasets.LoadData(emotions, datasets.Options{Scaling: datasets.ScaleStandardize}))
	res, err := Run(context.Background(), d, solver.BCFW{GapEvery: 5, Seed: 1}, Config{Lambdas: []float64{10, 0.1, 0.001}, Folds: 2, Metric: factorgraph.MetricF1, Stop: run.Stop{Passes: 4}})
	if err != nil {
		t.Fatal(err)
	}
	best := 0
	for k, p := range res.Curve {
		if p.Mean > res.Curve[best].Mean {
			best = k
		}
	}
	if res.Lower || res.Best != best {
		t.Errorf("example F1: lower %v, chose %d, argmax %d (%v)", res.Lower, res.Best, best, res.Curve)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestRunAuto: without a method (nil, or auto.Method), Run tunes the
// method auto chooses for the training data, the same for every value.
func TestRunAuto(t *testing.T) {
	d := blobs(t, 12)
	for _, base := range []run.Method{nil, auto.Method{}} {
		res, err := Run(context.Background(), d, base, Config{Lambdas: []float64{0.1, 0.01}, Folds: 2, Stop: run.Stop{Passes: 2}})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := res.Method.(solver.Exact); !ok {
			t.Fatalf("base %v: tuned %s on multiclass data, want auto's exact steps", base, res.Method.Name())
		}
	}
}

func TestRunErrors(t *testing.T) {
	d := blobs(t, 12)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	bcfw := solver.BCFW{Seed: 1}
	for _, tc := range []struct {
		ctx  context.Context
		base run.Method
		cfg  Config
		want string
	}{
		{nil, bcfw, Config{Rhos: []float64{1}}, "rho grid applies to the soft solver only"},
		{nil, bcfw, Config{Gammas: []float64{1}}, "gamma grid applies to the rbf and poly kernels only"},
		{nil, kernel.BCFW{}, Config{Gammas: []float64{1}}, "gamma grid applies"},
		{nil, soft.BCFW{Rho: 1}, Config{Rhos: []float64{1}, Gammas: []float64{1}}, "a rho grid and a gamma grid"},
		{nil, soft.BCFW{Rho: 1}, Config{Rhos: []float64{}}, "empty rho grid"},
		{nil, soft.BCFW{Rho: 1}, Config{Rhos: []float64{1, -2}}, "rho -2"},
		{nil, bcfw, Config{Lambdas: []float64{0.1, -1}}, "lambda -1"},
		{nil, bcfw, Config{Lambdas: []float64{}}, "empty lambda grid"},
		{nil, bcfw, Config{Folds: 13}, "13 folds of 12 examples"},
		{nil, bcfw, Config{Folds: 3, HoldOut: 0.2}, "not both"},
		{nil, bcfw, Config{Metric: "auc"}, `no metric "auc" on this data (it has error_rate, loss)`},
		{nil, soft.BCFW{Rho: 1}, Config{}, "factor-graph problem"},
		{canceled, bcfw, Config{}, context.Canceled.Error()},
	} {
		ctx := tc.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		tc.cfg.Stop = run.Stop{Passes: 2}
		if _, err := Run(ctx, d, tc.base, tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%T %+v: %v, want %q", tc.base, tc.cfg, err, tc.want)
		}
	}
}

// TestResultJSON checks the curve file: values never computed (the
// standard error of a single held-out fold, SSG's duality gap) are absent
// or null, never 0.
func TestResultJSON(t *testing.T) {
	d := blobs(t, 30)
	res, err := Run(context.Background(), d, solver.SSG{Seed: 1}, Config{Lambdas: []float64{0.1, 0.01}, HoldOut: 0.3, Stop: run.Stop{Passes: 3}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	curve := back["curve"].([]any)
	first := curve[0].(map[string]any)
	if _, ok := first["std_err"]; ok || first["gaps"].([]any)[0] != nil || back["folds"].(float64) != 1 || back["hold_out"].(float64) != 0.3 || first["mean"] == nil {
		t.Errorf("JSON %s", b)
	}
	if _, ok := back["test"]; !ok || len(curve) != 2 || back["metric"] != MetricErrorRate {
		t.Errorf("JSON %s", b)
	}
	if fig := res.Figure(); fig.Validate() != nil || len(fig.Notes) != 1 || fig.Series[0].Lo != nil {
		t.Errorf("one fold: figure notes %v, band %v", fig.Notes, fig.Series[0].Lo)
	}
}
