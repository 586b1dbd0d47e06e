package core

import (
	"math"
	"math/rand/v2"
	"testing"
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
