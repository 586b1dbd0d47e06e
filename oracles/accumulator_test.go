package oracles

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fwstruct/fwstruct/internal/race"
)

// genChain returns a chain of n sequences of lengths 1..maxT with K labels
// and F features, the features of a position drawn by feature (in
// decreasing index order): whether feature f is stored, and its value.
func genChain(tb testing.TB, rng *rand.Rand, n, maxT, K, F int, feature func() (bool, float64)) *Chain {
	tb.Helper()
	seqs := make([]Sequence, n)
	for i := range seqs {
		T := 1 + rng.IntN(maxT)
		s := Sequence{Labels: make([]int32, T), Features: make([]SparseVec, T)}
		for t := range T {
			s.Labels[t] = int32(rng.IntN(K))
			for f := F - 1; f >= 0; f-- {
				if ok, v := feature(); ok {
					s.Features[t].Append(int32(f), v)
				}
			}
		}
		seqs[i] = s
	}
	c, err := NewChain(K, F, seqs)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// binaryFeatures draws binary features of density p.
func binaryFeatures(rng *rand.Rand, p float64) func() (bool, float64) {
	return func() (bool, float64) { return rng.Float64() < p, 1 }
}

// realFeatures draws real-valued features of density 0.6, one in six of
// them an explicit zero that the chain must drop.
func realFeatures(rng *rand.Rand) func() (bool, float64) {
	return func() (bool, float64) {
		switch r := rng.Float64(); {
		case r < 0.1:
			return true, 0
		case r < 0.6:
			return true, rng.NormFloat64()
		}
		return false, 0
	}
}

// withDirectPsi returns a copy of c (sharing its data) whose Psi scratch
// is in direct mode when direct is set, else hashed.
func withDirectPsi(c *Chain, direct bool) *Chain {
	out := &Chain{numLabels: c.numLabels, numFeatures: c.numFeatures, seqPtr: c.seqPtr, labels: c.labels,
		featPtr: c.featPtr, featIdx: c.featIdx, featVal: c.featVal, ones: c.ones, maxLen: c.maxLen, directPsi: direct}
	out.work.New = func() any { return new(chainWork) }
	return out
}

// densePsi is psi_i(y) from the definition: phi(x_i, y_i) - phi(x_i, y)
// accumulated densely coordinate by coordinate.
func densePsi(c *Chain, i int, y []int32) []float64 {
	psi := make([]float64, c.Dim())
	truth := c.Truth(i)
	add := func(lab []int32, sign float64) {
		T := len(lab)
		for t, k := range lab {
			x := c.Features(i, t)
			for j, f := range x.Idx {
				psi[c.EmissionIndex(int(f), int(k))] += sign * x.Val[j]
			}
			psi[c.BiasIndex(0, int(k))] += sign
			if t > 0 {
				psi[c.TransitionIndex(int(lab[t-1]), int(k))] += sign
			}
		}
		psi[c.BiasIndex(1, int(lab[0]))] += sign
		psi[c.BiasIndex(2, int(lab[T-1]))] += sign
	}
	add(truth, 1)
	add(y, -1)
	return psi
}

// TestPsiScratchModesAgree checks both modes of the Psi scratch against the definition
// on binary and real-valued chains, and labelings that differ from the
// truth in few or many positions (so that contributions cancel).
func TestPsiScratchModesAgree(t *testing.T) {
	cases := []struct {
		name       string
		K, F, maxT int
		binary     bool
		changeProb float64
		density    float64
	}{
		{"binary K=3", 3, 6, 7, true, 0.5, 0.4},
		{"binary K=26 few changes", 26, 20, 9, true, 0.1, 0.3},
		{"binary K=70", 70, 8, 6, true, 0.6, 0.5},
		{"real values K=5", 5, 7, 8, false, 0.5, 0.5},
		{"one label", 1, 4, 5, true, 1, 0.5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.K), uint64(tc.F)))
			features := realFeatures(rng)
			if tc.binary {
				features = binaryFeatures(rng, tc.density)
			}
			c := genChain(t, rng, 25, tc.maxT, tc.K, tc.F, features)
			if (c.featVal == nil) != tc.binary {
				t.Fatalf("binary %v, but the chain stores values: %v", tc.binary, c.featVal != nil)
			}
			for _, direct := range []bool{false, true} {
				cs := withDirectPsi(c, direct)
				var psi SparseVec
				for i := 0; i < cs.Len(); i++ {
					for trial := 0; trial < 4; trial++ {
						y := append([]int32(nil), cs.Truth(i)...)
						for p := range y {
							if rng.Float64() < tc.changeProb {
								y[p] = int32(rng.IntN(tc.K))
							}
						}
						cs.Psi(i, y, &psi)
						want := densePsi(cs, i, y)
						got := make([]float64, cs.Dim())
						for k, j := range psi.Idx {
							if got[j] != 0 {
								t.Fatalf("direct=%v example %d: index %d repeated", direct, i, j)
							}
							if psi.Val[k] == 0 {
								t.Fatalf("direct=%v example %d: explicit zero at %d", direct, i, j)
							}
							got[j] = psi.Val[k]
						}
						for j := range want {
							if math.Abs(got[j]-want[j]) > 1e-12 {
								t.Fatalf("direct=%v example %d coordinate %d: psi %v, want %v", direct, i, j, got[j], want[j])
							}
						}
					}
				}
			}
		})
	}
}

