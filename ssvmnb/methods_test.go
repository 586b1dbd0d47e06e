package ssvmnb

import (
	"math"
	"testing"

	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/kernel"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/soft"
)

// TestMethodFields: the fields the notebook layer reads and sets by name
// are found on every kind of method (an embedded BCFW's included), a
// method without them is left as it is, and the value given is not
// modified.
func TestMethodFields(t *testing.T) {
	lp := solver.LPHard{BCFW: solver.BCFW{Lambda: 0.2, GapEvery: math.Inf(1)}}
	for _, c := range []struct {
		m          run.Method
		lambda     float64
		seeded     run.Method // withSeed(m, 7)
		recordable run.Method
	}{
		{solver.BCFW{Lambda: 0.1}, 0.1, solver.BCFW{Lambda: 0.1, Seed: 7}, solver.BCFW{Lambda: 0.1}},
		{lp, 0.2, solver.LPHard{BCFW: solver.BCFW{Lambda: 0.2, GapEvery: math.Inf(1), Seed: 7}}, solver.LPHard{BCFW: solver.BCFW{Lambda: 0.2, GapEvery: -1}}},
		{solver.FW{Lambda: 0.3, GapEvery: math.Inf(1)}, 0.3, solver.FW{Lambda: 0.3, GapEvery: math.Inf(1)}, solver.FW{Lambda: 0.3, GapEvery: -1}},
		{soft.BCFW{Lambda: 0.4, Rho: 1}, 0.4, soft.BCFW{Lambda: 0.4, Rho: 1, Seed: 7}, soft.BCFW{Lambda: 0.4, Rho: 1}},
		{kernel.FW{}, 0, kernel.FW{}, kernel.FW{}},
	} {
		if got := lambdaOf(c.m); got != c.lambda {
			t.Errorf("%s: lambda %v, want %v", c.m.Name(), got, c.lambda)
		}
		if got := withSeed(c.m, 7); !sameFields(got, c.seeded) {
			t.Errorf("%s: seeded %+v, want %+v", c.m.Name(), got, c.seeded)
		}
		if got := recordable(c.m); !run.Same(got, c.recordable) {
			t.Errorf("%s: recordable %+v, want %+v", c.m.Name(), got, c.recordable)
		}
		if got := orLambda(c.m, 0.5); c.lambda == 0 && lambdaOf(got) != 0.5 || c.lambda != 0 && lambdaOf(got) != c.lambda {
			t.Errorf("%s: orLambda gives lambda %v", c.m.Name(), lambdaOf(got))
		}
	}
	if lp.Seed != 0 || !math.IsInf(lp.GapEvery, 1) {
		t.Fatalf("the method given was modified: %+v", lp)
	}
}

// sameFields compares two methods that run.Encode may not write (+Inf).
func sameFields(a, b run.Method) bool { return methodDiff(a, a, b) == "" && methodDiff(b, b, a) == "" }
