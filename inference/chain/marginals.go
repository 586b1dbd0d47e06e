package chain

import "math"

// tiny is the smallest sum of shifted exponentials Marginals takes the log
// of; below it (a sum near the denormals) it recomputes the log-sum-exp of
// that entry term by term.
const tiny = 1e-280

// Marginals runs the forward-backward algorithm on the Gibbs distribution
// over the labelings of the chain of T = len(unary)/K positions,
//
//	p(y) = exp(sum_t unary[t*K + y_t] + sum_{t < T-1} trans[y_t*K + y_{t+1}]) / Z,
//
// the expectation oracle of online exponentiated gradient (Collins et al.
// 2008). It writes the node marginals node[t*K + k] = p(y_t = k) and the
// edge marginals summed over the positions, edge[k*K + l] =
// sum_{t < T-1} p(y_t = k, y_{t+1} = l), and returns log Z.
//
// The messages are kept in log space, so that scores of any magnitude (the
// log-potentials of online EG grow without bound) neither overflow nor
// lose their differences. Each message is a log-sum-exp computed with its
// terms shifted by the largest message entry and the largest transition,
// exp(a_k - max a) exp(trans_kl - max trans), a K x K product of numbers in
// (0, 1] after K exponentials per position (the K^2 exponentials of the
// transitions are taken once per call); an entry whose shifted sum falls
// below 1e-280, where the shifts would lose it, is recomputed exactly term
// by term with its own shift. fwd and bwd are scratch of at least
// len(unary) entries, scr of at least K*K + 2K; node has len(unary) entries
// and edge K*K. No score may be NaN or +Inf, and T must be at least 1. It
// does not allocate.
func Marginals(unary, trans []float64, K int, fwd, bwd, scr, node, edge []float64) float64 {
	T := len(unary) / K
	u := unary[:T*K]
	a, b := fwd[:T*K], bwd[:T*K]
	trans = trans[:K*K]
	node, edge = node[:T*K], edge[:K*K]
	E, p, q := scr[:K*K], scr[K*K:K*K+K], scr[K*K+K:K*K+2*K]
	mT := math.Inf(-1)
	for _, v := range trans {
		mT = max(mT, v)
	}
	for j, v := range trans {
		E[j] = math.Exp(v - mT)
	}
	// Forward: a_t(l) = u_t(l) + log sum_k exp(a_{t-1}(k) + trans(k, l)).
	copy(a[:K], u[:K])
	for t := 1; t < T; t++ {
		prev, cur := a[(t-1)*K:t*K], a[t*K:t*K+K]
		ma := shiftExp(p, prev)
		clear(cur)
		for k, pk := range p {
			if pk == 0 {
				continue
			}
			row := E[k*K : k*K+K]
			row = row[:len(cur)]
			for l, e := range row {
				cur[l] += pk * e
			}
		}
		for l, s := range cur {
			if s > tiny {
				cur[l] = u[t*K+l] + ma + mT + math.Log(s)
				continue
			}
			m := math.Inf(-1)
			for k, ak := range prev {
				m = max(m, ak+trans[k*K+l])
			}
			var z float64
			for k, ak := range prev {
				z += math.Exp(ak + trans[k*K+l] - m)
			}
			cur[l] = u[t*K+l] + m + math.Log(z)
		}
	}
	logZ := logSumExp(a[(T-1)*K:])
	// Backward: b_t(k) = log sum_l exp(trans(k, l) + u_{t+1}(l) + b_{t+1}(l)).
	clear(b[(T-1)*K:])
	for t := T - 2; t >= 0; t-- {
		next, cur := b[(t+1)*K:(t+2)*K], b[t*K:t*K+K]
		un := u[(t+1)*K : (t+2)*K]
		mb := shiftExpSum(q, un, next)
		for k := range cur {
			row := E[k*K : k*K+K]
			row = row[:len(q)]
			var s float64
			for l, e := range row {
				s += e * q[l]
			}
			if s > tiny {
				cur[k] = mb + mT + math.Log(s)
				continue
			}
			tr := trans[k*K : k*K+K]
			m := math.Inf(-1)
			for l, bl := range next {
				m = max(m, tr[l]+un[l]+bl)
			}
			var z float64
			for l, bl := range next {
				z += math.Exp(tr[l] + un[l] + bl - m)
			}
			cur[k] = m + math.Log(z)
		}
	}
	for j := range node {
		node[j] = math.Exp(a[j] + b[j] - logZ)
	}
	// Edges: p(y_t = k, y_{t+1} = l) = exp(a_t(k) + trans(k, l) +
	// u_{t+1}(l) + b_{t+1}(l) - log Z), the product of the shifted factors
	// times exp(ma + mT + mb - log Z) when that is finite and the factors
	// are not lost to underflow, else term by term.
	clear(edge)
	for t := 0; t+1 < T; t++ {
		at := a[t*K : t*K+K]
		un, next := u[(t+1)*K:(t+2)*K], b[(t+1)*K:(t+2)*K]
		ma := shiftExp(p, at)
		mb := shiftExpSum(q, un, next)
		if c := math.Exp(ma + mT + mb - logZ); !math.IsInf(c, 0) && c > tiny {
			for k, pk := range p {
				row, out := E[k*K:k*K+K], edge[k*K:k*K+K]
				row, out = row[:len(q)], out[:len(q)]
				f := c * pk
				for l, ql := range q {
					out[l] += f * row[l] * ql
				}
			}
			continue
		}
		for k, ak := range at {
			row, out := trans[k*K:k*K+K], edge[k*K:k*K+K]
			base := ak - logZ
			for l, bl := range next {
				out[l] += math.Exp(base + row[l] + un[l] + bl)
			}
		}
	}
	return logZ
}

// shiftExp sets dst_k = exp(x_k - max x) and returns max x.
func shiftExp(dst, x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = max(m, v)
	}
	dst = dst[:len(x)]
	for k, v := range x {
		dst[k] = math.Exp(v - m)
	}
	return m
}

// shiftExpSum sets dst_k = exp(x_k + y_k - max(x + y)) and returns
// max(x + y).
func shiftExpSum(dst, x, y []float64) float64 {
	m := math.Inf(-1)
	y = y[:len(x)]
	for k, v := range x {
		m = max(m, v+y[k])
	}
	dst = dst[:len(x)]
	for k, v := range x {
		dst[k] = math.Exp(v + y[k] - m)
	}
	return m
}

// logSumExp returns log sum_j exp(x_j), shifted by the largest term.
func logSumExp(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = max(m, v)
	}
	if math.IsInf(m, -1) {
		return m
	}
	var s float64
	for _, v := range x {
		s += math.Exp(v - m)
	}
	return m + math.Log(s)
}
