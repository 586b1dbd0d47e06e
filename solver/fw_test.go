package solver

import (
	"bytes"
	"slices"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/run"
)

// TestBatchConvergedPassIsCountedOnce: batch FW and the cutting plane
// stop on Stop.Gap at the iterate whose pass certified it, recording that
// point; a later Run (with a tighter gap), after a Save and Load or not,
// reuses the counted pass, so that its iterates and counters are those of
// one run to the tighter gap, whose trace the split run's contains.
func TestBatchConvergedPassIsCountedOnce(t *testing.T) {
	for _, alg := range []run.Algorithm{run.FW, run.CuttingPlane} {
		t.Run(alg.String(), func(t *testing.T) {
			p := smallChain(31)
			cfg := config{Lambda: 0.1, Algorithm: alg, GapEvery: 7}
			whole := mustNew(t, p, cfg)
			if st := mustRun(t, whole, run.Stop{Gap: 0.02, Passes: 500}); st != run.StatusConverged {
				t.Fatalf("whole run: %v", st)
			}
			for _, reload := range []bool{false, true} {
				split := mustNew(t, p, cfg)
				if st := mustRun(t, split, run.Stop{Gap: 0.2, Passes: 500}); st != run.StatusConverged {
					t.Fatalf("first half: %v", st)
				}
				last, _ := split.Last()
				if last.Steps != split.Steps() || !(last.Gap <= 0.2) {
					t.Fatalf("first half stopped at step %d with its last point at step %d, gap %v", split.Steps(), last.Steps, last.Gap)
				}
				if reload {
					var buf bytes.Buffer
					if err := split.Save(&buf); err != nil {
						t.Fatal(err)
					}
					var err error
					if split, err = Load(&buf, p); err != nil {
						t.Fatal(err)
					}
				}
				if st := mustRun(t, split, run.Stop{Gap: 0.02, Passes: 500}); st != run.StatusConverged {
					t.Fatalf("second half: %v", st)
				}
				if split.OracleCalls() != whole.OracleCalls() || split.Steps() != whole.Steps() || !slices.Equal(split.Weights(), whole.Weights()) {
					t.Fatalf("reload %v: split run at %d calls %d steps, whole run %d calls %d steps (weights equal: %v)", reload,
						split.OracleCalls(), split.Steps(), whole.OracleCalls(), whole.Steps(), slices.Equal(split.Weights(), whole.Weights()))
				}
				for _, wp := range whole.Trace() {
					if !slices.ContainsFunc(split.Trace(), func(sp run.Point) bool { return samePoint(sp, wp) }) {
						t.Fatalf("reload %v: point %+v of the whole run missing from the split run", reload, wp)
					}
				}
			}
		})
	}
}

// samePoint compares two trace points but for the solver time.
func samePoint(a, b run.Point) bool {
	a.Seconds, b.Seconds, a.EvalSeconds, b.EvalSeconds = 0, 0, 0, 0
	a.OracleTimeShare, b.OracleTimeShare = 0, 0
	ja, _ := a.MarshalJSON()
	jb, _ := b.MarshalJSON()
	return bytes.Equal(ja, jb)
}

// TestBatchApproximateStopsOnExactGap: with an approximate oracle that has
// an exact one, batch FW certifies Stop.Gap only by the exact evaluations
// it records, and stops at the iterate of the first such evaluation at or
// below the gap, without stepping past it.
func TestBatchApproximateStopsOnExactGap(t *testing.T) {
	p, err := oracles.WithAccuracy(smallChain(32), 0.7)
	if err != nil {
		t.Fatal(err)
	}
	s := mustNew(t, p, config{Lambda: 0.2, Algorithm: run.FW, GapEvery: 2})
	if st := mustRun(t, s, run.Stop{Gap: 0.05, Passes: 1000}); st != run.StatusConverged {
		t.Fatalf("status %v", st)
	}
	last, _ := s.Last()
	if last.ApproximateGap || !(last.Gap <= 0.05) || last.Steps != s.Steps() || last.Refresh {
		t.Fatalf("last point %+v at step %d: want an exact gap <= 0.05 at the final iterate", last, s.Steps())
	}
	for _, pt := range s.Trace()[:len(s.Trace())-1] {
		if pt.Gap <= 0.05 {
			t.Fatalf("the run went on past point %+v", pt)
		}
	}
}
