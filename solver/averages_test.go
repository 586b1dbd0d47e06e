package solver

import (
	"fmt"
	"math"
	"testing"

	"github.com/fwstruct/fwstruct/solver/run"
)

// TestAveragesMatchStoredIterates steps BCFW and SSG one step at a time,
// stores every iterate (v, ell), and checks the average the solver reports
// after every step against the average of the stored iterates computed from
// its definition (Lacoste-Julien et al. 2013, eq. 14; eq. 15 by the doubling
// trick of App. F: the iterates since the last power of 2; the uniform
// average), with and without a box (whose clipped writes go coordinate by
// coordinate).
func TestAveragesMatchStoredIterates(t *testing.T) {
	p := smallChain(4)
	for _, alg := range []run.Algorithm{run.BCFW, run.SSG} {
		for _, kind := range []run.AverageKind{run.WeightedAverage, run.SuffixAverage, run.UniformAverage} {
			for _, boxed := range []bool{false, true} {
				t.Run(fmt.Sprintf("%v-%v box=%v", alg, kind, boxed), func(t *testing.T) {
					cfg := config{Algorithm: alg, Lambda: 0.1, Averaging: true, AverageKind: kind, Seed: 3}
					if boxed {
						cfg.Box = &Box{Lower: fill(p.Dim(), -0.05), Upper: fill(p.Dim(), 0.05)}
					}
					s := mustNew(t, p, cfg)
					var vs [][]float64
					var ells []float64
					got := make([]float64, s.d)
					for k := 1; k <= 75; k++ {
						if err := s.alg.Step(); err != nil {
							t.Fatal(err)
						}
						vs = append(vs, append([]float64(nil), s.x.v...))
						ells = append(ells, s.ell)
						gotEll := s.averagedPoint(got)
						first := 1
						if kind == run.SuffixAverage {
							for first*2 <= k {
								first *= 2
							}
						}
						want := make([]float64, s.d)
						var wantEll, total float64
						for t := first; t <= k; t++ {
							wt := 1.0
							if kind == run.WeightedAverage {
								wt = float64(t)
							}
							for j, x := range vs[t-1] {
								want[j] += wt * x
							}
							wantEll += wt * ells[t-1]
							total += wt
						}
						for j := range want {
							if w := want[j] / total; math.Abs(got[j]-w) > 1e-12*(1+math.Abs(w)) {
								t.Fatalf("step %d: averaged v[%d] = %v, average of the stored iterates %v", k, j, got[j], w)
							}
						}
						if w := wantEll / total; math.Abs(gotEll-w) > 1e-12*(1+math.Abs(w)) {
							t.Fatalf("step %d: averaged ell = %v, average of the stored iterates %v", k, gotEll, w)
						}
					}
				})
			}
		}
	}
}

// TestAverageKindValidation: a kind without averaging, an unknown kind and
// a suffix average with multi-plane BCFW are refused.
func TestAverageKindValidation(t *testing.T) {
	p := smallChain(1)
	for name, cfg := range map[string]config{
		"kind without averaging": {AverageKind: run.SuffixAverage},
		"unknown kind":           {Averaging: true, AverageKind: 7},
		"multi-plane tavg": {Sampling: run.Permutation, Averaging: true, AverageKind: run.SuffixAverage,
			MultiPlane: mpConfig{Enabled: true, Rule: ruleCost, CostRatio: 40}},
	} {
		if _, err := newSolver(p, cfg); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
