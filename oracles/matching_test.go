package oracles_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	. "github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
)

func smallMatching(seed uint64) *Matching {
	return oraclestest.Matching(oraclestest.MatchingConfig{N: 20, MaxRows: 5, MaxCols: 6, Features: 5, Density: 0.7, Seed: seed})
}

func TestMatchingConformance(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		oraclestest.Conformance(t, smallMatching(seed), oraclestest.CheckOptions{Seed: seed, Weights: 6})
	}
	// Large weights: the loss terms matter little; small ones: they decide.
	oraclestest.Conformance(t, smallMatching(4), oraclestest.CheckOptions{Seed: 4, Scale: 5})
	oraclestest.Conformance(t, smallMatching(5), oraclestest.CheckOptions{Seed: 5, Scale: 0.05})
	// Larger graphs, without brute force.
	big := oraclestest.Matching(oraclestest.MatchingConfig{N: 30, MaxRows: 40, MaxCols: 40, Features: 30, Density: 0.3, Seed: 6})
	oraclestest.Conformance(t, big, oraclestest.CheckOptions{Seed: 6})
}

// edges builds a dense one-feature example whose edge (j, k) has feature 0
// of value f(j, k).
func edges(rows, cols int, f func(j, k int) float64) MatchingExample {
	x := MatchingExample{Rows: rows, Cols: cols, Start: []int32{0}}
	for j := 0; j < rows; j++ {
		for k := 0; k < cols; k++ {
			x.Index = append(x.Index, 0)
			x.Value = append(x.Value, float32(f(j, k)))
			x.Start = append(x.Start, int32(len(x.Index)))
		}
	}
	return x
}

