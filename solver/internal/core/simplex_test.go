package core

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// TestProjectSimplex checks the projection against its optimality
// conditions: the result is on the simplex and z - a is constant on the
// support of a and at most that constant off it.
func TestProjectSimplex(t *testing.T) {
	for _, z := range [][]float64{{0.2, 0.3, 0.5}, {3, -1, 0}, {1, 1, 1, 1}, {-5, -6}, {0.9, 0.05, 0.05, 2}, {7}} {
		a := append([]float64(nil), z...)
		ProjectSimplex(a, make([]float64, len(a)))
		if math.Abs(floats.Sum(a)-1) > 1e-12 || floats.Min(a) < 0 {
			t.Fatalf("Proj(%v) = %v: not on the simplex", z, a)
		}
		theta := math.NaN()
		for k := range a {
			if a[k] > 0 {
				theta = z[k] - a[k]
			}
		}
		for k := range a {
			if d := z[k] - a[k]; (a[k] > 0 && math.Abs(d-theta) > 1e-12) || (a[k] == 0 && z[k] > theta+1e-12) {
				t.Fatalf("Proj(%v) = %v: not optimal at %d (theta %v)", z, a, k, theta)
			}
		}
	}
}
