package oracles_test

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
)

// costSensitive is a user's own structured problem: multiclass
// classification with a cost matrix. phi(x, c) places the dense input x in
// the block of class c, so w has one block of F weights per class. Its max
// oracle scores every class in a table of K floats, per-goroutine scratch
// from a sync.Pool: MaxOracle allocates nothing in steady state and
// concurrent calls never share the table.
type costSensitive struct {
	x    [][]float64 // dense inputs of F features
	y    []int32     // true classes
	cost [][]float64 // cost[true][predicted], zero on the diagonal
	k, f int

	scores sync.Pool // *[]float64, K class scores
}

var (
	_ oracles.Problem   = (*costSensitive)(nil)
	_ oracles.Labelings = (*costSensitive)(nil)
)

func newCostSensitive(x [][]float64, y []int32, cost [][]float64) *costSensitive {
	p := &costSensitive{x: x, y: y, cost: cost, k: len(cost), f: len(x[0])}
	p.scores.New = func() any { s := make([]float64, p.k); return &s }
	return p
}

func (p *costSensitive) Len() int            { return len(p.y) }
func (p *costSensitive) Dim() int            { return p.k * p.f }
func (p *costSensitive) Truth(i int) []int32 { return p.y[i : i+1 : i+1] }

func (p *costSensitive) Loss(i int, y []int32) float64 { return p.cost[p.y[i]][y[0]] }

// Psi is phi(x_i, y_i) - phi(x_i, y): +x in the true class's block, -x in
// y's, and nothing (not zeros) when y is the truth, so indices stay
// distinct.
func (p *costSensitive) Psi(i int, y []int32, dst *oracles.SparseVec) {
	dst.Idx, dst.Val = dst.Idx[:0], dst.Val[:0]
	if y[0] == p.y[i] {
		return
	}
	for j, v := range p.x[i] {
		dst.Append(int32(int(p.y[i])*p.f+j), v)
	}
	for j, v := range p.x[i] {
		dst.Append(int32(int(y[0])*p.f+j), -v)
	}
}

// score returns <w_c, x_i>, the score of class c.
func (p *costSensitive) score(i, c int, w []float64) float64 {
	var s float64
	for j, v := range p.x[i] {
		s += w[c*p.f+j] * v
	}
	return s
}

// MaxOracle returns argmax_c cost[y_i][c] + <w_c, x_i> - <w_{y_i}, x_i>
// with its value H, scoring the classes in pooled scratch.
func (p *costSensitive) MaxOracle(i int, w []float64, dst []int32) ([]int32, float64) {
	buf := p.scores.Get().(*[]float64)
	defer p.scores.Put(buf)
	s := *buf
	truth := p.score(i, int(p.y[i]), w)
	best := 0
	for c := range s {
		s[c] = p.cost[p.y[i]][c] + p.score(i, c, w) - truth
		if s[c] > s[best] {
			best = c
		}
	}
	return append(dst[:0], int32(best)), s[best]
}

// Predict returns argmax_c <w_c, x_i>.
func (p *costSensitive) Predict(i int, w []float64, dst []int32) []int32 {
	best, bestScore := 0, math.Inf(-1)
	for c := 0; c < p.k; c++ {
		if s := p.score(i, c, w); s > bestScore {
			best, bestScore = c, s
		}
	}
	return append(dst[:0], int32(best))
}

// ForEachLabeling lists the K classes, so that CheckProblem compares the
// oracle with brute force.
func (p *costSensitive) ForEachLabeling(i int, fn func(y []int32)) {
	y := make([]int32, 1)
	for c := 0; c < p.k; c++ {
		y[0] = int32(c)
		fn(y)
	}
}

// toyCostSensitive returns 30 examples of 3 classes and 4 features.
func toyCostSensitive() *costSensitive {
	var x [][]float64
	var y []int32
	for i := 0; i < 30; i++ {
		c := i % 3
		x = append(x, []float64{float64(c), float64(i%5) / 4, 1, float64((i*7)%3) - 1})
		y = append(y, int32(c))
	}
	cost := [][]float64{{0, 1, 2}, {1, 0, 1}, {2, 1, 0}} // ordinal: a miss by two costs twice
	return newCostSensitive(x, y, cost)
}

// A user-written Problem checked against the contract of oracles.Problem:
// zero loss and empty psi on the truth, distinct indices, the oracle equal
// to brute force, concurrent calls agreeing with sequential ones. A bug,
// here a loss that is not zero on the truth, is reported.
func Example_userProblem() {
	p := toyCostSensitive()
	fmt.Println("conforms:", oraclestest.CheckProblem(p, oraclestest.CheckOptions{Seed: 1}) == nil)

	p.cost[1][1] = 0.5
	err := oraclestest.CheckProblem(p, oraclestest.CheckOptions{Seed: 1})
	fmt.Println("with cost[1][1] = 0.5:", strings.Split(err.Error(), "\n")[0])
	// Output:
	// conforms: true
	// with cost[1][1] = 0.5: example 1: loss of the ground truth is 0.5, want 0
}

// TestUserProblemConformance runs the whole conformance suite on the
// example's problem, allocation check included (skipped under -race).
func TestUserProblemConformance(t *testing.T) {
	oraclestest.Conformance(t, toyCostSensitive(), oraclestest.CheckOptions{Seed: 2})
}