func TestMatchingTargetAndLoss(t *testing.T) {
	// Row 0 has two sure links: the target keeps one, and no matching can
	// avoid missing the other.
	x := edges(2, 3, func(j, k int) float64 { return float64(j - k) })
	x.Sure = [][2]int32{{0, 0}, {0, 1}, {1, 1}}
	x.Possible = [][2]int32{{1, 2}}
	m, err := NewMatching(1, []MatchingExample{x}, MatchingCosts{})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Truth(0); !SameLabeling(got, []int32{0, 1}) {
		t.Fatalf("target %v, want [0 1]", got)
	}
	for _, tc := range []struct {
		y    []int32
		loss float64
	}{
		{[]int32{0, 1}, 0},            // the target
		{[]int32{1, -1}, 3},           // misses (0,0) and (1,1): 2*3, minus the unavoidable 3
		{[]int32{-1, -1}, 6},          // misses all three sure links
		{[]int32{1, 0}, 4},            // one hit, one extra: 2*3 + 1 - 3
		{[]int32{0, 2}, 4},            // (1,2) is only possible: an extra link
		{[]int32{0, 0}, math.Inf(1)},  // not a matching
		{[]int32{0}, math.Inf(1)},     // wrong length
		{[]int32{0, 3}, math.Inf(1)},  // column out of range
		{[]int32{-2, 1}, math.Inf(1)}, // bad row entry
		{[]int32{-1, 1}, 3},           // misses (0,0) and (0,1)
		{[]int32{2, 1}, 4},            // one extra, misses (0,0) and (0,1): 6 + 1 - 3
		{[]int32{-1, 0}, 9 + 1 - 3},   // misses all, one extra
		{[]int32{1, 1}, math.Inf(1)},  // column 1 twice
		{[]int32{2, -1}, 3*3 + 1 - 3}, // only an extra link
		{[]int32{-1, 2}, 3*3 + 1 - 3}, // only a possible link
		{[]int32{0, -1}, 3*2 - 3},     // one hit
		{[]int32{1, 2}, 3*2 + 1 - 3},  // one hit, one possible link
		{[]int32{2, 0}, 3*3 + 2 - 3},  // two extras
	} {
		if got := m.Loss(0, tc.y); got != tc.loss {
			t.Errorf("loss of %v = %v, want %v", tc.y, got, tc.loss)
		}
	}
	// The target closest to the diagonal: rows 0-1 and columns 0-2, sure
	// links (0,0), (0,1), (1,2) and (1,0): matchings of size 2 are
	// {(0,0),(1,2)} and {(0,1),(1,0)} and {(0,1),(1,2)}; (0,0) and (1,2)
	// lie on the diagonal.
	y := edges(2, 3, func(j, k int) float64 { return 0 })
	y.Sure = [][2]int32{{0, 1}, {1, 0}, {0, 0}, {1, 2}}
	m2, err := NewMatching(1, []MatchingExample{y}, MatchingCosts{Miss: 2, Extra: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if got := m2.Truth(0); !SameLabeling(got, []int32{0, 2}) {
		t.Fatalf("target %v, want [0 2]", got)
	}
	if got := m2.Loss(0, []int32{1, 0}); got != 0 {
		t.Fatalf("another maximum matching of sure links has loss %v, want 0", got)
	}
	if got := m2.Loss(0, []int32{-1, 1}); got != 2*4+0.5-2*2 {
		t.Fatalf("custom costs: loss %v, want %v", got, 2*4+0.5-2*2)
	}
}

func TestMatchingOracleScores(t *testing.T) {
	// One feature whose score prefers the anti-diagonal; the loss pulls
	// the oracle to the sure diagonal links. With w = 0 the loss alone
	// decides: the oracle takes every non-sure pair it can (extra 1 each)
	// and avoids the sure ones (whose weight is -3).
	x := edges(3, 3, func(j, k int) float64 {
		if j+k == 2 {
			return 1
		}
		return 0
	})
	x.Sure = [][2]int32{{0, 0}, {1, 1}, {2, 2}}
	m, err := NewMatching(1, []MatchingExample{x}, MatchingCosts{})
	if err != nil {
		t.Fatal(err)
	}
	y, h := m.MaxOracle(0, []float64{0}, nil)
	if want := 9.0 + 3; h != want { // misses 3 sure (9) + 3 extras
		t.Fatalf("w = 0: oracle score %v (labeling %v), want %v", h, y, want)
	}
	for j, k := range y {
		if int(k) == j || k < 0 {
			t.Fatalf("w = 0: the oracle's labeling %v uses a sure or no link", y)
		}
	}
	if y := m.Predict(0, []float64{10}, nil); !SameLabeling(y, []int32{2, 1, 0}) {
		t.Fatalf("prediction %v, want the anti-diagonal [2 1 0]", y)
	}
	if y := m.Predict(0, []float64{-1}, nil); !SameLabeling(y, []int32{-1, -1, -1}) {
		t.Fatalf("prediction with negative scores %v, want no link", y)
	}
	y, h, err = m.MaxOracleErr(0, []float64{math.NaN()}, nil)
	if err == nil || !math.IsNaN(h) || !SameLabeling(y, m.Truth(0)) {
		t.Fatalf("NaN weights: %v %v %v, want the target, NaN and an error", y, h, err)
	}
}

func TestNewMatchingErrors(t *testing.T) {
	good := func() MatchingExample { return edges(2, 2, func(j, k int) float64 { return 1 }) }
	for _, tc := range []struct {
		name  string
		dim   int
		costs MatchingCosts
		edit  func(x *MatchingExample)
		want  string
	}{
		{"dimension", 0, MatchingCosts{}, nil, "matching: dimension 0, want >= 1"},
		{"costs", 1, MatchingCosts{Miss: -1}, nil, "matching: loss costs miss -1 and extra 1, want positive and finite"},
		{"offsets", 1, MatchingCosts{}, func(x *MatchingExample) { x.Start = x.Start[:3] }, "matching: example 0: 3 feature offsets for 2 x 2 edges, want 5 starting at 0"},
		{"values", 1, MatchingCosts{}, func(x *MatchingExample) { x.Value = x.Value[:3] }, "matching: example 0: 4 feature indices and 3 values, the offsets end at 4"},
		{"index", 1, MatchingCosts{}, func(x *MatchingExample) { x.Index[2] = 1 }, "matching: example 0: edge (1, 0): feature index 1 outside [0, 1)"},
		{"repeated", 2, MatchingCosts{}, func(x *MatchingExample) {
			x.Index = []int32{0, 0, 0, 0, 0}
			x.Value = []float32{1, 1, 1, 1, 1}
			x.Start = []int32{0, 2, 3, 4, 5}
		}, "matching: example 0: edge (0, 0): feature index 0 listed twice"},
		{"NaN", 1, MatchingCosts{}, func(x *MatchingExample) { x.Value[3] = float32(math.NaN()) }, "matching: example 0: edge (1, 1): feature 0 is NaN"},
		{"decreasing", 1, MatchingCosts{}, func(x *MatchingExample) { x.Start[2] = 0 }, "matching: example 0: edge (0, 1): feature offsets decrease (1 then 0)"},
		{"sure outside", 1, MatchingCosts{}, func(x *MatchingExample) { x.Sure = [][2]int32{{0, 2}} }, "matching: example 0: sure edge (0, 2) outside the 2 x 2 graph"},
		{"twice", 1, MatchingCosts{}, func(x *MatchingExample) {
			x.Sure = [][2]int32{{0, 1}}
			x.Possible = [][2]int32{{0, 1}}
		}, "matching: example 0: possible edge (0, 1) listed twice (as sure or possible)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := good()
			if tc.edit != nil {
				tc.edit(&x)
			}
			_, err := NewMatching(tc.dim, []MatchingExample{x}, tc.costs)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestAlignmentCounts(t *testing.T) {
	// One example, 3 x 3: S = {(0,0), (1,1)}, P = S + {(1,2), (2,2)}.
	x := edges(3, 3, func(j, k int) float64 { return 0 })
	x.Sure = [][2]int32{{0, 0}, {1, 1}}
	x.Possible = [][2]int32{{1, 2}, {2, 2}}
	m, err := NewMatching(1, []MatchingExample{x}, MatchingCosts{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		y                []int32
		c                AlignmentCounts
		aer, prec, recal float64
	}{
		{[]int32{0, 1, -1}, AlignmentCounts{2, 2, 4, 2, 2}, 0, 1, 1},
		{[]int32{0, 2, -1}, AlignmentCounts{2, 2, 4, 1, 2}, 1 - 3.0/4, 1, 0.5},
		{[]int32{1, 0, 2}, AlignmentCounts{3, 2, 4, 0, 1}, 1 - 1.0/5, 1.0 / 3, 0},
		{[]int32{-1, -1, -1}, AlignmentCounts{0, 2, 4, 0, 0}, 1, math.NaN(), 0},
		{[]int32{0, 0, -1}, AlignmentCounts{0, 2, 4, 0, 0}, 1, math.NaN(), 0}, // not a matching: empty
	} {
		c := m.Counts([][]int32{tc.y})
		if c != tc.c {
			t.Errorf("%v: counts %+v, want %+v", tc.y, c, tc.c)
		}
		same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) < 1e-15 }
		if !same(c.AER(), tc.aer) || !same(c.Precision(), tc.prec) || !same(c.Recall(), tc.recal) {
			t.Errorf("%v: AER %v precision %v recall %v, want %v %v %v", tc.y, c.AER(), c.Precision(), c.Recall(), tc.aer, tc.prec, tc.recal)
		}
		ms := m.Metrics([][]int32{tc.y})
		if len(ms) != 3 || ms[0].Name != "AER" || !same(ms[0].Value, tc.aer) {
			t.Errorf("%v: metrics %v", tc.y, ms)
		}
	}
	if got := (AlignmentCounts{}).AER(); !math.IsNaN(got) {
		t.Errorf("AER of nothing against nothing: %v, want NaN", got)
	}
	a := AlignmentCounts{1, 2, 3, 4, 5}
	if got := a.Add(a); got != (AlignmentCounts{2, 4, 6, 8, 10}) {
		t.Errorf("Add: %+v", got)
	}
}

// TestMatchingTraining checks that the oracle supports learning: 3,000
// Pegasos steps on learnable random data bring the training AER from 1
// (w = 0 predicts no link) below 0.2.
func TestMatchingTraining(t *testing.T) {
	p := oraclestest.Matching(oraclestest.MatchingConfig{N: 60, MaxRows: 12, MaxCols: 12, Features: 8, Density: 1, Seed: 9})
	w := make([]float64, p.Dim())
	rng := rand.New(rand.NewPCG(1, 1))
	var psi SparseVec
	var y []int32
	for step := 1; step <= 3000; step++ {
		i := rng.IntN(p.Len())
		y, _ = p.MaxOracle(i, w, y)
		p.Psi(i, y, &psi)
		const lambda = 0.01 // Pegasos: w <- (1 - eta lambda) w + eta psi, eta = 1/(lambda (t+1))
		eta := 1 / (lambda * float64(step+1))
		for j := range w {
			w[j] *= 1 - eta*lambda
		}
		psi.AddTo(w, eta)
	}
	pred := make([][]int32, p.Len())
	for i := range pred {
		pred[i] = append([]int32(nil), p.Predict(i, w, nil)...)
	}
	if got, want := p.Score(w), p.Counts(pred); got != want {
		t.Fatalf("Score %+v, counts of the predictions %+v", got, want)
	}
	if aer := p.Counts(pred).AER(); !(aer < 0.2) {
		t.Fatalf("training AER after subgradient steps %v, want < 0.2 (w = 0: 1)", aer)
	}
}

func TestMatchingErrorsMentionExample(t *testing.T) {
	x := edges(1, 1, func(j, k int) float64 { return 1 })
	bad := x
	bad.Sure = [][2]int32{{-1, 0}}
	_, err := NewMatching(1, []MatchingExample{x, bad}, MatchingCosts{})
	if err == nil || !strings.HasPrefix(err.Error(), "matching: example 1: ") {
		t.Fatalf("error %v, want one naming example 1", err)
	}
}
