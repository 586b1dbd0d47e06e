package chain

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// bruteMarginals enumerates every labeling and sums exp(score) into the
// node and summed edge marginals, shifting by the largest score.
func bruteMarginals(unary, trans []float64, K int) (node, edge []float64, logZ float64) {
	T := len(unary) / K
	var scores []float64
	var ys [][]int32
	y := make([]int32, T)
	for {
		scores = append(scores, chainScore(unary, trans, K, y))
		ys = append(ys, append([]int32(nil), y...))
		t := T - 1
		for ; t >= 0; t-- {
			y[t]++
			if int(y[t]) < K {
				break
			}
			y[t] = 0
		}
		if t < 0 {
			break
		}
	}
	logZ = logSumExp(scores)
	node, edge = make([]float64, T*K), make([]float64, K*K)
	for j, y := range ys {
		p := math.Exp(scores[j] - logZ)
		for t, k := range y {
			node[t*K+int(k)] += p
			if t+1 < T {
				edge[int(k)*K+int(y[t+1])] += p
			}
		}
	}
	return node, edge, logZ
}

// TestMarginalsMatchEnumeration compares forward-backward with the
// enumeration of every labeling on small chains, with scores of ordinary
// size and with scores in the thousands (where exponentiating without the
// log-space shifts overflows), and T = 1.
func TestMarginalsMatchEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		T, K  int
		scale float64
	}{{1, 3, 1}, {2, 2, 1}, {3, 3, 1}, {4, 3, 2}, {5, 2, 1}, {3, 4, 300}, {3, 4, 1000}, {4, 3, 5000}, {6, 2, 800}} {
		t.Run(fmt.Sprintf("T=%d,K=%d,scale=%g", c.T, c.K, c.scale), func(t *testing.T) {
			unary, trans := make([]float64, c.T*c.K), make([]float64, c.K*c.K)
			for _, v := range [][]float64{unary, trans} {
				for j := range v {
					v[j] = c.scale * rng.NormFloat64()
				}
			}
			fwd, bwd := make([]float64, len(unary)), make([]float64, len(unary))
			node, edge := make([]float64, len(unary)), make([]float64, c.K*c.K)
			logZ := Marginals(unary, trans, c.K, fwd, bwd, make([]float64, c.K*c.K+2*c.K), node, edge)
			wantNode, wantEdge, wantZ := bruteMarginals(unary, trans, c.K)
			if math.Abs(logZ-wantZ) > 1e-9*(1+math.Abs(wantZ)) {
				t.Fatalf("log Z = %v, enumeration %v", logZ, wantZ)
			}
			for _, pair := range []struct {
				name      string
				got, want []float64
			}{{"node", node, wantNode}, {"edge", edge, wantEdge}} {
				for j := range pair.want {
					if g := pair.got[j]; math.IsNaN(g) || math.Abs(g-pair.want[j]) > 1e-9 {
						t.Fatalf("%s marginal %d = %v, enumeration %v", pair.name, j, g, pair.want[j])
					}
				}
			}
			for pos := 0; pos < c.T; pos++ {
				var s float64
				for k := 0; k < c.K; k++ {
					s += node[pos*c.K+k]
				}
				if math.Abs(s-1) > 1e-9 {
					t.Fatalf("node marginals of position %d sum to %v", pos, s)
				}
			}
		})
	}
}
