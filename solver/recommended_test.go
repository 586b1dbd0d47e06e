package solver

import (
	"testing"

	"github.com/fwstruct/fwstruct/oracles/oraclestest"
	"github.com/fwstruct/fwstruct/solver/run"
)

// TestRecommendedBeatsBaseline: on a multiclass problem with a small lambda
// (where plain BCFW is slow), the recommended configuration certifies the
// gap in fewer than a third of the baseline's passes, and it differs from
// the zero config only in sampling, steps and cache.
func TestRecommendedBeatsBaseline(t *testing.T) {
	rec := recommended()
	if rec.Lambda != 0 || rec.Algorithm != run.BCFW || rec.Averaging || rec.Box != nil || rec.GapEvery != 10 ||
		rec.Cache != (cacheRule{Enabled: true, Cache: Cache{F: 0.25, Nu: 0.01, MaxSize: 10}}) {
		t.Fatalf("recommended() = %+v: want Lambda unset, BCFW and explicit defaults", rec)
	}
	p := oraclestest.Multiclass(200, 6, 20, 5)
	const lambda, tol = 0.001, 0.002
	passes := map[string]float64{}
	for name, cfg := range map[string]config{"baseline": {}, "recommended": rec} {
		cfg.Lambda = lambda
		s := mustNew(t, p, cfg)
		if st := mustRun(t, s, run.Stop{Gap: tol, Passes: 5000}); st != run.StatusConverged {
			t.Fatalf("%s: %v after %v passes", name, st, s.Passes())
		}
		passes[name] = s.Passes()
	}
	t.Logf("passes to a gap of %v at lambda %v: %v", tol, lambda, passes)
	if !(3*passes["recommended"] < passes["baseline"]) {
		t.Fatalf("passes %v: the recommended configuration should need under a third of the baseline's", passes)
	}
}
