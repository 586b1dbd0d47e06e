package core

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fwstruct/fwstruct/solver/run"
)

func TestSumTreeSampling(t *testing.T) {
	tree := NewSumTree(5)
	weights := []float64{0, 1, 0, 3, 0}
	for i, w := range weights {
		tree.Set(i, w)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	counts := make([]int, 5)
	const draws = 40000
	for k := 0; k < draws; k++ {
		counts[tree.Sample(rng.Float64())]++
	}
	if counts[0]+counts[2]+counts[4] != 0 {
		t.Fatalf("zero-weight leaves drawn: %v", counts)
	}
	if r := float64(counts[3]) / float64(counts[1]); r < 2.7 || r > 3.3 {
		t.Fatalf("draw ratio %v, want about 3", r)
	}
	for _, u := range []float64{0, 0.999999999999, math.Nextafter(1, 0)} {
		if i := tree.Sample(u); weights[i] == 0 {
			t.Fatalf("u=%v drew zero-weight leaf %d", u, i)
		}
	}
}

// TestExamplePermutation: every pass of a run.ExamplePermutation sampler visits
// every block once, the blocks of each group one after another; over many
// passes every group comes first about equally often and every block of a
// group comes first in it about equally often (both orders are uniform);
// Restore continues the same order; SetGroups refuses offsets that do not
// partition the blocks.
func TestExamplePermutation(t *testing.T) {
	off := []int32{0, 3, 4, 9, 11} // groups of 3, 1, 5 and 2 blocks
	n := 11
	groupOf := make([]int, n)
	for g := 0; g+1 < len(off); g++ {
		for b := off[g]; b < off[g+1]; b++ {
			groupOf[b] = g
		}
	}
	s := NewSampler(run.ExamplePermutation, n)
	if err := s.SetGroups(off); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	const passes = 4000
	firstGroup := make([]int, len(off)-1)
	firstInGroup := make([]int, n) // how often each block opens its group's run
	for p := 0; p < passes; p++ {
		seen := make([]bool, n)
		done := make([]bool, len(off)-1)
		prev := -1
		for k := 0; k < n; k++ {
			b := s.Next(rng)
			if seen[b] {
				t.Fatalf("pass %d: block %d twice", p, b)
			}
			seen[b] = true
			g := groupOf[b]
			if g != prev {
				if done[g] {
					t.Fatalf("pass %d: the blocks of group %d are not contiguous", p, g)
				}
				if prev >= 0 {
					done[prev] = true
				}
				firstInGroup[b]++
				if k == 0 {
					firstGroup[g]++
				}
				prev = g
			}
		}
	}
	for g, c := range firstGroup {
		if f := float64(c) / passes; math.Abs(f-0.25) > 0.03 {
			t.Fatalf("group %d opens %.3f of the passes, want 0.25", g, f)
		}
	}
	for b, c := range firstInGroup {
		g := groupOf[b]
		want := 1 / float64(off[g+1]-off[g])
		if f := float64(c) / passes; math.Abs(f-want) > 0.035 {
			t.Fatalf("block %d opens its group in %.3f of the passes, want %.3f", b, f, want)
		}
	}

	// A restored sampler, with a copy of the generator, continues the order.
	a := NewSampler(run.ExamplePermutation, n)
	_ = a.SetGroups(off)
	pa := rand.NewPCG(9, 9)
	ra := rand.New(pa)
	for k := 0; k < 7; k++ {
		a.Next(ra)
	}
	perm, pos, _ := a.State()
	b := NewSampler(run.ExamplePermutation, n)
	_ = b.SetGroups(off)
	if err := b.Restore(append([]int32(nil), perm...), pos, nil, nil); err != nil {
		t.Fatal(err)
	}
	pb := *pa
	rb := rand.New(&pb)
	for k := 0; k < 3*n; k++ {
		if x, y := a.Next(ra), b.Next(rb); x != y {
			t.Fatalf("draw %d after restore: %d, want %d", k, y, x)
		}
	}

	for _, bad := range [][]int32{nil, {0}, {1, 11}, {0, 5, 5, 11}, {0, 6, 4, 11}, {0, 10}} {
		if err := NewSampler(run.ExamplePermutation, n).SetGroups(bad); err == nil {
			t.Fatalf("SetGroups(%v) accepted", bad)
		}
	}
}

// TestGapSamplingUnvisitedInOrder: with DrawUnvisitedInOrder a gap sampler
// draws the blocks without an estimate in increasing index order, without
// a random draw, then proportionally to the gaps; a Restore or Refresh with
// unvisited blocks in any order draws them in index order; without it the
// first draw is uniform over the blocks; other samplers ignore it.
func TestGapSamplingUnvisitedInOrder(t *testing.T) {
	const n = 7
	s := NewSampler(run.GapSampling, n)
	s.DrawUnvisitedInOrder()
	pcg := rand.NewPCG(5, 6)
	rng := rand.New(pcg)
	before, _ := pcg.MarshalBinary()
	for want := 0; want < n; want++ {
		if i := s.Next(rng); i != want {
			t.Fatalf("draw %d: block %d, want %d", want, i, want)
		}
		s.SetGap(want, float64(want%2)) // blocks 1, 3, 5 keep a positive gap
	}
	if after, _ := pcg.MarshalBinary(); string(after) != string(before) {
		t.Fatal("the in-order draws consumed random numbers")
	}
	for k := 0; k < 50; k++ {
		if i := s.Next(rng); i%2 != 1 {
			t.Fatalf("after the first pass: block %d has gap 0", i)
		}
	}

	gaps := []float64{1, 2, 3, 4, 5, 6, 7}
	for _, i := range []int{5, 2, 4} {
		gaps[i] = math.Inf(1)
	}
	if err := s.Restore(nil, 0, []int32{5, 2, 4}, gaps); err != nil {
		t.Fatal(err)
	}
	for _, want := range []int{2, 4, 5} {
		if i := s.Next(rng); i != want {
			t.Fatalf("after Restore: block %d, want %d", i, want)
		}
	}
	gaps[6], gaps[1] = math.Inf(1), math.Inf(1)
	s.Refresh(gaps)
	for _, want := range []int{1, 2, 4, 5, 6} {
		if i := s.Next(rng); i != want {
			t.Fatalf("after Refresh: block %d, want %d", i, want)
		}
	}

	first := make([]int, n)
	const runs = 7000
	for r := uint64(0); r < runs; r++ {
		first[NewSampler(run.GapSampling, n).Next(rand.New(rand.NewPCG(r, 1)))]++
	}
	for i, c := range first {
		if f := float64(c) / runs; math.Abs(f-1.0/n) > 0.02 {
			t.Fatalf("without DrawUnvisitedInOrder block %d is drawn first in %.3f of the runs, want %.3f", i, f, 1.0/n)
		}
	}

	u, v := NewSampler(run.Uniform, n), NewSampler(run.Uniform, n)
	v.DrawUnvisitedInOrder()
	ru, rv := rand.New(rand.NewPCG(1, 2)), rand.New(rand.NewPCG(1, 2))
	for k := 0; k < 3*n; k++ {
		if a, b := u.Next(ru), v.Next(rv); a != b {
			t.Fatalf("uniform sampling, draw %d: %d with DrawUnvisitedInOrder, %d without", k, b, a)
		}
	}
}
