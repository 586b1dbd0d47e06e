package solver

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/run"
)

// rounds runs the partitions of p for the given rounds of passes each,
// combining their changes of v as a coordinator does (K = 1: the
// partition's view), saving and loading every partition between rounds
// when reload is set, and returns the final weights w = [v] and the primal,
// dual and gap at the w of every round.
func rounds(t *testing.T, p oracles.Problem, m BCFW, k int, combine Combine, nRounds int, passes float64, reload bool) (w []float64, pts [][3]float64) {
	t.Helper()
	ctx := context.Background()
	n := p.Len()
	parts := make([]*Partition, k)
	for j := range k {
		var blocks []int
		for i := j; i < n; i += k {
			blocks = append(blocks, i)
		}
		q, err := NewPartition(p, blocks, k, m, combine, run.WithWorkers(1))
		if err != nil {
			t.Fatal(err)
		}
		parts[j] = q
	}
	v := make([]float64, p.Dim())
	for range nRounds {
		next := append([]float64(nil), v...)
		var ell float64
		for j, q := range parts {
			c, err := q.Round(ctx, v, passes)
			if err != nil {
				t.Fatal(err)
			}
			if c.View != nil {
				next = c.View
			} else {
				c.Delta.AddTo(next, 1)
			}
			ell += c.Ell
			if reload {
				var b bytes.Buffer
				if err := q.Save(&b); err != nil {
					t.Fatal(err)
				}
				if parts[j], err = LoadPartition(&b, p, run.WithWorkers(1)); err != nil {
					t.Fatal(err)
				}
			}
		}
		v = next
		var dual float64
		var err error
		if w, dual, err = RoundWeights(p, m, v, ell); err != nil {
			t.Fatal(err)
		}
		var gap, sumH float64
		for _, q := range parts {
			_, g, h, err := q.GapsAt(v)
			if err != nil {
				t.Fatal(err)
			}
			gap += g
			sumH += h
		}
		primal := m.Lambda/2*floats.Dot(w, w) + sumH/float64(n)
		pts = append(pts, [3]float64{primal, dual, gap})
	}
	return w, pts
}

// TestPartitionK1IsBCFW: one partition, H passes a round, is BCFW without
// gap passes run H passes at a time, bit for bit (w, primal, dual, gap),
// with the state saved and loaded between rounds or kept.
func TestPartitionK1IsBCFW(t *testing.T) {
	checkK1IsBCFW(t, smallChain(3), []BCFW{
		{Lambda: 0.05, Seed: 4},
		{Lambda: 0.05, Sampling: run.GapSampling, Step: Pairwise, Cache: &Cache{}, Seed: 2},
		{Lambda: 0.01, Sampling: run.Permutation, Storage: SparseBlocks, Seed: 1},
	})
}

// TestPartitionK1IsBCFWWithBox: the same with a box that binds (the
// problem's own bounds, oracles.Bounded, and a user's box beside them):
// the rounds carry v, BCFW's untruncated iterate, and their weights are
// its w = [v].
func TestPartitionK1IsBCFWWithBox(t *testing.T) {
	p := bounded{smallChain(3)}
	active := checkK1IsBCFW(t, p, []BCFW{
		{Lambda: 0.05, Seed: 4},
		{Lambda: 0.05, Sampling: run.GapSampling, Step: Pairwise, Cache: &Cache{}, Seed: 2},
		{Lambda: 0.01, Sampling: run.Permutation, Storage: SparseBlocks, Box: &Box{Lower: fill(p.Dim(), -0.2)}, Seed: 1},
	})
	if !active {
		t.Error("the box never binds: v = w at the end of every run")
	}
}

