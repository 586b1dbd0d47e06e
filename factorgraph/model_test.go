package factorgraph

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
)

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestMultiLabelLayout(t *testing.T) {
	l := MultiLabel{Labels: 14, Features: 103}
	if l.Dim() != 1533 {
		t.Fatalf("Yeast layout without bias: d = %d, want 1533", l.Dim())
	}
	if lb := (MultiLabel{Labels: 14, Features: 103, Bias: true}); lb.Dim() != 1547 {
		t.Fatalf("Yeast layout with bias: d = %d, want 1547", lb.Dim())
	}
	for _, l := range []MultiLabel{{Labels: 5, Features: 3}, {Labels: 4, Features: 2, Bias: true}, {Labels: 1, Features: 2}} {
		seen := map[int]bool{}
		claim := func(j int) {
			if j < 0 || j >= l.Dim() || seen[j] {
				t.Fatalf("%+v: coordinate %d out of range or used twice", l, j)
			}
			seen[j] = true
		}
		for i := 0; i < l.Labels; i++ {
			for f := 0; f < l.Features; f++ {
				claim(l.UnaryIndex(i, f))
			}
			if l.Bias {
				claim(l.BiasIndex(i))
			}
			for j := i + 1; j < l.Labels; j++ {
				if l.PairIndex(i, j) != l.PairIndex(j, i) {
					t.Fatal("PairIndex is not symmetric")
				}
				claim(l.PairIndex(i, j))
			}
		}
		if len(seen) != l.Dim() {
			t.Fatalf("%+v: %d coordinates used of %d", l, len(seen), l.Dim())
		}
	}
	// The score of a labeling is sum_i (w_i.x + b_i) y_i + sum_{i<j} w_ij y_i y_j.
	m, l := randomMultiLabel(t, 3, 4, 3, true, 8)
	e, err := NewExact(m, 0)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	w := randomWeights(rng, l.Dim(), 1)
	score := func(i int, y []int32) float64 {
		x := m.Inputs(i)[0]
		var s float64
		for a := 0; a < l.Labels; a++ {
			if y[a] == 0 {
				continue
			}
			for k, f := range x.Idx {
				s += w[l.UnaryIndex(a, int(f))] * x.Val[k]
			}
			s += w[l.BiasIndex(a)]
			for b := a + 1; b < l.Labels; b++ {
				s += w[l.PairIndex(a, b)] * float64(y[b])
			}
		}
		return s
	}
	for i := 0; i < m.Len(); i++ {
		e.ForEachLabeling(i, func(y []int32) {
			want := score(i, e.Truth(i)) - score(i, y)
			if got := dotPsi(e, i, y, w); math.Abs(got-want) > 1e-12 {
				t.Fatalf("example %d labeling %v: <w, psi> = %v, from the formula %v", i, y, got, want)
			}
			mis := 0
			for a := range y {
				mis += b2i(y[a] != e.Truth(i)[a])
			}
			if got := e.Loss(i, y); math.Abs(got-float64(mis)/float64(l.Labels)) > 1e-15 {
				t.Fatalf("loss %v, want %d/%d", got, mis, l.Labels)
			}
		})
	}
	oraclestest.Conformance(t, e, oraclestest.CheckOptions{Seed: 11})
}

func TestMetrics(t *testing.T) {
	g, err := MultiLabel{Labels: 3, Features: 1}.graph()
	if err != nil {
		t.Fatal(err)
	}
	truths := [][]int32{{1, 0, 1}, {0, 0, 0}, {0, 0, 0}, {1, 1, 0}}
	ex := make([]Example, len(truths))
	for i, y := range truths {
		ex[i] = Example{Graph: g, Inputs: []oracles.SparseVec{{}}, Truth: y}
	}
	m, err := NewModel(MultiLabel{Labels: 3, Features: 1}.Dim(), ex)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		pred    [][]int32
		ham, f1 float64
		subset  float64
	}{
		{"perfect", truths, 0, 1, 1},
		// F1: 2*1/(2+1), empty vs {0}: 0, both empty: 1, wrong length: 0.
		{"mixed", [][]int32{{1, 0, 0}, {1, 0, 0}, {0, 0, 0}, {1}}, (1.0/3 + 1.0/3 + 0 + 1) / 4, (2.0/3 + 0 + 1 + 0) / 4, 0.25},
	}
	for _, tc := range cases {
		got := assignmentMetrics(m, tc.pred)
		want := []oracles.Metric{{Name: MetricHamming, Value: tc.ham}, {Name: MetricF1, Value: tc.f1}, {Name: MetricSubset, Value: tc.subset}}
		if len(got) != len(want) {
			t.Fatalf("%s: %v", tc.name, got)
		}
		for k := range want {
			if got[k].Name != want[k].Name || math.Abs(got[k].Value-want[k].Value) > 1e-15 {
				t.Fatalf("%s: metric %d is %+v, want %+v", tc.name, k, got[k], want[k])
			}
		}
	}
	// Non-binary models only report the Hamming loss.
	c := randomModel(t, randomConfig{N: 2, Cards: []int{3, 3, 3}, Scopes: [][]int{{0, 1}, {1, 2}}, Features: 2, Seed: 1})
	e, _ := NewExact(c, 0)
	if got := e.Metrics([][]int32{c.Truth(0), c.Truth(1)}); len(got) != 1 || got[0].Name != MetricHamming || got[0].Value != 0 {
		t.Fatalf("chain metrics %v", got)
	}
	empty, _ := NewModel(1, nil)
	if got := assignmentMetrics(empty, nil); !math.IsNaN(got[0].Value) {
		t.Fatalf("metrics of no examples: %v, want NaN", got)
	}
}

