package core

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/fwstruct/fwstruct/solver/run"
)

// TestDistinct: every batch holds tau distinct blocks in range; a batch of
// one is Next; a permutation batch follows the permutation; gap sampling
// never draws a zero-gap block while a positive one is left, and restores
// the weights it zeroed.
func TestDistinct(t *testing.T) {
	const n = 10
	for _, kind := range []run.Sampling{run.Uniform, run.Permutation, run.GapSampling} {
		for _, tau := range []int{1, 3, n, n + 5} {
			t.Run(fmt.Sprintf("%v tau=%d", kind, tau), func(t *testing.T) {
				a, b := NewSampler(kind, n), NewSampler(kind, n)
				gaps := make([]float64, n)
				for i := range gaps {
					gaps[i] = float64(i % 3) // blocks 0, 3, 6, 9 have zero gap
				}
				if kind == run.GapSampling {
					a.Refresh(gaps)
					b.Refresh(gaps)
				}
				ra, rb := rand.New(rand.NewPCG(1, 2)), rand.New(rand.NewPCG(1, 2))
				var batch []int
				for round := 0; round < 20; round++ {
					batch = a.Distinct(ra, tau, nil, batch)
					if want := min(tau, n); len(batch) != want {
						t.Fatalf("batch of %d, want %d", len(batch), want)
					}
					seen := map[int]bool{}
					zero := 0
					for _, i := range batch {
						if i < 0 || i >= n || seen[i] {
							t.Fatalf("batch %v: block %d repeated or out of range", batch, i)
						}
						seen[i] = true
						if gaps[i] == 0 {
							zero++
						}
					}
					if kind == run.GapSampling && zero > max(0, len(batch)-6) {
						t.Fatalf("batch %v draws %d zero-gap blocks while positive ones were left", batch, zero)
					}
					if kind == run.GapSampling && a.tree.Total() != b.tree.Total() {
						t.Fatalf("the tree's total is %v after a batch, want %v", a.tree.Total(), b.tree.Total())
					}
					if tau == 1 {
						if i := b.Next(rb); i != batch[0] {
							t.Fatalf("a batch of one drew %d, Next %d", batch[0], i)
						}
					}
				}
			})
		}
	}
}