// checkK1IsBCFW runs the rounds of one partition of p for every method
// and compares them with BCFW's; it returns whether the box bound any
// coordinate (v != w) at the end of some run.
func checkK1IsBCFW(t *testing.T, p oracles.Problem, methods []BCFW) (active bool) {
	t.Helper()
	for _, m := range methods {
		ref := m
		ref.GapEvery = -1
		for _, reload := range []bool{false, true} {
			w, pts := rounds(t, p, m, 1, Adding, 5, 2, reload)
			sv, err := ref.New(p, run.WithWorkers(1))
			if err != nil {
				t.Fatal(err)
			}
			s := sv.(*Solver)
			for r, pt := range pts {
				if _, err := s.Run(context.Background(), run.Stop{Passes: float64(2 * (r + 1))}); err != nil {
					t.Fatal(err)
				}
				e, err := s.Evaluate()
				if err != nil {
					t.Fatal(err)
				}
				for f, v := range [3]float64{e.Primal, e.Dual, e.Gap} {
					if math.Float64bits(v) != math.Float64bits(pt[f]) {
						t.Fatalf("%+v reload %v round %d: partition %v, BCFW primal/dual/gap %v %v %v", m, reload, r, pt, e.Primal, e.Dual, e.Gap)
					}
				}
			}
			if !floats.Equal(w, s.x.w) {
				t.Errorf("%+v: the weights differ", m)
			}
			active = active || !floats.Equal(s.x.v, s.x.w)
		}
	}
	return active
}

// TestPartitionsConverge: K = 3 partitions, adding and averaging, reach
// BCFW's optimum: certified gaps that shrink below a small tolerance, and
// the primal within it of BCFW's, the gap equal to primal - dual.
func TestPartitionsConverge(t *testing.T) {
	p := smallChain(5)
	m := BCFW{Lambda: 1, Seed: 1}
	ref := m
	ref.GapEvery = 5
	sv, _ := ref.New(p, run.WithWorkers(1))
	if _, err := sv.Run(context.Background(), run.Stop{Passes: 2000, Gap: 1e-7}); err != nil {
		t.Fatal(err)
	}
	best, _ := sv.Current()
	for _, c := range []Combine{Adding, Averaging} {
		_, pts := rounds(t, p, m, 3, c, 150, 5, false)
		last := pts[len(pts)-1]
		if !(last[2] < 1e-3) || math.Abs(last[0]-best.Primal) > 1e-3 || math.Abs(last[0]-last[1]-last[2]) > 1e-9 {
			t.Errorf("%v: after %d rounds primal %v dual %v gap %v; BCFW's primal %v", c, len(pts), last[0], last[1], last[2], best.Primal)
		}
		if !(pts[0][2] > last[2]) {
			t.Errorf("%v: gap %v after the first round, %v after the last", c, pts[0][2], last[2])
		}
	}
}

