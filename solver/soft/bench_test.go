package soft

import (
	"context"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/internal/realdata"
	"github.com/fwstruct/fwstruct/solver/run"
)

// yeastModel loads the Yeast training model (with per-label biases, d =
// 1,547) or skips.
func yeastModel(tb testing.TB) *factorgraph.Model {
	tb.Helper()
	d, err := datasets.LoadMULAN(realdata.File(tb, "yeast/yeast-train.arff"), datasets.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return d.Train.Model()
}

// benchStep times one block step of Alg. 1 (lines 4-15: scores, vertex,
// step size, update of mu, w and delta) on the node of the given kind of
// successive examples, from the state after two passes.
func benchStep(b *testing.B, m *factorgraph.Model, node func(g *factorgraph.Graph) int) {
	s, err := newSolver(m, config{Lambda: 0.01, Rho: 1, GapEvery: 1e9, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Run(context.Background(), run.Stop{Passes: 2}); err != nil {
		b.Fatal(err)
	}
	i, moved := 0, 0
	b.ResetTimer()
	for b.Loop() {
		mv := s.direction(int(s.blockOff[i]) + node(m.Graph(i)))
		if mv.gamma > 0 {
			s.apply(mv)
			moved++
		}
		i = (i + 1) % m.Len()
	}
	b.ReportMetric(float64(moved)/float64(b.N), "moved/op")
}

// BenchmarkYeastSoftStep: one soft step on a unary node (103 features,
// 13 factors) and on a pairwise factor of Yeast. Compare with one LP oracle
// call (BenchmarkYeastLPOracle) and one exact oracle call
// (BenchmarkYeastExactOracle, 2^14 labelings) in package factorgraph, the
// steps of LP-hard and exact BCFW.
func BenchmarkYeastSoftStep(b *testing.B) {
	m := yeastModel(b)
	b.Run("unary", func(b *testing.B) { benchStep(b, m, func(*factorgraph.Graph) int { return 0 }) })
	b.Run("pair", func(b *testing.B) {
		benchStep(b, m, func(g *factorgraph.Graph) int { return g.NumVars() + 40 })
	})
}

// BenchmarkSoftStep is BenchmarkYeastSoftStep on a generated multi-label
// model of Yeast's shape (14 labels, 103 dense features), without data.
func BenchmarkSoftStep(b *testing.B) {
	m := multiLabel(b, 300, 14, 103, 1)
	b.Run("unary", func(b *testing.B) { benchStep(b, m, func(*factorgraph.Graph) int { return 0 }) })
	b.Run("pair", func(b *testing.B) {
		benchStep(b, m, func(g *factorgraph.Graph) int { return g.NumVars() + 40 })
	})
}

// BenchmarkYeastSoftPass times one pass (157,500 block steps, uniform
// sampling) with and without the lookahead that reads the state of the
// next blocks early (prefetch.go; "steps" is what a run does), and one
// exact evaluation (the gap pass: every block's scores, w and delta
// re-anchored) on Yeast. The passes continue one run, from its start.
func BenchmarkYeastSoftPass(b *testing.B) {
	m := yeastModel(b)
	s, err := newSolver(m, config{Lambda: 0.01, Rho: 1, GapEvery: 1e9, Seed: 1}, run.WithWorkers(1))
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name  string
		ahead bool
	}{{"steps", true}, {"steps-no-lookahead", false}} {
		b.Run(bc.name, func(b *testing.B) {
			s.ahead.on = bc.ahead
			defer func() { s.ahead.on = true }()
			for b.Loop() {
				for k := 0; k < s.Blocks(); k++ {
					s.step()
				}
			}
		})
	}
	// The same passes in the order of ExamplePermutation: an example's
	// blocks one after another, its state in the cache.
	g, err := newSolver(m, config{Lambda: 0.01, Rho: 1, Sampling: run.ExamplePermutation, GapEvery: 1e9, Seed: 1}, run.WithWorkers(1))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("steps-example-perm", func(b *testing.B) {
		for b.Loop() {
			for k := 0; k < g.Blocks(); k++ {
				g.step()
			}
		}
	})
	b.Run("evaluation", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.evaluate(evalMode{refresh: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkYeastHardOracle times the block step of the hard baselines at
// the weights soft BCFW reaches in 20 passes (so that the ratios to
// BenchmarkYeastSoftStep come from one run): one LP oracle call (the
// loss-augmented LP over the local polytope, factorgraph.Relaxed) and one
// exact oracle call (2^14 labelings, factorgraph.Exact) per example.
func BenchmarkYeastHardOracle(b *testing.B) {
	m := yeastModel(b)
	s, err := newSolver(m, config{Lambda: 0.01, Rho: 1, GapEvery: 1e9, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Run(context.Background(), run.Stop{Passes: 20}); err != nil {
		b.Fatal(err)
	}
	w := s.Weights()
	rel, err := factorgraph.NewRelaxed(m, 2)
	if err != nil {
		b.Fatal(err)
	}
	exact, err := factorgraph.NewExact(m, 0)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name   string
		oracle func(i int, y []int32) ([]int32, error)
	}{
		{"lp", func(i int, y []int32) ([]int32, error) { y, _, err := rel.MaxOracleErr(i, w, y); return y, err }},
		{"exact", func(i int, y []int32) ([]int32, error) { y, _ = exact.MaxOracle(i, w, y); return y, nil }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var y []int32
			i := 0
			for b.Loop() {
				if y, err = bc.oracle(i, y); err != nil {
					b.Fatal(err)
				}
				i = (i + 1) % m.Len()
			}
		})
	}
}