// TestChainBinaryStorage checks that a chain of 0/1 values keeps only the
// indices of its ones and reports them with value 1, and that one other
// value makes it keep every value.
func TestChainBinaryStorage(t *testing.T) {
	x := func(idx []int32, val []float64) SparseVec { return SparseVec{Idx: idx, Val: val} }
	seqs := []Sequence{{
		Labels:   []int32{0, 1},
		Features: []SparseVec{x([]int32{3, 0, 2}, []float64{1, 0, 1}), x(nil, nil)},
	}}
	c, err := NewChain(2, 4, seqs)
	if err != nil {
		t.Fatal(err)
	}
	if c.featVal != nil {
		t.Error("0/1 features: values stored")
	}
	f := c.Features(0, 0)
	if len(f.Idx) != 2 || f.Idx[0] != 3 || f.Idx[1] != 2 || len(f.Val) != 2 || f.Val[0] != 1 || f.Val[1] != 1 {
		t.Errorf("features of position 0: %v %v, want [3 2] [1 1]", f.Idx, f.Val)
	}
	if f := c.Features(0, 1); len(f.Idx) != 0 || len(f.Val) != 0 {
		t.Errorf("features of position 1: %v %v, want none", f.Idx, f.Val)
	}
	seqs[0].Features[1] = x([]int32{1}, []float64{2})
	c, err = NewChain(2, 4, seqs)
	if err != nil {
		t.Fatal(err)
	}
	if c.featVal == nil {
		t.Fatal("a value 2: values not stored")
	}
	if f := c.Features(0, 1); len(f.Val) != 1 || f.Val[0] != 2 {
		t.Errorf("features of position 1: %v, want [2]", f.Val)
	}
	if f := c.Features(0, 0); len(f.Val) != 2 || f.Val[0] != 1 || f.Val[1] != 1 {
		t.Errorf("features of position 0: %v, want [1 1]", f.Val)
	}
}

