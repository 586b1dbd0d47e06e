package solver

import (
	"fmt"
	"testing"
	"time"

	"github.com/fwstruct/fwstruct/oracles"
)

func TestZZScratch(t *testing.T) {
	usps, horses := loadReal(t)
	ocr, _ := loadOCR(t)
	for _, c := range []struct {
		name   string
		p      oracles.Problem
		passes float64
	}{{"horses", horses, 300}, {"ocr", ocr, 600}, {"usps", usps, 400}} {
		cfg := Config{Lambda: 1 / float64(c.p.Len()), Sampling: Permutation, GapEvery: 20, Averaging: true, MultiPlane: MultiPlane{Enabled: true, Rule: RuleCost, CostRatio: 100}}
		s := mustNew(t, c.p, cfg)
		t0 := time.Now()
		mustRun(t, s, Stop{Passes: c.passes, Gap: 1e-6})
		p, _ := s.Current()
		fmt.Printf("%s %v passes %.0f primal %.8f dual %.8f gap %.2e pavg %.8f davg %.8f\n", c.name, time.Since(t0), p.Pass, p.Primal, p.Dual, p.Gap, p.PrimalAvg, p.DualAvg)
	}
}
