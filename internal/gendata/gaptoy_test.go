package gendata

import (
	"math"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
)

func TestGapToyStructure(t *testing.T) {
	for _, tc := range []struct{ n, K int }{{2, 2}, {5, 3}, {10, 20}} {
		p, err := GapToy(tc.n, tc.K)
		if err != nil {
			t.Fatal(err)
		}
		if p.Len() != tc.n || p.Dim() != tc.K+1 {
			t.Fatalf("n=%d K=%d: Len %d Dim %d", tc.n, tc.K, p.Len(), p.Dim())
		}
		var psi oracles.SparseVec
		for i := 0; i < tc.n; i++ {
			if p.NumLabels(i) != tc.K+1 || p.Truth(i)[0] != 0 {
				t.Fatalf("object %d: %d labels, truth %v", i, p.NumLabels(i), p.Truth(i))
			}
			p.Psi(i, []int32{0}, &psi)
			if psi.Len() != 0 || p.Loss(i, []int32{0}) != 0 {
				t.Errorf("object %d: psi(truth) = %v, loss %v", i, psi, p.Loss(i, []int32{0}))
			}
			for k := 1; k <= tc.K; k++ {
				if l := p.Loss(i, []int32{int32(k)}); l != 1 {
					t.Errorf("object %d label %d: loss %v, want 1", i, k, l)
				}
				p.Psi(i, []int32{int32(k)}, &psi)
				want := make([]float64, tc.K+1)
				if i == 0 {
					want[k-1] = 1 / math.Sqrt2
				} else {
					want[tc.K] = 1
				}
				got := psi.Dense(tc.K + 1)
				for j := range want {
					if math.Abs(got[j]-want[j]) > 1e-15 {
						t.Fatalf("object %d label %d: psi = %v, want %v", i, k, got, want)
					}
				}
			}
		}
	}
}

func TestGapToyErrors(t *testing.T) {
	for _, tc := range []struct{ n, K int }{{1, 3}, {0, 3}, {3, 1}, {-2, 5}, {5, -1}, {math.MaxInt, 4}, {4, math.MaxInt - 1}} {
		if _, err := GapToy(tc.n, tc.K); err == nil || !strings.Contains(err.Error(), "gap toy") {
			t.Errorf("GapToy(%d, %d): error %v", tc.n, tc.K, err)
		}
	}
	if GapToyOptimum(0) != nil {
		t.Error("GapToyOptimum(0) is not nil")
	}
}

// TestGapToyOptimum checks GapToyOptimum through strong duality: the dual
// point described in its comment maps to w* and has the same objective.
func TestGapToyOptimum(t *testing.T) {
	for _, tc := range []struct{ n, K int }{{2, 2}, {4, 3}, {10, 25}} {
		p, err := GapToy(tc.n, tc.K)
		if err != nil {
			t.Fatal(err)
		}
		n, K := float64(tc.n), float64(tc.K)
		lambda := 1 / n
		wStar := GapToyOptimum(tc.K)

		// alpha*: 1/K on each wrong label of the hard object; the easy
		// objects put mass 1 in total on wrong labels (here all on object 1,
		// label 1).
		w := make([]float64, p.Dim())
		var ell float64
		var psi oracles.SparseVec
		add := func(i, k int, a float64) {
			p.Psi(i, []int32{int32(k)}, &psi)
			psi.AddTo(w, a/(lambda*n))
			ell += a * p.Loss(i, []int32{int32(k)}) / n
		}
		for k := 1; k <= tc.K; k++ {
			add(0, k, 1/K)
		}
		add(1, 1, 1)
		var sq float64
		for j := range w {
			if math.Abs(w[j]-wStar[j]) > 1e-12 {
				t.Fatalf("n=%d K=%d: w(alpha*) = %v, want %v", tc.n, tc.K, w, wStar)
			}
			sq += w[j] * w[j]
		}
		dual := ell - lambda/2*sq
		P := oraclestest.Primal(p, lambda, wStar)
		want := (1+1/(2*K))/(2*n) + (1-1/(2*K))/n
		if math.Abs(P-dual) > 1e-12 || math.Abs(P-want) > 1e-12 {
			t.Errorf("n=%d K=%d: primal %v, dual %v, documented %v", tc.n, tc.K, P, dual, want)
		}
		// The value printed in the paper, e_{K+1} + (1/K) sum e_k, is worse.
		paper := make([]float64, tc.K+1)
		for k := 0; k < tc.K; k++ {
			paper[k] = 1 / K
		}
		paper[tc.K] = 1
		if pp := oraclestest.Primal(p, lambda, paper); pp <= P+1e-9 {
			t.Errorf("n=%d K=%d: the paper's w* has primal %v <= %v", tc.n, tc.K, pp, P)
		}
	}
}
