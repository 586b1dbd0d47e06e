package solver

import (
	"fmt"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/run"
)

// BenchmarkApproximateOracleOCR measures the slowdown of BCFW with an
// oracle of multiplicative accuracy nu (oracles.WithAccuracy; Lacoste-Julien
// et al. 2013, App. C): on OCR-small at lambda = 0.01, the effective passes
// to a certified duality gap of 0.1 (gap passes every 5 passes), median over
// 3 seeds, for nu = 1, 0.5, 0.25. Theorem C.1 bounds the expected error
// after k steps by 2nC/(nu k + 2n) with C = C_f/nu + h_0, so the passes to a
// given accuracy grow at most like 1/nu^2 (when C_f dominates h_0). The
// metrics are the passes, their ratio to nu = 1, the theory's 1/nu and
// 1/nu^2, and the mean accuracy the wrapper achieved (its answers are at
// least nu-accurate, on average more). It runs for minutes: use
//
//	go test ./solver -run '^$' -bench ApproximateOracleOCR -benchtime 1x
func BenchmarkApproximateOracleOCR(b *testing.B) {
	small, _ := loadOCR(b)
	var base float64
	for _, nu := range []float64{1, 0.5, 0.25} {
		b.Run(fmt.Sprintf("nu=%v", nu), func(b *testing.B) {
			var passes, acc []float64
			for seed := uint64(1); seed <= 3; seed++ {
				a, err := oracles.WithAccuracy(small, nu)
				if err != nil {
					b.Fatal(err)
				}
				s, err := newSolver(a, config{Lambda: 0.01, GapEvery: 5, Seed: seed})
				if err != nil {
					b.Fatal(err)
				}
				res, err := s.Run(b.Context(), run.Stop{Gap: 0.1, Passes: 3000})
				if err != nil || res.Status != run.StatusConverged {
					b.Fatalf("nu %v seed %d: %v %v", nu, seed, res.Status, err)
				}
				_, mean := a.Stats()
				passes, acc = append(passes, s.Passes()), append(acc, mean)
			}
			m := median(passes)
			if nu == 1 {
				base = m
			}
			b.ReportMetric(m, "passes")
			b.ReportMetric(m/base, "slowdown")
			b.ReportMetric(1/nu, "1/nu")
			b.ReportMetric(1/(nu*nu), "1/nu^2")
			b.ReportMetric(median(acc), "achieved-nu")
		})
	}
}
