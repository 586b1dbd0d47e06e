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
	p := smallChain(3)
	for _, m := range []BCFW{
		{Lambda: 0.05, Seed: 4},
		{Lambda: 0.05, Sampling: run.GapSampling, Step: Pairwise, Cache: &Cache{}, Seed: 2},
		{Lambda: 0.01, Sampling: run.Permutation, Storage: SparseBlocks, Seed: 1},
	} {
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
		}
	}
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
