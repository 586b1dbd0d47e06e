package run

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

// TestPointSoftFields: rho and hard_primal are written when finite and
// left out when NaN, and read back (absent as NaN).
func TestPointSoftFields(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		p       Point
		present bool
	}{
		{Point{Primal: 1, Dual: 0.5, Gap: 0.5, GapEstimate: nan, TrainLoss: nan, TestLoss: nan, PrimalAvg: nan, DualAvg: nan, GapAvg: nan,
			ChiGap: nan, ChiCurvature: nan, PredictedSpeedup: nan, ChiGapEstimate: nan, ActiveMean: nan, CacheMean: nan, Rho: 0.3, HardPrimal: 0.9}, true},
		{Point{Primal: 1, Rho: nan, HardPrimal: nan}, false},
	} {
		b, err := json.Marshal(tc.p)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(b), `"rho":`) && strings.Contains(string(b), `"hard_primal":`); got != tc.present {
			t.Fatalf("%s: soft fields present %v, want %v", b, got, tc.present)
		}
		var back Point
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if tc.present && (back.Rho != 0.3 || back.HardPrimal != 0.9) || !tc.present && !(math.IsNaN(back.Rho) && math.IsNaN(back.HardPrimal)) {
			t.Fatalf("read back rho %v, hard primal %v", back.Rho, back.HardPrimal)
		}
	}
}

// TestBlankIsAllNaN: every float field of Blank but the counters Pass and
// Seconds (which every solver sets) is NaN (a field added later is caught
// here) and every other field is zero; ForgetMultiPlane
// and ForgetSoft clear exactly their fields.
func TestBlankIsAllNaN(t *testing.T) {
	b := Blank()
	v := reflect.ValueOf(b)
	for k := 0; k < v.NumField(); k++ {
		f, name := v.Field(k), v.Type().Field(k).Name
		if f.Kind() == reflect.Float64 && name != "Pass" && name != "Seconds" {
			if !math.IsNaN(f.Float()) {
				t.Errorf("Blank().%s = %v, want NaN", name, f.Float())
			}
		} else if !f.IsZero() {
			t.Errorf("Blank().%s = %v, want zero", name, f.Interface())
		}
	}
	var p Point
	p.ForgetMultiPlane()
	p.ForgetSoft()
	if !math.IsNaN(p.ApproxPasses) || !math.IsNaN(p.ApproxPassesLast) || !math.IsNaN(p.WorkingSetMean) || !math.IsNaN(p.OracleTimeShare) ||
		!math.IsNaN(p.Rho) || !math.IsNaN(p.HardPrimal) || p.Primal != 0 || p.CacheMean != 0 {
		t.Fatalf("after Forget*: %+v", p)
	}
}
