package oracles_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	. "github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
)

func accuracyProblems() []LabeledProblem {
	return []LabeledProblem{
		oraclestest.Chain(oraclestest.ChainConfig{N: 8, MaxLen: 4, Labels: 3, Features: 4, Density: 0.8, Seed: 1}),
		oraclestest.Chain(oraclestest.ChainConfig{N: 6, MaxLen: 5, Labels: 4, Features: 3, Density: 1, Seed: 2}),
		oraclestest.Multiclass(10, 5, 4, 3),
	}
}

func mustAccuracy(t testing.TB, p Problem, nu float64) *Approx {
	t.Helper()
	a, err := WithAccuracy(p, nu)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestWithAccuracyConformance(t *testing.T) {
	for k, p := range accuracyProblems() {
		for _, nu := range []float64{1, 0.7, 0.3} {
			t.Run(fmt.Sprintf("problem %d nu %v", k, nu), func(t *testing.T) {
				oraclestest.Conformance(t, mustAccuracy(t, p, nu), oraclestest.CheckOptions{Seed: uint64(k), Weights: 4})
			})
		}
	}
}

// bruteScores returns every labeling's score H_i(y; w) and the maximum.
func bruteScores(p LabeledProblem, i int, w []float64) (scores map[string]float64, max float64) {
	scores = map[string]float64{}
	max = math.Inf(-1)
	var psi SparseVec
	p.ForEachLabeling(i, func(y []int32) {
		h := H(p, i, y, w, &psi)
		scores[fmt.Sprint(y)] = h
		max = math.Max(max, h)
	})
	return scores, max
}

// TestWithAccuracyGuarantee checks condition (*) of Approx against brute
// force, for the ground truth's reference (MaxOracle) and for references
// between the smallest and the largest score (MaxOracleRelative), and that
// the returned score is the labeling's.
func TestWithAccuracyGuarantee(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for k, p := range accuracyProblems() {
		for _, nu := range []float64{1, 0.9, 0.5, 0.1} {
			a := mustAccuracy(t, p, nu)
			for i := 0; i < p.Len(); i++ {
				for r := 0; r < 4; r++ {
					w := oraclestest.Weights(rng, p.Dim(), 1.5)
					scores, hStar := bruteScores(p, i, w)
					refs := []float64{0, hStar, hStar - rng.Float64()*(hStar+2)}
					for m, ref := range refs {
						var y []int32
						var h float64
						if m == 0 {
							y, h = a.MaxOracle(i, w, nil)
						} else {
							var err error
							if y, h, err = a.MaxOracleRelative(i, w, ref, nil); err != nil {
								t.Fatal(err)
							}
						}
						got, ok := scores[fmt.Sprint(y)]
						switch {
						case !ok:
							t.Fatalf("problem %d example %d: labeling %v not in the label space", k, i, y)
						case math.Abs(got-h) > 1e-9:
							t.Fatalf("problem %d example %d: score %v, the labeling's %v", k, i, h, got)
						case h-ref < nu*(hStar-ref)-1e-9:
							t.Fatalf("problem %d example %d nu %v ref %v: H(y) - ref = %v < nu (H* - ref) = %v", k, i, nu, ref, h-ref, nu*(hStar-ref))
						case h > hStar+1e-9:
							t.Fatalf("problem %d example %d: score %v above the maximum %v", k, i, h, hStar)
						}
					}
				}
			}
		}
	}
}

// TestWithAccuracyIsInaccurate checks that the wrapper does what it is for:
// below nu = 1 it returns inexact labelings, with a mean achieved accuracy
// close to nu, and nu = 1 is exact.
func TestWithAccuracyIsInaccurate(t *testing.T) {
	p := oraclestest.Chain(oraclestest.ChainConfig{N: 30, MaxLen: 6, Labels: 5, Features: 6, Density: 1, Seed: 7})
	rng := rand.New(rand.NewPCG(7, 7))
	for _, nu := range []float64{1, 0.5} {
		a := mustAccuracy(t, p, nu)
		inexact := 0
		for i := 0; i < p.Len(); i++ {
			w := oraclestest.Weights(rng, p.Dim(), 0.3)
			_, h := a.MaxOracle(i, w, nil)
			if _, hStar := p.MaxOracle(i, w, nil); h < hStar-1e-9 {
				inexact++
			}
		}
		calls, mean := a.Stats()
		t.Logf("nu %v: %d of %d answers inexact, mean accuracy %.3f", nu, inexact, calls, mean)
		if nu == 1 && (inexact > 0 || mean != 1) {
			t.Fatalf("nu = 1: %d inexact answers, mean accuracy %v", inexact, mean)
		}
		if nu < 1 && (inexact < p.Len()/2 || mean < nu || mean > nu+0.3) {
			t.Fatalf("nu = %v: only %d of %d answers inexact, mean accuracy %v", nu, inexact, p.Len(), mean)
		}
	}
}

// TestParametricFamilyIsUnimodal checks by brute force the lemma behind the
// search of Approx: H_i(y(t); w), with y(t) = argmax_y L_i(y) - t <w, psi_i(y)>,
// is non-increasing in t >= 1 and non-decreasing in t <= 1.
func TestParametricFamilyIsUnimodal(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	ts := []float64{1.0 / 64, 1.0 / 8, 0.25, 0.5, 0.9, 1, 1.1, 2, 4, 16, 128}
	for _, p := range accuracyProblems() {
		ex := Exhaustive{LabeledProblem: p}
		var psi SparseVec
		for i := 0; i < p.Len(); i++ {
			w := oraclestest.Weights(rng, p.Dim(), 1)
			tw := make([]float64, len(w))
			hs := make([]float64, len(ts))
			for k, tt := range ts {
				for j := range w {
					tw[j] = tt * w[j]
				}
				y, _ := ex.MaxOracle(i, tw, nil)
				hs[k] = H(p, i, y, w, &psi)
			}
			for k := 1; k < len(ts); k++ {
				if ts[k] <= 1 && hs[k] < hs[k-1]-1e-9 || ts[k-1] >= 1 && hs[k] > hs[k-1]+1e-9 {
					t.Fatalf("example %d: H(y(t)) at t = %v: %v", i, ts, hs)
				}
			}
		}
	}
}

func TestWithAccuracyErrors(t *testing.T) {
	p := oraclestest.Multiclass(3, 2, 2, 1)
	for _, nu := range []float64{0, -0.5, 1.5, math.NaN()} {
		if _, err := WithAccuracy(p, nu); err == nil {
			t.Errorf("nu = %v accepted", nu)
		}
	}
	if _, err := WithAccuracy(nil, 0.5); err == nil {
		t.Error("nil problem accepted")
	}
	a := mustAccuracy(t, p, 0.5)
	if a.Exact() != Problem(p) || a.Nu() != 0.5 {
		t.Fatal("Exact or Nu")
	}
}

func ExampleWithAccuracy() {
	p := oraclestest.Chain(oraclestest.ChainConfig{N: 20, MaxLen: 5, Labels: 4, Features: 5, Density: 1, Seed: 1})
	a, err := WithAccuracy(p, 0.5)
	if err != nil {
		fmt.Println(err)
		return
	}
	rng := rand.New(rand.NewPCG(1, 1))
	w := oraclestest.Weights(rng, p.Dim(), 0.5)
	within := true
	for i := 0; i < p.Len(); i++ {
		_, hStar := p.MaxOracle(i, w, nil)
		_, h := a.MaxOracle(i, w, nil)
		within = within && h >= 0.5*hStar && h <= hStar
	}
	calls, mean := a.Stats()
	fmt.Printf("%d calls, every score within [H*/2, H*]: %v, mean accuracy %.2f\n", calls, within, mean)
	// Output: 20 calls, every score within [H*/2, H*]: true, mean accuracy 0.73
}
