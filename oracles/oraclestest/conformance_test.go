package oraclestest

import (
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
)

func TestConformanceOfShippedModels(t *testing.T) {
	tab, err := oracles.NewTabular(3, []oracles.TabularExample{
		{Phi: []oracles.SparseVec{{Idx: []int32{0}, Val: []float64{1}}, {Idx: []int32{1, 2}, Val: []float64{1, -1}}, {}}, Loss: []float64{0, 1, 0.5}, Truth: 0},
		{Phi: []oracles.SparseVec{{Idx: []int32{2}, Val: []float64{3}}, {Idx: []int32{0}, Val: []float64{-2}}}, Loss: []float64{1, 0}, Truth: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		p    oracles.Problem
	}{
		{"chain-dense", Chain(ChainConfig{N: 12, MaxLen: 4, Labels: 3, Features: 5, Density: 1, Seed: 1})},
		{"chain-sparse", Chain(ChainConfig{N: 12, MaxLen: 5, Labels: 4, Features: 9, Density: 0.3, Seed: 2})},
		{"multiclass", Multiclass(30, 5, 7, 3)},
		{"tabular", tab},
	} {
		t.Run(tc.name, func(t *testing.T) {
			Conformance(t, tc.p, CheckOptions{Seed: 7})
		})
	}
}

// broken wraps a valid problem and breaks one part of the contract.
type broken struct {
	*oracles.Multiclass
	truthLoss  float64 // added to every loss
	repeatPsi  bool    // psi repeats its first index
	wrongScore float64 // added to the oracle's score
}

func (b *broken) Loss(i int, y []int32) float64 { return b.Multiclass.Loss(i, y) + b.truthLoss }

func (b *broken) Psi(i int, y []int32, dst *oracles.SparseVec) {
	b.Multiclass.Psi(i, y, dst)
	if b.repeatPsi && dst.Len() > 0 {
		dst.Append(dst.Idx[0], 1)
	}
}

func (b *broken) MaxOracle(i int, w []float64, dst []int32) ([]int32, float64) {
	y, h := b.Multiclass.MaxOracle(i, w, dst)
	return y, h + b.wrongScore
}

func TestCheckProblemCatchesBrokenProblems(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    *broken
		want string
	}{
		{"truth-loss", &broken{truthLoss: 0.5}, "loss of the ground truth"},
		{"repeated-index", &broken{repeatPsi: true}, "repeats index"},
		{"wrong-score", &broken{wrongScore: 0.25}, "scores H"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.b.Multiclass = Multiclass(20, 4, 5, 9)
			err := CheckProblem(tc.b, CheckOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CheckProblem = %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
}

func TestCheckProblemRejectsEmptyProblem(t *testing.T) {
	if err := CheckProblem(nil, CheckOptions{}); err == nil {
		t.Fatal("nil problem accepted")
	}
}

// approx is an approximate oracle that returns the ground truth.
type approx struct{ *oracles.Multiclass }

func (a approx) MaxOracle(i int, w []float64, dst []int32) ([]int32, float64) {
	return append(dst[:0], a.Truth(i)...), 0
}
func (a approx) Exact() oracles.Problem { return a.Multiclass }

func TestCheckProblemAcceptsApproximateOracle(t *testing.T) {
	if err := CheckProblem(approx{Multiclass(15, 3, 4, 5)}, CheckOptions{}); err != nil {
		t.Fatal(err)
	}
}