// conllShaped returns a chain of the shape of CoNLL-2000: F = 75,000 binary
// features, K = 22 labels (d = 1.65M), 20 features per token drawn from a
// Zipf-like law, sentences of up to 40 tokens.
func conllShaped(tb testing.TB, n int) *Chain {
	tb.Helper()
	const K, F, perToken = 22, 75000, 20
	rng := rand.New(rand.NewPCG(9, 10))
	zipf := rand.NewZipf(rng, 1.1, 4, F-1)
	seqs := make([]Sequence, n)
	for i := range seqs {
		T := 1 + rng.IntN(40)
		s := Sequence{Labels: make([]int32, T), Features: make([]SparseVec, T)}
		for t := range T {
			s.Labels[t] = int32(rng.IntN(K))
			seen := map[int32]bool{}
			for len(seen) < perToken {
				f := int32(zipf.Uint64())
				if !seen[f] {
					seen[f] = true
					s.Features[t].Append(f, 1)
				}
			}
		}
		seqs[i] = s
	}
	c, err := NewChain(K, F, seqs)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// scratchBytes returns the memory held by a Psi scratch.
func scratchBytes(a *Accumulator) int {
	return 4*cap(a.keys) + 8*cap(a.vals) + 4*cap(a.used)
}

// TestPsiScratchIsNotOrderD checks that a chain of CoNLL's dimension uses
// the hashed scratch and that its scratch, after psi of every example at a
// labeling wrong everywhere, holds at most 4 slots of 12 bytes (and one
// used index) per entry of the largest psi, far below the 9 bytes per
// coordinate of a dense scratch.
func TestPsiScratchIsNotOrderD(t *testing.T) {
	c := conllShaped(t, 50)
	if c.directPsi {
		t.Fatalf("d = %d uses the direct Psi scratch", c.Dim())
	}
	ws := new(chainWork)
	var psi SparseVec
	entries := 0
	for i := 0; i < c.Len(); i++ {
		y := append([]int32(nil), c.Truth(i)...)
		for p := range y {
			y[p] = (y[p] + 1) % int32(c.NumLabels())
		}
		c.psi(ws, i, y, &psi)
		// 20 features a token, its model bias, transitions, first and last.
		entries = max(entries, 2*c.SeqLen(i)*21+2*c.SeqLen(i)+2)
	}
	y := append([]int32(nil), c.Truth(0)...)
	y[0] = (y[0] + 1) % int32(c.NumLabels())
	if allocs := testing.AllocsPerRun(20, func() { c.psi(ws, 0, y, &psi) }); allocs != 0 && !race.Enabled {
		t.Errorf("psi allocates %v times per call in steady state", allocs)
	}
	got := scratchBytes(ws.acc)
	bound := 4 * entries * (4 + 8 + 4)
	t.Logf("d = %d: Psi scratch %.3f MB (dense: %.1f MB)", c.Dim(), float64(got)/1e6, 9*float64(c.Dim())/1e6)
	if got <= 0 || got > bound {
		t.Errorf("Psi scratch of %d bytes, want at most %d", got, bound)
	}
}

// BenchmarkPsiScratch compares the two Psi scratches on a chain of the shape
// of CoNLL (d = 1.65M), at labelings wrong at every other position.
func BenchmarkPsiScratch(b *testing.B) {
	c := conllShaped(b, 500)
	ys := make([][]int32, c.Len())
	for i := range ys {
		ys[i] = append([]int32(nil), c.Truth(i)...)
		for p := 0; p < len(ys[i]); p += 2 {
			ys[i][p] = (ys[i][p] + 1) % int32(c.NumLabels())
		}
	}
	for _, bc := range []struct {
		name   string
		direct bool
	}{{"direct", true}, {"hashed", false}} {
		b.Run(bc.name, func(b *testing.B) {
			cs := withDirectPsi(c, bc.direct)
			var psi SparseVec
			b.ReportAllocs()
			for k := 0; b.Loop(); k++ {
				i := k % cs.Len()
				cs.Psi(i, ys[i], &psi)
			}
		})
	}
}

// TestHashedScratchMatchesMap feeds the hashed table random contributions,
// reserving room as they come (so that it grows and rehashes while holding
// entries), with many cancellations, over several flushes, and compares
// each result with a map.
func TestHashedScratchMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const width = 7
	a := newPsiAccumulator(50, width, false)
	var dst SparseVec
	for round, n := range []int{0, 1, 5, 40, 300, 3, 2000, 17} {
		want := map[int32]float64{}
		for range n {
			r, col := int32(rng.IntN(50)), int32(rng.IntN(width))
			v := float64(rng.IntN(3) - 1) // -1, 0 or 1: sums often cancel
			if rng.IntN(2) == 0 {
				a.reserve(1)
				a.add(r*width+col, v)
				want[r*width+col] += v
				continue
			}
			r2, cb := (r+3)%50, (col+2)%width
			a.pairs([]int32{r, r2}, []float64{v, 2 * v}, col, cb)
			want[r*width+col] += v
			want[r*width+cb] -= v
			want[r2*width+col] += 2 * v
			want[r2*width+cb] -= 2 * v
		}
		a.flush(&dst)
		got := map[int32]float64{}
		for k, i := range dst.Idx {
			if _, dup := got[i]; dup || dst.Val[k] == 0 {
				t.Fatalf("round %d: index %d repeated or explicit zero", round, i)
			}
			got[i] = dst.Val[k]
		}
		for i, v := range want {
			if got[i] != v {
				t.Fatalf("round %d: coordinate %d is %v, want %v", round, i, got[i], v)
			}
		}
		if len(got) > len(want) {
			t.Fatalf("round %d: %d entries, want at most %d", round, len(got), len(want))
		}
		for h, k := range a.keys {
			if k != 0 || a.vals[h] != 0 {
				t.Fatalf("round %d: slot %d not emptied by flush", round, h)
			}
		}
		if 2*len(want) > len(a.keys) && len(want) > 0 {
			t.Fatalf("round %d: table of %d slots holds %d entries (more than half)", round, len(a.keys), len(want))
		}
	}
}

// TestAccumulatorEnsureModes: through Ensure, Add and Flush, an
// accumulator of a small dimension (direct mode) and of a large one
// (hashed mode, growing while it holds entries) returns the same vector as
// summing the contributions coordinate by coordinate in their order, its
// entries in the order of first contribution, without the coordinates
// whose contributions cancel; it is reusable after Flush and after Ensure
// switches modes.
func TestAccumulatorEnsureModes(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	var a Accumulator
	var dst SparseVec
	for round, d := range []int{10, 1000, directScratchMax + 1, 5_000_000, 64, directScratchMax} {
		a.Ensure(d)
		if a.direct != (d <= directScratchMax) {
			t.Fatalf("round %d: d = %d, direct mode %v", round, d, a.direct)
		}
		for rep := 0; rep < 3; rep++ {
			sums := map[int32]float64{}
			var order []int32
			for range 1 + rng.IntN(400) {
				i := int32(rng.IntN(min(d, 60)))
				if d > 60 && rng.IntN(2) == 0 {
					i = int32(rng.IntN(d))
				}
				v := float64(rng.IntN(5)-2) * 0.1 // repeats and cancellations
				if _, seen := sums[i]; !seen {
					order = append(order, i)
				}
				sums[i] += v
				a.Add(i, v)
			}
			a.Flush(&dst)
			var want []int32
			for _, i := range order {
				if sums[i] != 0 {
					want = append(want, i)
				}
			}
			if len(dst.Idx) != len(want) {
				t.Fatalf("round %d: %d entries, want %d", round, len(dst.Idx), len(want))
			}
			for k, i := range want {
				if dst.Idx[k] != i || dst.Val[k] != sums[i] {
					t.Fatalf("round %d: entry %d is (%d, %v), want (%d, %v)", round, k, dst.Idx[k], dst.Val[k], i, sums[i])
				}
			}
		}
	}
}