// TestPartitionsConvergeWithBox: K = 4 partitions on a problem whose
// bounds bind at the optimum (its unconstrained optimum breaks them), with
// adding and averaging: the certified gaps reach a small tolerance at
// BCFW-with-the-box's optimum, the weights stay in the box, the dual never
// decreases from a round to the next (the safety of the combination,
// Partition's doc), and a partition saved and loaded between rounds
// continues identically.
func TestPartitionsConvergeWithBox(t *testing.T) {
	p := bounded{smallChain(5)}
	_, upper := p.WeightBounds()
	m := BCFW{Lambda: 1, Seed: 1}
	optimum := func(q oracles.Problem) (run.Point, []float64) {
		ref := m
		ref.GapEvery = 5
		sv, err := ref.New(q, run.WithWorkers(1))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sv.Run(context.Background(), run.Stop{Passes: 3000, Gap: 1e-8}); err != nil {
			t.Fatal(err)
		}
		pt, _ := sv.Current()
		return pt, sv.Weights()
	}
	free, wFree := optimum(p.Chain)
	binds := false
	for j, x := range wFree {
		binds = binds || x > upper[j]+1e-6
	}
	best, _ := optimum(p)
	if !binds || !(best.Primal > free.Primal+1e-6) {
		t.Fatalf("the box does not bind: the unconstrained optimum %v is in it (primal %v, boxed %v)", wFree, free.Primal, best.Primal)
	}
	for _, c := range []Combine{Adding, Averaging} {
		w, pts := rounds(t, p, m, 4, c, 400, 5, false)
		last := pts[len(pts)-1]
		if !(last[2] < 1e-3) || math.Abs(last[0]-best.Primal) > 1e-3 || math.Abs(last[0]-last[1]-last[2]) > 1e-9 {
			t.Errorf("%v: after %d rounds primal %v dual %v gap %v; BCFW's primal %v", c, len(pts), last[0], last[1], last[2], best.Primal)
		}
		for j, x := range w {
			if x > upper[j] {
				t.Fatalf("%v: w[%d] = %v above its bound %v", c, j, x, upper[j])
			}
		}
		for r := 1; r < len(pts); r++ {
			if pts[r][1] < pts[r-1][1]-1e-12*(1+math.Abs(pts[r-1][1])) {
				t.Fatalf("%v: the dual decreased from round %d to %d: %v to %v", c, r, r+1, pts[r-1][1], pts[r][1])
			}
		}
		_, again := rounds(t, p, m, 4, c, 6, 5, true)
		for r, pt := range again {
			for f := range pt {
				if math.Float64bits(pt[f]) != math.Float64bits(pts[r][f]) {
					t.Fatalf("%v: round %d with the partitions saved and loaded: %v, kept %v", c, r+1, pt, pts[r])
				}
			}
		}
	}
}

func TestPartitionErrors(t *testing.T) {
	p := smallChain(1)
	m := BCFW{Lambda: 0.1}
	for _, c := range []struct {
		blocks []int
		k      int
		m      BCFW
		comb   Combine
		opts   []run.Option
		want   string
	}{
		{[]int{0}, 13, m, Adding, nil, "13 partitions of 12 examples"},
		{[]int{0}, 0, m, Adding, nil, "0 partitions"},
		{[]int{0, 1}, 1, m, Adding, nil, "only partition has 2 of 12"},
		{[]int{2, 1}, 2, m, Adding, nil, "distinct sorted"},
		{[]int{1, 2}, 2, BCFW{Lambda: 0.1, Step: Pairwise}, Averaging, nil, "pairwise and away"},
		{[]int{1, 2}, 2, BCFW{Lambda: 0.1, Box: &Box{Upper: []float64{0}}}, Adding, nil, "box upper bound has 1 entries"},
		{[]int{1, 2}, 2, BCFW{}, Adding, nil, "lambda 0"},
	} {
		if _, err := NewPartition(p, c.blocks, c.k, c.m, c.comb, c.opts...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v k %d: %v, want %q", c.blocks, c.k, err, c.want)
		}
	}
	if _, _, err := RoundWeights(p, BCFW{Lambda: 0.1, Box: &Box{Lower: []float64{0}}}, make([]float64, p.Dim()), 0); err == nil || !strings.Contains(err.Error(), "box lower bound has 1 entries") {
		t.Errorf("RoundWeights with a short box: %v", err)
	}
	if _, _, err := RoundWeights(p, m, make([]float64, 3), 0); err == nil || !strings.Contains(err.Error(), "v has 3 weights") {
		t.Errorf("RoundWeights with a short v: %v", err)
	}
	q, err := NewPartition(p, []int{0, 3}, 2, m, Adding)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.Round(context.Background(), make([]float64, 3), 1); err == nil || !strings.Contains(err.Error(), "v has 3 weights") {
		t.Errorf("short w: %v", err)
	}
	if _, err := q.Round(context.Background(), make([]float64, p.Dim()), 0); err == nil || !strings.Contains(err.Error(), "0 passes") {
		t.Errorf("0 passes: %v", err)
	}
	if _, err := LoadPartition(strings.NewReader("garbage!"), p); err == nil {
		t.Error("garbage: no error")
	}
}
