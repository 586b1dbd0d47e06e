package solver

import "github.com/fwstruct/fwstruct/oracles"

// dot4 returns <a, w>, <b, w>, <c, w> and <d, w>, each summed in index order
// as SparseVec.Dot sums it, so each is Dot's value bit for bit. The four
// sums are independent chains of additions: interleaved, they run about
// four times as fast as four calls of Dot, whose one chain waits for each
// addition (the scoring of a block's cached corners, where most steps of a
// cached run spend their time, is this loop).
func dot4(a, b, c, d *oracles.SparseVec, w []float64) (sa, sb, sc, sd float64) {
	n := min(len(a.Idx), len(b.Idx), len(c.Idx), len(d.Idx))
	ai, bi, ci, di := a.Idx[:n], b.Idx[:n], c.Idx[:n], d.Idx[:n]
	av, bv, cv, dv := a.Val[:n], b.Val[:n], c.Val[:n], d.Val[:n]
	for k := range n {
		sa += av[k] * w[ai[k]]
		sb += bv[k] * w[bi[k]]
		sc += cv[k] * w[ci[k]]
		sd += dv[k] * w[di[k]]
	}
	sa = dotFrom(a, w, n, sa)
	sb = dotFrom(b, w, n, sb)
	sc = dotFrom(c, w, n, sc)
	sd = dotFrom(d, w, n, sd)
	return sa, sb, sc, sd
}

// dotFrom adds the terms of <v, w> from position k on to sum, in order.
func dotFrom(v *oracles.SparseVec, w []float64, k int, sum float64) float64 {
	val := v.Val[:len(v.Idx)]
	for ; k < len(v.Idx); k++ {
		sum += val[k] * w[v.Idx[k]]
	}
	return sum
}
