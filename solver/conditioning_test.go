package solver

import (
	"math"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/internal/realdata"
	"github.com/fwstruct/fwstruct/oracles"
)

// multiclassOf returns a 3-class problem over 2 features whose inputs are
// x scaled by c.
func multiclassOf(t *testing.T, x [][2]float64, c float64) *oracles.Multiclass {
	t.Helper()
	xs := make([]oracles.SparseVec, len(x))
	ys := make([]int32, len(x))
	for i, v := range x {
		xs[i].Append(0, c*v[0])
		xs[i].Append(1, c*v[1])
		ys[i] = int32(i % 3)
	}
	p, err := oracles.NewMulticlass(3, 2, xs, ys)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestConditioningMulticlass checks Kappa against its closed form on
// multiclass data: at w = 0 the oracle returns a wrong class (loss 1), whose
// psi = x (e_y - e_s) has |psi|^2 = 2 |x|^2; and the scaling laws: features
// times c multiply Kappa by c^2, lambda times c divides it by c.
func TestConditioningMulticlass(t *testing.T) {
	x := [][2]float64{{1, 2}, {-3, 0.5}, {0, 4}, {2, 2}, {1, -1}}
	var want float64
	for _, v := range x {
		want += 2 * (v[0]*v[0] + v[1]*v[1])
	}
	want /= float64(len(x)) * 0.1 * float64(len(x)) // mean |psi|^2 / (lambda n), mean loss 1
	c, err := MeasureConditioning(multiclassOf(t, x, 1), 0.1)
	if err != nil {
		t.Fatal(err)
	}
	if c.Sampled != len(x) || c.Loss != 1 || math.Abs(c.Kappa-want) > 1e-12*want {
		t.Fatalf("%+v, want Kappa %v from %d examples of loss 1", c, want, len(x))
	}
	if c.Ill() || c.Warning("use --scale standardize") != "" {
		t.Errorf("Kappa %v: warned", c.Kappa)
	}
	big, err := MeasureConditioning(multiclassOf(t, x, 100), 0.1)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(big.Kappa-1e4*want) > 1e-9*big.Kappa {
		t.Errorf("features x100: Kappa %v, want %v", big.Kappa, 1e4*want)
	}
	if w := big.Warning("use --scale standardize"); !big.Ill() || !strings.HasPrefix(w, "ill-conditioned training") || !strings.HasSuffix(w, "; use --scale standardize") {
		t.Errorf("features x100 (Kappa %v): warning %q", big.Kappa, w)
	}
	loose, err := MeasureConditioning(multiclassOf(t, x, 100), 10)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(loose.Kappa-big.Kappa/100) > 1e-9*loose.Kappa || loose.Ill() {
		t.Errorf("lambda x100: Kappa %v, want %v and no warning", loose.Kappa, big.Kappa/100)
	}
	for _, lambda := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, err := MeasureConditioning(multiclassOf(t, x, 1), lambda); err == nil {
			t.Errorf("lambda %v accepted", lambda)
		}
	}
}

// TestConditioningSamples checks that at most 64 evenly spaced examples are
// read, the first and the last part of the data alike.
func TestConditioningSamples(t *testing.T) {
	x := make([][2]float64, 1000)
	for i := range x {
		x[i] = [2]float64{1, 0}
		if i >= 500 {
			x[i] = [2]float64{3, 0} // |psi|^2 = 18 on the second half, 2 on the first
		}
	}
	c, err := MeasureConditioning(multiclassOf(t, x, 1), 1)
	if err != nil {
		t.Fatal(err)
	}
	if c.Sampled != 64 || math.Abs(c.PsiSq-10) > 1e-12 {
		t.Errorf("sampled %d examples, mean |psi|^2 %v; want 64 and 10 (half of each)", c.Sampled, c.PsiSq)
	}
}

// TestConditioningOfShippedData checks that no shipped dataset is reported
// ill-conditioned at the lambdas its notebooks and the papers use.
func TestConditioningOfShippedData(t *testing.T) {
	root := realdata.Dir(t)
	cases := []struct {
		name    string
		lambdas []float64 // < 0: -c means 1/(c n)
	}{
		{"ocr", []float64{0.01, 0.001, -1}},
		{"usps", []float64{0.01, -1, -0.1}},
		{"yeast", []float64{0.01, 0.001}},
		{"conll", []float64{-1, -0.01}},
		{"horses", []float64{1e-3}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			train, _, err := datasets.Load(tc.name, datasets.Options{Path: root})
			if err != nil {
				t.Skipf("%s: %v", tc.name, err)
			}
			for _, lambda := range tc.lambdas {
				if lambda < 0 {
					lambda = 1 / (-lambda * float64(train.Len()))
				}
				c, err := MeasureConditioning(train, lambda)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("lambda %.3g: Kappa %.3g (mean |psi|^2 %.4g, mean loss %.3g)", lambda, c.Kappa, c.PsiSq, c.Loss)
				if c.Ill() || !(c.Kappa < 3e3) {
					t.Errorf("lambda %.3g: Kappa %.3g, want below 3e3 (the bound IllConditioned's doc states)", lambda, c.Kappa)
				}
			}
		})
	}
}
