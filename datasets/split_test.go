package datasets

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
)

// sameExample fails unless example k of sub is example i of p: the same
// truth, and at the labeling p's oracle returns for random weights, the
// same loss and psi.
func sameExample(t *testing.T, p oracles.Problem, i int, sub oracles.Problem, k int, rng *rand.Rand) {
	t.Helper()
	if !slices.Equal(p.Truth(i), sub.Truth(k)) {
		t.Fatalf("example %d (%d of the subset): truth %v, want %v", i, k, sub.Truth(k), p.Truth(i))
	}
	w := make([]float64, p.Dim())
	for j := range w {
		w[j] = rng.NormFloat64()
	}
	y, _ := p.MaxOracle(i, w, nil)
	var a, b oracles.SparseVec
	p.Psi(i, y, &a)
	sub.Psi(k, y, &b)
	if !slices.Equal(a.Idx, b.Idx) || !slices.Equal(a.Val, b.Val) || p.Loss(i, y) != sub.Loss(k, y) {
		t.Fatalf("example %d (%d of the subset): psi or loss differ at %v", i, k, y)
	}
}

// TestSplitKeepsExamples splits the training set of every kind of data
// into its even and odd examples: each side holds those examples, as they
// were, with the problem's dimension.
func TestSplitKeepsExamples(t *testing.T) {
	dir := t.TempDir()
	conllFiles(t, dir, "c/train.txt", "c/test.txt")
	svm := writeFile(t, dir, "s.svm", []byte("1 1:10 2:-3\n2 1:20 3:7\n1 2:5\n3 1:1\n2 3:2\n"))
	writeFile(t, dir, "s.svm.t", []byte("2 1:15 2:1\n"))
	horses := fakeHorses(t, t.TempDir(), 7)
	cases := []struct {
		name string
		opt  Options
	}{
		{"synthetic", Options{Synthetic: SyntheticConfig{TrainWords: 9, TestWords: 3, Seed: 2}}},
		{filepath.Join(dir, "c", "train.txt"), Options{}},
		{"horses", Options{Horses: smallOptions(horses, t.TempDir())}},
		{writeMULAN(t, dir, "toy"), Options{}},
		{svm, Options{}},
	}
	for _, tc := range cases {
		t.Run(filepath.Base(tc.name), func(t *testing.T) {
			d, err := LoadData(tc.name, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			var even, odd []int
			for i := 0; i < d.Train.Len(); i++ {
				if i%2 == 0 {
					even = append(even, i)
				} else {
					odd = append(odd, i)
				}
			}
			fit, held, err := d.Split(even, odd)
			if err != nil {
				t.Fatal(err)
			}
			if fit.Len() != len(even) || held.Len() != len(odd) || fit.Dim() != d.Train.Dim() || held.Dim() != d.Train.Dim() {
				t.Fatalf("%s: %d/%d examples of dimension %d/%d; want %d/%d of %d", d.Name, fit.Len(), held.Len(), fit.Dim(), held.Dim(), len(even), len(odd), d.Train.Dim())
			}
			rng := rand.New(rand.NewPCG(1, 2))
			for k, i := range even {
				sameExample(t, d.Train, i, fit, k, rng)
			}
			for k, i := range odd {
				sameExample(t, d.Train, i, held, k, rng)
			}
		})
	}
}

// TestSplitRefitsScaling checks that the scaling of a split is fitted on
// its fit side alone: standardized fit inputs have mean 0 and variance 1,
// and the held inputs are mapped with the fit side's statistics; a scaler
// given in the options is applied as it is.
func TestSplitRefitsScaling(t *testing.T) {
	dir := t.TempDir()
	svm := writeFile(t, dir, "s.svm", []byte("1 1:10 2:-3\n2 1:20 3:7\n1 2:5\n3 1:1\n2 3:2\n1 1:4 2:4 3:4\n"))
	writeFile(t, dir, "s.svm.t", []byte("2 1:15 2:1\n"))
	train := uspsLine("1", uspsValues(0)) + "\n" + uspsLine("2", uspsValues(1)) + "\n" + uspsLine("9", uspsValues(2)) + "\n" + uspsLine("3", uspsValues(5)) + "\n"
	writeFile(t, dir, "zip.train", []byte(train))
	writeFile(t, dir, "zip.test", []byte(uspsLine("3", uspsValues(3))+"\n"))
	multiclassInputs := func(p oracles.Problem, nf int) [][]float64 {
		m := p.(*oracles.Multiclass)
		out := make([][]float64, m.Len())
		for i := range out {
			x := m.Input(i)
			out[i] = x.Dense(m.NumFeatures())[:nf]
		}
		return out
	}
	mulanInputsOf := func(p oracles.Problem, nf int) [][]float64 {
		x := mulanInputs(t, p)
		out := make([][]float64, len(x))
		for i := range x {
			out[i] = x[i].Dense(nf)
		}
		return out
	}
	cases := []struct {
		path     string
		features int
		inputs   func(oracles.Problem, int) [][]float64
	}{
		{svm, 3, multiclassInputs},
		{filepath.Join(dir, "zip.train"), USPSFeatures, multiclassInputs},
		{writeMULAN(t, dir, "toy"), 3, mulanInputsOf},
	}
	fitIdx, heldIdx := []int{0, 1, 3}, []int{2}
	for _, tc := range cases {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			raw, err := LoadData(tc.path, Options{NoBias: true})
			if err != nil {
				t.Fatal(err)
			}
			d, err := LoadData(tc.path, Options{NoBias: true, Scaling: ScaleStandardize})
			if err != nil {
				t.Fatal(err)
			}
			fit, held, err := d.Split(fitIdx, heldIdx)
			if err != nil {
				t.Fatal(err)
			}
			rawX := tc.inputs(raw.Train, tc.features)
			var fitRaw [][]float64
			for _, i := range fitIdx {
				fitRaw = append(fitRaw, rawX[i])
			}
			want := referenceScale(ScaleStandardize, fitRaw, append(slices.Clone(fitRaw), rawX[heldIdx[0]]))
			got := append(tc.inputs(fit, tc.features), tc.inputs(held, tc.features)...)
			for k := range want {
				for f := range want[k] {
					if math.Abs(got[k][f]-want[k][f]) > 1e-9*math.Max(1, math.Abs(want[k][f])) {
						t.Fatalf("row %d feature %d: %g, want %g (scaling fitted on the fit side)", k, f, got[k][f], want[k][f])
					}
				}
			}
			// A scaler given is the one applied: the split's inputs are
			// the whole training set's.
			given, err := LoadData(tc.path, Options{NoBias: true, Scaler: d.Scaler})
			if err != nil {
				t.Fatal(err)
			}
			gfit, _, err := given.Split(fitIdx, heldIdx)
			if err != nil {
				t.Fatal(err)
			}
			whole := tc.inputs(d.Train, tc.features)
			for k, i := range fitIdx {
				if !slices.Equal(tc.inputs(gfit, tc.features)[k], whole[i]) {
					t.Fatalf("fit example %d: the given scaler was not applied as it is", i)
				}
			}
		})
	}
}

func TestSplitErrors(t *testing.T) {
	d, err := LoadData("synthetic", Options{Synthetic: SyntheticConfig{TrainWords: 4, TestWords: 2, Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		fit, held []int
		want      string
	}{
		{[]int{0, 1}, nil, "without examples"},
		{nil, []int{0}, "without examples"},
		{[]int{0, 4}, []int{1}, "example 4 outside [0, 4)"},
		{[]int{0}, []int{-1}, "example -1 outside"},
	} {
		if _, _, err := d.Split(tc.fit, tc.held); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Split(%v, %v): %v, want %q", tc.fit, tc.held, err, tc.want)
		}
	}
	if _, _, err := (&Data{Name: "hand-made"}).Split([]int{0}, []int{1}); err == nil || !strings.Contains(err.Error(), "hand-made data cannot be split") {
		t.Errorf("data without a splitter: %v", err)
	}
}
