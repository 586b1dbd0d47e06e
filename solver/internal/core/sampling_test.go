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
