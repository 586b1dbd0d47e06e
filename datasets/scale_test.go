package datasets

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
)

// referenceScale scales dense rows with the statistics of fit computed
// column by column, the textbook way.
func referenceScale(kind Scaling, fit, rows [][]float64) [][]float64 {
	F := len(fit[0])
	off, fac := make([]float64, F), make([]float64, F)
	for f := 0; f < F; f++ {
		col := make([]float64, len(fit))
		for i := range fit {
			col[i] = fit[i][f]
		}
		switch kind {
		case ScaleMinMax:
			lo, hi := col[0], col[0]
			for _, v := range col {
				lo, hi = min(lo, v), max(hi, v)
			}
			off[f], fac[f] = lo, 1
			if hi > lo {
				fac[f] = 1 / (hi - lo)
			}
		case ScaleStandardize:
			var mean, ss float64
			for _, v := range col {
				mean += v
			}
			mean /= float64(len(col))
			for _, v := range col {
				ss += (v - mean) * (v - mean)
			}
			off[f], fac[f] = mean, 1
			if sd := math.Sqrt(ss / float64(len(col))); sd > 0 {
				fac[f] = 1 / sd
			}
		}
	}
	out := make([][]float64, len(rows))
	for i, r := range rows {
		out[i] = make([]float64, F)
		for f, v := range r {
			out[i][f] = (v - off[f]) * fac[f]
		}
	}
	return out
}

func TestScalerMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 40; trial++ {
		F := 1 + rng.IntN(8)
		train, _ := randomExamples(rng, 2+rng.IntN(15), F, []string{"a"})
		test, _ := randomExamples(rng, 1+rng.IntN(5), F, []string{"a"})
		if trial%4 == 0 { // a constant non-zero feature
			for i := range train {
				train[i] = oracles.SparseVec{Idx: []int32{0}, Val: []float64{2}}
			}
		}
		if trial%5 == 0 { // non-negative data
			for _, set := range [][]oracles.SparseVec{train, test} {
				for i := range set {
					for k := range set[i].Val {
						set[i].Val[k] = math.Abs(set[i].Val[k])
					}
				}
			}
		}
		for _, kind := range []Scaling{ScaleMinMax, ScaleStandardize} {
			sc, err := FitScaler(kind, train, F)
			if err != nil {
				t.Fatal(err)
			}
			dtrain, dtest := denseRows(train, F), denseRows(test, F)
			for _, set := range []struct {
				x    []oracles.SparseVec
				want [][]float64
			}{{train, referenceScale(kind, dtrain, dtrain)}, {test, referenceScale(kind, dtrain, dtest)}} {
				got, err := sc.Transform(set.x)
				if err != nil {
					t.Fatal(err)
				}
				for i := range got {
					for k, v := range got[i].Val {
						if v == 0 || (k > 0 && got[i].Idx[k] <= got[i].Idx[k-1]) {
							t.Fatalf("%v: stored zero or unsorted indices %v", kind, got[i].Idx)
						}
					}
					row := got[i].Dense(F)
					for f := range row {
						if math.Abs(row[f]-set.want[i][f]) > 1e-9*(1+math.Abs(set.want[i][f])) {
							t.Fatalf("%v trial %d: example %d feature %d = %v, reference %v", kind, trial, i, f, row[f], set.want[i][f])
						}
					}
				}
			}
			// Invariants on the training set.
			got, _ := sc.Transform(train)
			rows := denseRows(got, F)
			for f := 0; f < F; f++ {
				lo, hi, mean, sq := math.Inf(1), math.Inf(-1), 0.0, 0.0
				for _, r := range rows {
					lo, hi = min(lo, r[f]), max(hi, r[f])
					mean += r[f] / float64(len(rows))
				}
				for _, r := range rows {
					sq += (r[f] - mean) * (r[f] - mean) / float64(len(rows))
				}
				constant := lo == hi
				switch {
				case kind == ScaleMinMax && !constant && (math.Abs(lo) > 1e-12 || math.Abs(hi-1) > 1e-12):
					t.Fatalf("minmax feature %d spans [%v, %v]", f, lo, hi)
				case kind == ScaleStandardize && (math.Abs(mean) > 1e-9 || (!constant && math.Abs(sq-1) > 1e-9)):
					t.Fatalf("standardized feature %d has mean %v variance %v", f, mean, sq)
				}
			}
			if kind == ScaleMinMax && trial%5 == 0 && trial%4 != 0 {
				// Non-negative sparse data stays sparse.
				for i := range got {
					if len(got[i].Idx) != len(train[i].Idx) {
						t.Fatalf("minmax densified non-negative example %d", i)
					}
				}
			}
		}
	}
}

func TestScalerErrors(t *testing.T) {
	x := []oracles.SparseVec{{Idx: []int32{0, 2}, Val: []float64{1, 2}}}
	if sc, err := FitScaler(ScaleNone, x, 3); sc != nil || err != nil {
		t.Errorf("ScaleNone: %v, %v", sc, err)
	}
	if _, err := FitScaler(Scaling(7), x, 3); err == nil {
		t.Error("unknown scaling accepted")
	}
	if _, err := FitScaler(ScaleMinMax, nil, 3); err == nil {
		t.Error("no examples accepted")
	}
	sc, err := FitScaler(ScaleStandardize, x, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []oracles.SparseVec{
		{Idx: []int32{3}, Val: []float64{1}},
		{Idx: []int32{-1}, Val: []float64{1}},
		{Idx: []int32{2, 1}, Val: []float64{1, 1}},
		{Idx: []int32{1}, Val: nil},
	} {
		if _, err := sc.Transform([]oracles.SparseVec{bad}); err == nil {
			t.Errorf("Transform(%v) accepted", bad)
		}
	}
	huge := []oracles.SparseVec{{Idx: []int32{0}, Val: []float64{-1e308}}, {Idx: []int32{0}, Val: []float64{1e308}}}
	sc, err = FitScaler(ScaleStandardize, huge, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sc.Transform(huge); err != nil && !strings.Contains(err.Error(), "overflows") {
		t.Errorf("overflow error %v", err)
	}
}