func TestInvalid(t *testing.T) {
	one := OneHot(2, 1)
	g, err := NewGraph([]int{2, 2}, nil, []Factor{{Scope: []int{0, 1}}})
	if err != nil {
		t.Fatal(err)
	}
	graphCases := []struct {
		name    string
		cards   []int
		terms   [][]Term
		factors []Factor
		want    string
	}{
		{"no variables", nil, nil, nil, "without variables"},
		{"zero cardinality", []int{2, 0}, nil, nil, "cardinality"},
		{"empty scope", []int{2}, nil, []Factor{{}}, "empty scope"},
		{"out of range", []int{2}, nil, []Factor{{Scope: []int{1}}}, "outside"},
		{"repeated", []int{2, 2}, nil, []Factor{{Scope: []int{1, 1}}}, "repeated"},
		{"template size", []int{3}, [][]Term{{{T: one, Input: 0}}}, nil, "states"},
		{"const dim", []int{2}, [][]Term{{{T: OneHot(2, 3), Input: Const}}}, nil, "input -1"},
		{"nil template", []int{2}, [][]Term{{{}}}, nil, "nil template"},
		{"too many term lists", []int{2}, [][]Term{nil, nil}, nil, "term lists"},
		{"huge", []int{1 << 16, 1 << 16}, nil, []Factor{{Scope: []int{0, 1}}}, "2^31"},
	}
	for _, tc := range graphCases {
		_, err := NewGraph(tc.cards, tc.terms, tc.factors)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewGraph %s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	gt, err := NewGraph([]int{2}, [][]Term{{{T: OneHot(2, 2), Input: 0, Offset: 1}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	x := oracles.SparseVec{Idx: []int32{1}, Val: []float64{1}}
	modelCases := []struct {
		name string
		dim  int
		ex   Example
		want string
	}{
		{"nil graph", 5, Example{Truth: []int32{0}}, "nil graph"},
		{"dimension", 4, Example{Graph: gt, Inputs: []oracles.SparseVec{x}, Truth: []int32{0}}, "exceed"},
		{"missing input", 5, Example{Graph: gt, Truth: []int32{0}}, "input 0 of 0"},
		{"input index", 5, Example{Graph: gt, Inputs: []oracles.SparseVec{{Idx: []int32{2}, Val: []float64{1}}}, Truth: []int32{0}}, "template dimension"},
		{"NaN input", 5, Example{Graph: gt, Inputs: []oracles.SparseVec{{Idx: []int32{0}, Val: []float64{math.NaN()}}}, Truth: []int32{0}}, "NaN"},
		{"repeated input", 5, Example{Graph: gt, Inputs: []oracles.SparseVec{{Idx: []int32{0, 0}, Val: []float64{1, 1}}}, Truth: []int32{0}}, "repeats"},
		{"truth length", 5, Example{Graph: gt, Inputs: []oracles.SparseVec{x}, Truth: []int32{0, 1}}, "truth has"},
		{"truth range", 5, Example{Graph: gt, Inputs: []oracles.SparseVec{x}, Truth: []int32{2}}, "outside"},
		{"loss size", 5, Example{Graph: g, Truth: []int32{0, 0}, Loss: [][]float64{{0, 1, 2}}}, "entries"},
		{"loss at truth", 5, Example{Graph: g, Truth: []int32{0, 0}, Loss: [][]float64{{1, 0}}}, "true state"},
		{"negative loss", 5, Example{Graph: g, Truth: []int32{0, 0}, Loss: [][]float64{{0, -1}}}, "-1"},
		{"too many losses", 5, Example{Graph: g, Truth: []int32{0, 0}, Loss: make([][]float64, 4)}, "loss tables"},
	}
	for _, tc := range modelCases {
		_, err := NewModel(tc.dim, []Example{tc.ex})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewModel %s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := NewModel(0, nil); err == nil {
		t.Error("NewModel with dimension 0: no error")
	}
	if _, err := NewMultiLabel(MultiLabel{Labels: 2, Features: 1}, []oracles.SparseVec{{}}, [][]int32{{0, 2}}); err == nil {
		t.Error("NewMultiLabel with label 2: no error")
	}
	if _, err := NewMultiLabel(MultiLabel{Labels: 2, Features: 1}, []oracles.SparseVec{{}}, [][]int32{{0}}); err == nil {
		t.Error("NewMultiLabel with a short label vector: no error")
	}
	if _, err := NewMultiLabel(MultiLabel{Labels: 2, Features: 1}, nil, [][]int32{{0}}); err == nil {
		t.Error("NewMultiLabel with mismatched lengths: no error")
	}
	if _, err := NewRelaxed(&Model{dim: 1}, -1); err == nil {
		t.Error("NewRelaxed with denominator -1: no error")
	}
	big, _ := randomMultiLabel(t, 1, 12, 1, false, 1)
	if _, err := NewExact(big, 1000); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("NewExact over the limit: %v", err)
	}
}
