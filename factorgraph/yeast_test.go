package factorgraph_test

import (
	"math/rand/v2"
	"testing"

	gonumlp "gonum.org/v1/gonum/optimize/convex/lp"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/inference/lp"
	"github.com/fwstruct/fwstruct/internal/realdata"
)

// yeast loads the Yeast training model (with bias) or skips.
func yeast(tb testing.TB) *factorgraph.Model {
	tb.Helper()
	d, err := datasets.LoadMULAN(realdata.File(tb, "yeast/yeast-train.arff"), datasets.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return d.Train.Model()
}

// yeastWeights returns weights of the scale a trained model has (|w| of a
// few units), so that the LPs are neither trivial nor all-integral.
func yeastWeights(m *factorgraph.Model, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	w := make([]float64, m.Dim())
	for j := range w {
		w[j] = rng.NormFloat64() * 0.3
	}
	return w
}

// TestYeastRelaxed checks on real Yeast examples that the LP oracle never
// fails (binary pairwise: half-integral vertices), is at least the exact
// maximum, and reports how often its vertex is fractional.
func TestYeastRelaxed(t *testing.T) {
	m := yeast(t)
	ex, _ := factorgraph.NewExact(m, 0)
	lp, err := factorgraph.NewRelaxed(m, 2)
	if err != nil {
		t.Fatal(err)
	}
	fractional := 0
	const n = 30
	for k := 0; k < n; k++ {
		i := k * m.Len() / n
		w := yeastWeights(m, uint64(k))
		y, h, err := lp.MaxOracleErr(i, w, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, he := ex.MaxOracle(i, w, nil)
		if h < he-1e-9 {
			t.Fatalf("example %d: LP %v below exact %v", i, h, he)
		}
		for _, v := range y {
			if v == 1 {
				fractional++
				break
			}
		}
	}
	t.Logf("%d of %d LP vertices fractional at random weights", fractional, n)
}

// benchExamples calls call on successive Yeast examples, b.N times.
func benchExamples(b *testing.B, m *factorgraph.Model, call func(i int)) {
	i := 0
	for b.Loop() {
		call(i)
		i = (i + 1) % m.Len()
	}
}

func BenchmarkYeastExactOracle(b *testing.B) {
	m := yeast(b)
	e, _ := factorgraph.NewExact(m, 0)
	w := yeastWeights(m, 1)
	y := make([]int32, 0, 14)
	benchExamples(b, m, func(i int) { y, _ = e.MaxOracle(i, w, y) })
}

func BenchmarkYeastLPOracle(b *testing.B) {
	m := yeast(b)
	r, err := factorgraph.NewRelaxed(m, 2)
	if err != nil {
		b.Fatal(err)
	}
	w := yeastWeights(m, 1)
	var y []int32
	benchExamples(b, m, func(i int) {
		if y, _, err = r.MaxOracleErr(i, w, y); err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkYeastRoundedPredict(b *testing.B) {
	m := yeast(b)
	r, err := factorgraph.NewRounded(m)
	if err != nil {
		b.Fatal(err)
	}
	w := yeastWeights(m, 1)
	var y []int32
	benchExamples(b, m, func(i int) { y = r.Predict(i, w, y) })
}

// yeastCosts returns the LP cost vector (minus the loss-augmented node
// scores) of example i at w, in the column order of Graph.LocalPolytope.
func yeastCosts(m *factorgraph.Model, i int, w []float64) []float64 {
	g := m.Graph(i)
	c := make([]float64, g.TableLen())
	for a := 0; a < g.NumNodes(); a++ {
		off := g.TableOffset(a)
		t := m.NodeScores(i, a, w, c[off:off+g.States(a)])
		if l := m.NodeLoss(i, a); l != nil {
			for s, v := range l {
				t[s] += v
			}
		}
		for s := range t {
			t[s] = -t[s]
		}
	}
	return c
}

// BenchmarkYeastSimplex solves the local-polytope LPs of Yeast examples
// with package lp and reports the phase II pivots per solve and how
// many of them are degenerate.
func BenchmarkYeastSimplex(b *testing.B) {
	m := yeast(b)
	prog, err := m.Graph(0).LocalPolytope()
	if err != nil {
		b.Fatal(err)
	}
	w := yeastWeights(m, 1)
	costs := make([][]float64, 100)
	for k := range costs {
		costs[k] = yeastCosts(m, k*m.Len()/len(costs), w)
	}
	x := make([]float64, prog.Cols())
	var ws lp.Workspace
	var pivots, degenerate, n float64
	k := 0
	for b.Loop() {
		res, err := prog.Solve(costs[k], x, &ws)
		if err != nil {
			b.Fatal(err)
		}
		pivots += float64(res.Pivots)
		degenerate += float64(res.Degenerate)
		n++
		k = (k + 1) % len(costs)
	}
	b.ReportMetric(pivots/n, "pivots/op")
	b.ReportMetric(degenerate/n, "degenerate/op")
}

// BenchmarkYeastGonumLP solves the same LPs with gonum's lp.Simplex (the
// reference implementation), for comparison; one solve takes seconds.
func BenchmarkYeastGonumLP(b *testing.B) {
	m := yeast(b)
	g := m.Graph(0)
	A, rhs := g.LocalPolytopeProgram()
	w := yeastWeights(m, 1)
	c := yeastCosts(m, 0, w)
	for b.Loop() {
		if _, _, err := gonumlp.Simplex(c, A, rhs, 1e-10, nil); err != nil {
			b.Fatal(err)
		}
	}
}
