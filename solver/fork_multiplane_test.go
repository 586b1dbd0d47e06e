package solver

import (
	"math"
	"testing"

	"github.com/fwstruct/fwstruct/solver/run"
)

// TestForkMultiPlaneWithoutPlanesIsBCFW: a fork of BCFW with permutation
// sampling to multi-plane BCFW with N = M = 0 (the paper's BCFW) continues
// exactly as the original does.
func TestForkMultiPlaneWithoutPlanesIsBCFW(t *testing.T) {
	p := smallChain(24)
	for _, avg := range []bool{false, true} {
		a := mustNew(t, p, config{Lambda: 0.05, Seed: 5, GapEvery: 3, Sampling: run.Permutation, Averaging: avg})
		mustRun(t, a, run.Stop{Passes: 4})
		c := a.cfg
		c.MultiPlane = mpConfig{Enabled: true, N: -1, M: -1}
		f, err := a.fork(c)
		if err != nil {
			t.Fatal(err)
		}
		mustRun(t, a, run.Stop{Passes: 13})
		mustRun(t, f, run.Stop{Passes: 13})
		wa, wf := a.Weights(), f.Weights()
		for j := range wa {
			if wa[j] != wf[j] {
				t.Fatalf("averaging %v: weights differ at %d: %v vs %v", avg, j, wa[j], wf[j])
			}
		}
		ea, ef := mustEval(t, a), mustEval(t, f)
		if avg && ea.GapAvg != ef.GapAvg {
			t.Fatalf("averaged gaps differ: %v vs %v", ea.GapAvg, ef.GapAvg)
		}
	}
}

// TestForkMultiPlaneOnRunsApproximatePasses: after a fork switching
// multi-plane BCFW on (both pass rules), the run makes approximate passes
// over working sets of several planes, its dual never decreases from the
// fork on, the oracle time share is a fraction, and the cost rule's
// forks are reproducible.
func TestForkMultiPlaneOnRunsApproximatePasses(t *testing.T) {
	p := smallChain(25)
	a := mustNew(t, p, config{Lambda: 0.01, Seed: 6, GapEvery: 1, Sampling: run.Permutation, Averaging: true})
	mustRun(t, a, run.Stop{Passes: 3})
	at := mustEval(t, a)
	for _, mp := range []mpConfig{{Enabled: true}, {Enabled: true, Rule: ruleCost, CostRatio: 30}} {
		var weights [][]float64
		for rep := 0; rep < 2; rep++ {
			c := a.cfg
			c.MultiPlane = mp
			f, err := a.fork(c)
			if err != nil {
				t.Fatal(err)
			}
			mustRun(t, f, run.Stop{Passes: 12})
			checkConsistency(t, f)
			dual := at.Dual
			var end run.Point
			for _, pt := range f.Trace()[len(a.Trace()):] {
				if pt.Dual < dual-1e-12 {
					t.Fatalf("%+v: dual fell from %v to %v at pass %v", mp, dual, pt.Dual, pt.Pass)
				}
				dual, end = pt.Dual, pt
			}
			if !(end.ApproxPasses > 0) || !(end.WorkingSetMean > 1) || !(end.OracleTimeShare > 0 && end.OracleTimeShare <= 1) {
				t.Fatalf("%+v: last point %+v: want approximate passes, working sets and an oracle time share", mp, end)
			}
			if math.IsNaN(end.GapAvg) || end.GapAvg < -1e-12 {
				t.Fatalf("%+v: averaged gap %v", mp, end.GapAvg)
			}
			weights = append(weights, f.Weights())
		}
		if mp.Rule == ruleCost {
			for j := range weights[0] {
				if weights[0][j] != weights[1][j] {
					t.Fatalf("two cost-rule forks of one state differ at w[%d]", j)
				}
			}
		}
	}
}

// TestRemapStarts: the iteration starts a new T keeps are those the old T
// knew, and step 0 for the others.
func TestRemapStarts(t *testing.T) {
	// Iterations 0..6 started at steps 0, 10, ..., 60; T = 3 keeps 4, 5, 6.
	old := make([]int64, 3)
	for k := int64(4); k <= 6; k++ {
		old[k%3] = 10 * k
	}
	for _, tc := range []struct {
		T    int
		iter int64
		want map[int64]int64 // iteration -> start
	}{
		{2, 6, map[int64]int64{5: 50, 6: 60}},
		{5, 6, map[int64]int64{2: 0, 3: 0, 4: 40, 5: 50, 6: 60}},
		{3, 6, map[int64]int64{4: 40, 5: 50, 6: 60}},
	} {
		got := remapStarts(old, tc.iter, tc.T)
		if len(got) != tc.T {
			t.Fatalf("T %d: %d starts", tc.T, len(got))
		}
		for k, want := range tc.want {
			if got[k%int64(tc.T)] != want {
				t.Errorf("T %d: iteration %d starts at %d, want %d", tc.T, k, got[k%int64(tc.T)], want)
			}
		}
	}
}
