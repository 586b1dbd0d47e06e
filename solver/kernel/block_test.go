package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fwstruct/fwstruct/oracles/oraclestest"
)

// TestKernelBlocksMatchBetween checks both kernel blocks, kvRows (the rows
// of a few queries, tiles over the workers) and sweep (every query, chunks
// over the workers), against between entry by entry, bit for bit, for
// every kind of kernel, lists shorter and longer than a tile (repeated
// entries too), queries from the training and from other inputs, and one
// to three workers.
func TestKernelBlocksMatchBetween(t *testing.T) {
	tr := newInputs(oraclestest.Multiclass(150, 3, 13, 1))
	te := newInputs(oraclestest.Multiclass(70, 3, 13, 2))
	rng := rand.New(rand.NewPCG(3, 4))
	pick := func(n, m int) []int32 {
		l := make([]int32, m)
		for k := range l {
			l[k] = int32(rng.IntN(n))
		}
		return l
	}
	for _, k := range []Kernel{{Kind: Linear}, {Kind: RBF, Gamma: 0.3}, {Kind: Poly, Gamma: 0.5, Degree: 3, Coef0: 1}} {
		for _, m := range []int{0, 1, 7, tileRows, tileRows + 5, 140} {
			for W := 1; W <= 3; W++ {
				t.Run(fmt.Sprintf("%v list %d workers %d", k, m, W), func(t *testing.T) {
					list := pick(tr.len(), m)
					check := func(what string, q *inputs, qi int32, p int, got float64) {
						t.Helper()
						if want := k.between(tr, int(list[p]), q, int(qi)); math.Float64bits(got) != math.Float64bits(want) {
							t.Fatalf("%s: query %d, entry %d: %v, between gives %v", what, qi, p, got, want)
						}
					}
					qs := pick(tr.len(), 5)
					out := make([]float64, len(qs)*m)
					k.kvRows(tr, list, tr, qs, out, make([]blockScratch, W))
					for a, qi := range qs {
						for p := range list {
							check("kvRows", tr, qi, p, out[a*m+p])
						}
					}
					seen := make([]int, te.len())
					k.sweep(tr, list, te, te.all(), make([]blockScratch, W), func(_, a int, kv []float64) {
						seen[a]++
						for p, v := range kv {
							check("sweep", te, int32(a), p, v)
						}
					})
					for a, c := range seen {
						if c != 1 {
							t.Fatalf("sweep called query %d %d times", a, c)
						}
					}
				})
			}
		}
	}
}

// BenchmarkKernelBlockUSPS times the kernel values of USPS digits against
// 2,000 support vectors (RBF): one at a time with between, as kvRows rows
// of aheadBlocks queries (a lookahead block of the steps), and in a sweep
// over 512 queries (a gap pass or the test error), with one and two
// workers.
func BenchmarkKernelBlockUSPS(b *testing.B) {
	train, _ := loadUSPS(b)
	in := newInputs(train)
	k := Kernel{Kind: RBF, Gamma: 0.0125}
	rng := rand.New(rand.NewPCG(1, 2))
	sv := make([]int32, 2000)
	for p, j := range rng.Perm(in.len())[:len(sv)] {
		sv[p] = int32(j)
	}
	perValue := func(b *testing.B, values int) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*values), "ns/value")
	}
	b.Run("between", func(b *testing.B) {
		var s float64
		for q := 0; b.Loop(); q = (q + 1) % in.len() {
			for _, j := range sv {
				s += k.between(in, int(j), in, q)
			}
		}
		perValue(b, len(sv))
	})
	for _, W := range []int{1, 2} {
		scratch := make([]blockScratch, W)
		b.Run(fmt.Sprintf("kvRows/workers=%d", W), func(b *testing.B) {
			out := make([]float64, aheadBlocks*len(sv))
			for q := 0; b.Loop(); q = (q + aheadBlocks) % (in.len() - aheadBlocks) {
				k.kvRows(in, sv, in, in.all()[q:q+aheadBlocks], out, scratch)
			}
			perValue(b, aheadBlocks*len(sv))
		})
		b.Run(fmt.Sprintf("sweep/workers=%d", W), func(b *testing.B) {
			for q := 0; b.Loop(); q = (q + 512) % (in.len() - 512) {
				k.sweep(in, sv, in, in.all()[q:q+512], scratch, func(int, int, []float64) {})
			}
			perValue(b, 512*len(sv))
		})
	}
}
