package solver

import (
	"testing"

	"github.com/fwstruct/fwstruct/solver/run"
)

// TestCuttingPlaneOCRSmall measures the cutting-plane method against
// SVM^struct's 1-slack cutting plane on OCR-small at C = 100. In
// SVM^struct's scaling (1/2 |w|^2 + C/n sum_i xi_i, which svm-struct-matlab
// and BCFWstruct share) the same problem is lambda = 1/C = 0.01, for any n;
// its default precision -e 0.1 (stop when the most violated joint
// constraint exceeds the slack by at most 0.1, with the QP solved) is a
// certified duality gap of 0.1 in our units. SVM^struct (its default
// -w 4, 1-slack with a constraint cache of 5 labelings per example) needs
// 27,544 oracle calls (44 passes) and 23 s there; our method has no
// constraint cache, so every iteration is a pass of oracle calls.
func TestCuttingPlaneOCRSmall(t *testing.T) {
	small, _ := loadOCR(t)
	s := mustNew(t, small, Config{Algorithm: run.CuttingPlane, Lambda: 0.01, GapEvery: 1})
	if st := mustRun(t, s, run.Stop{Gap: 0.1, Passes: 1000}); st != run.StatusConverged {
		t.Fatalf("status %v after %v passes", st, s.Passes())
	}
	last, _ := s.Last()
	total, active := s.Planes()
	t.Logf("cutting plane, OCR-small, lambda 0.01: gap %.4f after %d oracle calls (%.0f passes), %.2f s solver time; %d planes, %d active, %d corrective steps",
		last.Gap, last.OracleCalls, last.Pass, last.Seconds, total, active, s.InnerSteps())
	fw := mustNew(t, small, Config{Algorithm: run.FW, Lambda: 0.01, GapEvery: 1})
	mustRun(t, fw, run.Stop{Gap: 0.1, Passes: last.Pass})
	if fl, _ := fw.Last(); fl.Gap <= 0.1 {
		t.Fatalf("batch FW reached the gap as fast (%v passes)", fl.Pass)
	}
}

// BenchmarkCuttingPlaneIterationOCRSmall measures one cutting-plane
// iteration on OCR-small at lambda = 0.01 (an oracle pass over the 626
// words, the new plane's Gram row, the corrective QP) after 50 iterations,
// and one batch FW iteration (the same oracle pass, a line search) for
// comparison: the difference is the cost of the planes. The working set
// grows by a plane an iteration: run with -benchtime 20x for about 70.
func BenchmarkCuttingPlaneIterationOCRSmall(b *testing.B) {
	small, _ := loadOCR(b)
	for _, alg := range []run.Algorithm{run.CuttingPlane, run.FW} {
		b.Run(alg.String(), func(b *testing.B) {
			s, err := New(small, Config{Algorithm: alg, Lambda: 0.01, GapEvery: 1e9})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Run(b.Context(), run.Stop{Passes: 50}); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for k := 0; k < b.N; k++ {
				if err := s.alg.Step(); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if total, _ := s.Planes(); total > 0 {
				b.ReportMetric(float64(total), "planes")
			}
		})
	}
}
